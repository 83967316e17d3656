#include "vcz/filter_expression.h"

#include <cstdlib>
#include <optional>
#include <utility>

namespace turbozarr::vcz::internal {
namespace {

bool Digit(char c) { return c >= '0' && c <= '9'; }
bool IdentifierStart(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
bool IdentifierChar(char c) { return IdentifierStart(c) || Digit(c); }
bool Space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// vcztools' refusals, by feature.
constexpr const char* kRegex = "Regular expressions";
constexpr const char* kFunctions = "Function evaluation";
constexpr const char* kSubscripts = "Array subscripts";
constexpr const char* kFiles = "File references";
constexpr const char* kGenotypes = "Genotype values";
constexpr const char* kMissing = "Missing data";
constexpr const char* kType = "TYPE field (except 'ref' and 'snp')";

// Parentheses and unary minus signs nest at most this deep: each level
// is a few frames of the recursive descent (and of the evaluation after
// it), and an expression nested ten thousand deep would overflow the stack.
constexpr int kMaxNesting = 100;

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Result<FilterNode> Parse() {
    SkipSpace();
    if (i_ == s_.size()) return SyntaxError("a filter expression");
    TZ_ASSIGN_OR_RETURN(FilterNode root, Or());
    SkipSpace();
    if (i_ != s_.size()) return SyntaxError("an operator or the end of the expression");
    return root;
  }

 private:
  void SkipSpace() {
    while (i_ < s_.size() && Space(s_[i_])) ++i_;
  }
  bool At(std::string_view token) {
    SkipSpace();
    return s_.substr(i_, token.size()) == token;
  }

  // The logical operator at the cursor ("||", "|", "&&", "&") of `kind`
  // ('|' or '&'), consumed, or "".
  std::string LogicalOperator(char kind) {
    SkipSpace();
    if (i_ >= s_.size() || s_[i_] != kind) return "";
    const bool doubled = i_ + 1 < s_.size() && s_[i_ + 1] == kind;
    i_ += doubled ? 2 : 1;
    return doubled ? std::string(2, kind) : std::string(1, kind);
  }

  // Joins `right` onto `left` by `op`: a run of one operator is one node.
  static FilterNode Join(FilterNode left, const std::string& op, FilterNode right) {
    if (left.kind == FilterNode::Kind::kLogical && left.op == op && !left.grouped) {
      left.operands.push_back(std::move(right));
      return left;
    }
    FilterNode node;
    node.kind = FilterNode::Kind::kLogical;
    node.op = op;
    node.position = left.position;
    node.operands.push_back(std::move(left));
    node.operands.push_back(std::move(right));
    return node;
  }

  Result<FilterNode> Or() {
    TZ_ASSIGN_OR_RETURN(FilterNode left, And());
    for (std::string op = LogicalOperator('|'); !op.empty(); op = LogicalOperator('|')) {
      TZ_ASSIGN_OR_RETURN(FilterNode right, And());
      left = Join(std::move(left), op, std::move(right));
    }
    return left;
  }

  Result<FilterNode> And() {
    TZ_ASSIGN_OR_RETURN(FilterNode left, Comparison());
    for (std::string op = LogicalOperator('&'); !op.empty(); op = LogicalOperator('&')) {
      TZ_ASSIGN_OR_RETURN(FilterNode right, Comparison());
      left = Join(std::move(left), op, std::move(right));
    }
    return left;
  }

  // A comparison operator at the cursor, consumed, or "".
  std::string ComparisonOperator() {
    SkipSpace();
    for (const char* op : {"==", "!=", "<=", ">=", "=", "<", ">"}) {
      if (s_.substr(i_, std::char_traits<char>::length(op)) == op) {
        i_ += std::char_traits<char>::length(op);
        return op;
      }
    }
    return "";
  }

  Result<FilterNode> Comparison() {
    TZ_ASSIGN_OR_RETURN(FilterNode left, Sum());
    TZ_RETURN_NOT_OK(NoRegex());
    const size_t at = i_;
    std::string op = ComparisonOperator();
    if (op.empty()) return left;
    TZ_ASSIGN_OR_RETURN(FilterNode right, Sum());
    TZ_RETURN_NOT_OK(NoRegex());
    SkipSpace();
    const size_t second = i_;
    if (!ComparisonOperator().empty()) {
      i_ = second;
      return SyntaxError("'&', '|' or the end: comparisons do not chain");
    }
    FilterNode node;
    node.kind = FilterNode::Kind::kComparison;
    node.op = std::move(op);
    node.position = at;
    node.operands.push_back(std::move(left));
    node.operands.push_back(std::move(right));
    return node;
  }

  // `~` and `!~` outside FILTER and TYPE tests are regular expressions.
  Status NoRegex() {
    if (At("~") || At("!~")) return Status::InvalidArgument(UnsupportedFeature(kRegex));
    return Status::OK();
  }

  // A chain of `ops` ("+-" or "*/") over operands parsed by `next`.
  template <typename Next>
  Result<FilterNode> Chain(const char* ops, Next next) {
    TZ_ASSIGN_OR_RETURN(FilterNode first, (this->*next)());
    FilterNode node;
    node.kind = FilterNode::Kind::kArithmetic;
    node.position = first.position;
    node.operands.push_back(std::move(first));
    while (true) {
      SkipSpace();
      if (i_ >= s_.size() || (s_[i_] != ops[0] && s_[i_] != ops[1])) break;
      node.ops.emplace_back(1, s_[i_++]);
      TZ_ASSIGN_OR_RETURN(node.operands.emplace_back(), (this->*next)());
    }
    if (node.ops.empty()) return std::move(node.operands.front());
    return node;
  }
  Result<FilterNode> Sum() { return Chain("+-", &Parser::Product); }
  Result<FilterNode> Product() { return Chain("*/", &Parser::Unary); }

  Result<FilterNode> Unary() {
    SkipSpace();
    if (i_ < s_.size() && s_[i_] == '-') {
      const size_t at = i_++;
      Nested nested(*this);
      if (depth_ > kMaxNesting) return TooDeep(at);
      TZ_ASSIGN_OR_RETURN(FilterNode operand, Unary());
      FilterNode node;
      node.kind = FilterNode::Kind::kNegate;
      node.position = at;
      node.operands.push_back(std::move(operand));
      return node;
    }
    return Primary();
  }

  Result<FilterNode> Primary() {
    SkipSpace();
    if (i_ >= s_.size()) return SyntaxError("a value, a tag or '('");
    const size_t at = i_;
    const char c = s_[i_];
    if (c == '(') {
      ++i_;
      Nested nested(*this);
      if (depth_ > kMaxNesting) return TooDeep(at);
      TZ_ASSIGN_OR_RETURN(FilterNode inner, Or());
      if (!At(")")) return SyntaxError("')'");
      ++i_;
      inner.grouped = true;
      return inner;
    }
    if (c == '"' || c == '\'') {
      TZ_ASSIGN_OR_RETURN(std::string text, Quoted());
      if (text == ".") return Status::InvalidArgument(UnsupportedFeature(kMissing));
      FilterNode node;
      node.kind = FilterNode::Kind::kString;
      node.text = std::move(text);
      node.position = at;
      return node;
    }
    if (c == '@') return Status::InvalidArgument(UnsupportedFeature(kFiles));
    if (Digit(c) || (c == '.' && i_ + 1 < s_.size() && Digit(s_[i_ + 1]))) return Number();
    if (IdentifierStart(c)) return Tag();
    return SyntaxError("a value, a tag or '('");
  }

  Result<std::string> Quoted() {
    const char quote = s_[i_];
    const size_t end = s_.find(quote, i_ + 1);
    if (end == std::string_view::npos) return SyntaxError("a closing quote");
    std::string text(s_.substr(i_ + 1, end - i_ - 1));
    i_ = end + 1;
    return text;
  }

  Result<FilterNode> Number() {
    const size_t at = i_;
    bool integer = true;
    while (i_ < s_.size() && Digit(s_[i_])) ++i_;
    if (i_ < s_.size() && s_[i_] == '.') {
      integer = false;
      ++i_;
      while (i_ < s_.size() && Digit(s_[i_])) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      size_t j = i_ + 1;
      if (j < s_.size() && (s_[j] == '+' || s_[j] == '-')) ++j;
      if (j < s_.size() && Digit(s_[j])) {
        integer = false;
        i_ = j;
        while (i_ < s_.size() && Digit(s_[i_])) ++i_;
      }
    }
    FilterNode node;
    node.kind = FilterNode::Kind::kNumber;
    node.integer = integer;
    node.number = std::strtod(std::string(s_.substr(at, i_ - at)).c_str(), nullptr);
    node.position = at;
    return node;
  }

  // A tag ("DP", "INFO/DP", "FMT/GQ"), or one of the tests on CHROM,
  // FILTER and TYPE when the tag is followed by an operator and a string.
  Result<FilterNode> Tag() {
    const size_t at = i_;
    for (std::string_view prefix : {"INFO/", "FORMAT/", "FMT/"}) {
      if (s_.substr(i_, prefix.size()) == prefix && i_ + prefix.size() < s_.size() &&
          IdentifierStart(s_[i_ + prefix.size()])) {
        i_ += prefix.size();
        break;
      }
    }
    while (i_ < s_.size() && IdentifierChar(s_[i_])) ++i_;
    std::string name(s_.substr(at, i_ - at));
    if (auto test = Test(name, at)) return std::move(*test);
    if (At("(")) return Status::InvalidArgument(UnsupportedFeature(kFunctions));
    if (At("[")) return Status::InvalidArgument(UnsupportedFeature(kSubscripts));
    const std::string_view bare = std::string_view(name).substr(name.find('/') + 1);
    if (bare == "GT") return Status::InvalidArgument(UnsupportedFeature(kGenotypes));
    FilterNode node;
    node.kind = FilterNode::Kind::kField;
    node.text = std::move(name);
    node.position = at;
    return node;
  }

  // CHROM, FILTER or TYPE, then one of the test's operators, then a
  // string: the test; nothing (cursor unmoved) when that does not follow.
  std::optional<Result<FilterNode>> Test(const std::string& name, size_t at) {
    std::vector<std::string_view> ops;
    FilterNode node;
    if (name == "CHROM") {
      ops = {"==", "!=", "="};
      node.kind = FilterNode::Kind::kChromTest;
    } else if (name == "FILTER") {
      ops = {"==", "!=", "!~", "=", "~"};
      node.kind = FilterNode::Kind::kFilterTest;
    } else if (name == "TYPE") {
      ops = {"==", "!=", "!~", "=", "~"};
      node.kind = FilterNode::Kind::kTypeTest;
    } else {
      return std::nullopt;
    }
    const size_t after_name = i_;
    SkipSpace();
    for (std::string_view op : ops) {
      if (s_.substr(i_, op.size()) != op) continue;
      i_ += op.size();
      SkipSpace();
      if (i_ >= s_.size() || (s_[i_] != '"' && s_[i_] != '\'')) break;
      Result<std::string> text = Quoted();
      if (!text.ok()) return Result<FilterNode>(text.status());
      if (node.kind == FilterNode::Kind::kTypeTest && *text != "ref" && *text != "snp") {
        return Result<FilterNode>(Status::InvalidArgument(UnsupportedFeature(kType)));
      }
      node.op = std::string(op);
      node.text = std::move(*text);
      node.position = at;
      return Result<FilterNode>(std::move(node));
    }
    i_ = after_name;
    return std::nullopt;
  }

  Status SyntaxError(const std::string& expected) const {
    return ErrorAt("expected " + expected, std::min(i_, s_.size()));
  }
  Status TooDeep(size_t at) const {
    return ErrorAt("parentheses and signs nested more than " + std::to_string(kMaxNesting) +
                       " deep",
                   at);
  }
  Status ErrorAt(const std::string& what, size_t at) const {
    std::string shown(s_);
    for (char& c : shown) {
      if (c == '\n' || c == '\t' || c == '\r') c = ' ';
    }
    return Status::InvalidArgument("Filter expression parse error: " + what +
                                   " at character " + std::to_string(at + 1) + ":\n  " +
                                   shown + "\n  " + std::string(at, ' ') + "^");
  }

  // One level deeper for its life.
  struct Nested {
    explicit Nested(Parser& p) : parser(p) { ++parser.depth_; }
    ~Nested() { --parser.depth_; }
    Parser& parser;
  };

  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

std::string UnsupportedFeature(std::string_view feature) {
  return "Unsupported filtering feature: " + std::string(feature) +
         ". turbozarr vcz refuses it as vcztools 0.2.0 does.";
}

Result<FilterNode> ParseFilterExpression(std::string_view expression) {
  return Parser(expression).Parse();
}

}  // namespace turbozarr::vcz::internal
