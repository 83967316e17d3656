#include "store/aws_ini.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "store/store_internal.h"

namespace turbozarr::internal {

namespace {

// Larger than any real AWS file; a bound so that a wrong path (a device, a
// huge log) fails cleanly.
constexpr size_t kMaxFileBytes = size_t{16} << 20;

bool IsBlank(char c) { return c == ' ' || c == '\t'; }

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (IsBlank(s.front()) || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (IsBlank(s.back()) || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

bool IsComment(std::string_view s) { return !s.empty() && (s[0] == '#' || s[0] == ';'); }

// `s` up to a '#' or ';' that follows whitespace.
std::string_view StripInlineComment(std::string_view s) {
  for (size_t i = 1; i < s.size(); ++i) {
    if ((s[i] == '#' || s[i] == ';') && IsBlank(s[i - 1])) return s.substr(0, i);
  }
  return s;
}

struct Property {
  std::string name;
  std::string value;
};

class Parser {
 public:
  Parser(std::string_view text, std::string path) : text_(text) {
    file_.path = std::move(path);
  }

  Result<AwsIniFile> Run() {
    if (text_.starts_with("\xEF\xBB\xBF")) text_.remove_prefix(3);  // UTF-8 BOM
    int line_no = 0;
    while (!text_.empty()) {
      const size_t nl = text_.find('\n');
      std::string_view line = text_.substr(0, nl);
      text_.remove_prefix(nl == std::string_view::npos ? text_.size() : nl + 1);
      ++line_no;
      TZ_RETURN_NOT_OK(Line(line, line_no));
    }
    return std::move(file_);
  }

 private:
  Status Error(int line, std::string_view what) const {
    return Status::InvalidArgument("AWS config file " + file_.Where(line) + ": " +
                                   std::string(what));
  }

  Status Line(std::string_view line, int line_no) {
    size_t indent = 0;
    while (indent < line.size() && IsBlank(line[indent])) ++indent;
    const std::string_view body = Trim(line);
    if (body.empty() || IsComment(body)) return Status::OK();
    AwsIniSection* section = file_.sections.empty() ? nullptr : &file_.sections.back();
    // Deeper than the property above: one of its sub-properties.
    if (section != nullptr && !last_.empty() && indent > last_indent_) {
      if (!section->properties[last_].value.empty()) {
        return Error(line_no,
                     "an indented line continues property '" + last_ +
                         "', which already has a value (only a property "
                         "written as 'name =' may hold indented sub-properties)");
      }
      TZ_ASSIGN_OR_RETURN(Property p, ParseProperty(body, line_no));
      if (!section->blocks[last_]
               .try_emplace(p.name, AwsIniValue{p.value, line_no})
               .second) {
        return Error(line_no, "'" + p.name + "' appears twice under '" + last_ + "'");
      }
      return Status::OK();
    }
    if (body.front() == '[') return Header(body, line_no);
    if (section == nullptr) {
      return Error(line_no, "a property before the first [section] header");
    }
    TZ_ASSIGN_OR_RETURN(Property p, ParseProperty(body, line_no));
    auto [it, added] =
        section->properties.try_emplace(p.name, AwsIniValue{p.value, line_no});
    if (!added) {
      return Error(line_no, "property '" + p.name + "' appears twice in section [" +
                                section->name + "] (first on line " +
                                std::to_string(it->second.line) + ")");
    }
    last_ = p.name;
    last_indent_ = indent;
    return Status::OK();
  }

  Status Header(std::string_view body, int line_no) {
    const size_t close = body.find(']');
    if (close == std::string_view::npos) {
      return Error(line_no, "a section header without its closing ']'");
    }
    const std::string_view after = Trim(body.substr(close + 1));
    if (!after.empty() && !IsComment(after)) {
      return Error(line_no, "text after a section header's ']'");
    }
    const std::string name(Trim(body.substr(1, close - 1)));
    if (name.empty()) return Error(line_no, "a section header without a name");
    auto [first, added] = section_lines_.try_emplace(name, line_no);
    if (!added) {
      return Error(line_no, "section [" + name + "] appears twice (first on line " +
                                std::to_string(first->second) + ")");
    }
    AwsIniSection& section = file_.sections.emplace_back();
    section.name = name;
    section.line = line_no;
    last_.clear();
    return Status::OK();
  }

  Result<Property> ParseProperty(std::string_view body, int line_no) const {
    const size_t eq = body.find_first_of("=:");
    if (eq == std::string_view::npos) {
      return Error(line_no, "expected 'name = value', a [section] header or a comment");
    }
    Property p{AsciiLower(Trim(body.substr(0, eq))),
               std::string(Trim(StripInlineComment(body.substr(eq + 1))))};
    if (p.name.empty()) return Error(line_no, "a property without a name");
    return p;
  }

  std::string_view text_;
  AwsIniFile file_;
  std::map<std::string, int> section_lines_;  // where each section starts
  std::string last_;  // the last property of the current section ("" if none)
  size_t last_indent_ = 0;
};

}  // namespace

const AwsIniValue* AwsIniSection::Find(std::string_view name) const {
  auto it = properties.find(std::string(name));
  return it == properties.end() ? nullptr : &it->second;
}

const AwsIniValue* AwsIniSection::FindIn(std::string_view block,
                                         std::string_view name) const {
  auto b = blocks.find(std::string(block));
  if (b == blocks.end()) return nullptr;
  auto it = b->second.find(std::string(name));
  return it == b->second.end() ? nullptr : &it->second;
}

const AwsIniSection* AwsIniFile::Find(std::string_view name) const {
  for (const AwsIniSection& s : sections) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::string AwsIniFile::Where(int line) const {
  return path + ":" + std::to_string(line);
}

Result<AwsIniFile> ParseAwsIni(std::string_view text, std::string path) {
  return Parser(text, std::move(path)).Run();
}

Result<std::optional<AwsIniFile>> ReadAwsIniFile(const std::string& path) {
  auto fail = [&](std::string_view what) {
    return Status::IOError("AWS config file " + path + ": " + std::string(what));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return std::optional<AwsIniFile>();
    return fail(std::strerror(errno));
  }
  std::string text;
  struct stat st;
  Status status;
  if (::fstat(fd, &st) != 0) {
    status = fail(std::strerror(errno));
  } else if (!S_ISREG(st.st_mode)) {
    status = fail("not a regular file");
  } else {
    char buf[1 << 14];
    for (;;) {
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = fail(std::strerror(errno));
        break;
      }
      if (n == 0) break;
      text.append(buf, static_cast<size_t>(n));
      if (text.size() > kMaxFileBytes) {
        status = fail("larger than 16 MiB; not an AWS config file");
        break;
      }
    }
  }
  ::close(fd);
  TZ_RETURN_NOT_OK(status);
  TZ_ASSIGN_OR_RETURN(AwsIniFile file, ParseAwsIni(text, path));
  return std::optional<AwsIniFile>(std::move(file));
}

}  // namespace turbozarr::internal
