#include "vcz/query_format.h"

#include <optional>
#include <utility>

namespace turbozarr::vcz::internal {
namespace {

bool Upper(char c) { return c >= 'A' && c <= 'Z'; }
bool Digit(char c) { return c >= '0' && c <= '9'; }
bool Space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
// Printable ASCII but the characters the grammar gives a meaning to.
bool WordChar(char c) {
  return c > ' ' && c < 127 && c != '\\' && c != '{' && c != '}' && c != '[' && c != ']' &&
         c != '%';
}

// Sample loops nest at most this deep (each level is a frame of the parser
// and of the rendering; ten thousand would overflow the stack).
constexpr int kMaxNesting = 100;

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Result<std::vector<FormatElement>> Parse() {
    std::vector<FormatElement> out = Sequence();
    if (too_deep_) {
      return ErrorAt(*too_deep_, " (sample loops nested more than " +
                                     std::to_string(kMaxNesting) + " deep)");
    }
    if (i_ != s_.size()) return Error();
    return out;
  }

 private:
  // ZeroOrMore of the alternatives, in the grammar's order.
  std::vector<FormatElement> Sequence() {
    std::vector<FormatElement> out;
    while (i_ < s_.size()) {
      const size_t at = i_;
      if (s_[i_] == '[') {
        if (depth_ == kMaxNesting || too_deep_) {
          if (!too_deep_) too_deep_ = at;
          break;
        }
        ++i_;
        ++depth_;
        std::vector<FormatElement> inner = Sequence();
        --depth_;
        if (i_ < s_.size() && s_[i_] == ']') {
          ++i_;
          FormatElement loop;
          loop.kind = FormatElement::Kind::kSampleLoop;
          loop.loop = std::move(inner);
          out.push_back(std::move(loop));
          continue;
        }
        // No alternative matches at '[': either its loop holds something
        // that does not parse (reported there) or it is never closed.
        if (i_ >= s_.size() && !unclosed_) unclosed_ = at;
        if (i_ > furthest_) furthest_ = i_;
        i_ = at;
        break;
      }
      if (s_[i_] == '%') {
        std::string name;
        if (!Tag(name)) break;
        FormatElement e;
        e.kind = FormatElement::Kind::kTag;
        e.text = std::move(name);
        // A subfield: the tag, then {digits}.
        if (i_ < s_.size() && s_[i_] == '{') {
          size_t j = i_ + 1;
          int64_t n = 0;
          bool any = false;
          while (j < s_.size() && Digit(s_[j]) && n < (int64_t{1} << 40)) {
            n = n * 10 + (s_[j] - '0');
            any = true;
            ++j;
          }
          if (any && j < s_.size() && s_[j] == '}') {
            e.kind = FormatElement::Kind::kSubfield;
            e.subfield = n;
            i_ = j + 1;
          }
        }
        out.push_back(std::move(e));
        continue;
      }
      if (s_[i_] == '\\') {
        if (i_ + 1 < s_.size() && (s_[i_ + 1] == 'n' || s_[i_ + 1] == 't')) {
          Text(out, s_[i_ + 1] == 'n' ? "\n" : "\t");
          i_ += 2;
          continue;
        }
        break;
      }
      size_t j = i_;
      if (Space(s_[i_])) {
        while (j < s_.size() && Space(s_[j])) ++j;
      } else {
        while (j < s_.size() && WordChar(s_[j])) ++j;
      }
      if (j == i_) break;
      Text(out, s_.substr(i_, j - i_));
      i_ = j;
    }
    return out;
  }

  // "%INFO/" and upper-case letters, else "%", upper-case letters and at
  // most one digit.
  bool Tag(std::string& name) {
    constexpr std::string_view kInfo = "%INFO/";
    if (s_.substr(i_, kInfo.size()) == kInfo && i_ + kInfo.size() < s_.size() &&
        Upper(s_[i_ + kInfo.size()])) {
      size_t j = i_ + kInfo.size();
      while (j < s_.size() && Upper(s_[j])) ++j;
      name = std::string(s_.substr(i_ + 1, j - i_ - 1));
      i_ = j;
      return true;
    }
    size_t j = i_ + 1;
    while (j < s_.size() && Upper(s_[j])) ++j;
    if (j == i_ + 1) return false;
    if (j < s_.size() && Digit(s_[j])) ++j;
    name = std::string(s_.substr(i_ + 1, j - i_ - 1));
    i_ = j;
    return true;
  }

  static void Text(std::vector<FormatElement>& out, std::string_view text) {
    if (!out.empty() && out.back().kind == FormatElement::Kind::kText) {
      out.back().text += text;
      return;
    }
    FormatElement e;
    e.text = std::string(text);
    out.push_back(std::move(e));
  }

  Status Error() const {
    const size_t at = unclosed_ ? *unclosed_ : std::max(i_, furthest_);
    return ErrorAt(at, unclosed_ ? " (a '[' that is never closed)" : "");
  }
  Status ErrorAt(size_t at, const std::string& why) const {
    std::string shown(s_);
    for (char& c : shown) {
      if (c == '\n' || c == '\t' || c == '\r') c = ' ';
    }
    return Status::InvalidArgument("could not parse the format at character " +
                                   std::to_string(at + 1) + why + ":\n  " + shown + "\n  " +
                                   std::string(at, ' ') + "^");
  }

  std::string_view s_;
  size_t i_ = 0;
  size_t furthest_ = 0;
  std::optional<size_t> unclosed_;
  int depth_ = 0;
  std::optional<size_t> too_deep_;  // where the loop too deep opens
};

}  // namespace

Result<std::vector<FormatElement>> ParseQueryFormat(std::string_view format) {
  return Parser(format).Parse();
}

}  // namespace turbozarr::vcz::internal
