#include "store/s3_xml.h"

#include <charconv>

#include "turbozarr/utf8.h"

namespace turbozarr::s3xml {

namespace {

Status Malformed(std::string_view why) {
  return Status::Corruption("malformed XML from the S3 server: " + std::string(why));
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Result<std::vector<std::string_view>> Elements(std::string_view doc,
                                               std::string_view tag) {
  std::vector<std::string_view> out;
  const std::string open = "<" + std::string(tag);
  const std::string close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while ((pos = doc.find(open, pos)) != std::string_view::npos) {
    size_t after = pos + open.size();
    if (after >= doc.size()) return Malformed("<" + std::string(tag) + " is cut short");
    const char c = doc[after];
    if (c != '>' && c != '/' && c != ' ' && c != '\t' && c != '\r' && c != '\n') {
      pos = after;  // a longer name, such as <KeyCount> for <Key>
      continue;
    }
    const size_t gt = doc.find('>', after);
    if (gt == std::string_view::npos) {
      return Malformed("<" + std::string(tag) + " is never closed");
    }
    if (doc[gt - 1] == '/') {  // <tag/>: empty
      out.emplace_back();
      pos = gt + 1;
      continue;
    }
    const size_t end = doc.find(close, gt + 1);
    if (end == std::string_view::npos) {
      return Malformed("<" + std::string(tag) + "> has no " + close);
    }
    out.push_back(doc.substr(gt + 1, end - gt - 1));
    pos = end + close.size();
  }
  return out;
}

Result<std::optional<std::string>> FirstText(std::string_view doc, std::string_view tag) {
  TZ_ASSIGN_OR_RETURN(std::vector<std::string_view> raw, Elements(doc, tag));
  if (raw.empty()) return std::optional<std::string>();
  TZ_ASSIGN_OR_RETURN(std::string text, DecodeText(raw.front()));
  return std::optional<std::string>(std::move(text));
}

Result<std::string> DecodeText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out += text[i];
      continue;
    }
    const size_t semi = text.find(';', i);
    if (semi == std::string_view::npos || semi - i > 12) {
      return Malformed("an entity without ';'");
    }
    const std::string_view name = text.substr(i + 1, semi - i - 1);
    if (name == "amp") {
      out += '&';
    } else if (name == "lt") {
      out += '<';
    } else if (name == "gt") {
      out += '>';
    } else if (name == "quot") {
      out += '"';
    } else if (name == "apos") {
      out += '\'';
    } else if (name.size() >= 2 && name[0] == '#') {
      const bool hex = name[1] == 'x' || name[1] == 'X';
      const std::string_view digits = name.substr(hex ? 2 : 1);
      uint32_t cp = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cp,
                                       hex ? 16 : 10);
      if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
          cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return Malformed("a bad character reference &" + std::string(name) + ";");
      }
      AppendUtf8(out, static_cast<char32_t>(cp));
    } else {
      return Malformed("an unknown entity &" + std::string(name) + ";");
    }
    i = semi;
  }
  return out;
}

std::string EscapeText(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 16);
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      case '\t':
        out += "&#9;";
        break;
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

bool CanHold(std::string_view text) {
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return false;
  }
  return true;
}

Result<std::string> DecodeUrlEncoded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%') {
      if (i + 2 >= text.size()) {
        return Malformed("a cut-short %-escape in '" + std::string(text) + "'");
      }
      const int hi = HexDigit(text[i + 1]), lo = HexDigit(text[i + 2]);
      if (hi < 0 || lo < 0) {
        return Malformed("a bad %-escape in '" + std::string(text) + "'");
      }
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

Result<ListPage> ParseListPage(std::string_view xml, bool url_encoded) {
  if (xml.find("<ListBucketResult") == std::string_view::npos) {
    return Malformed("no <ListBucketResult> in a listing");
  }
  auto decode = [&](std::string text) -> Result<std::string> {
    if (!url_encoded) return text;
    return DecodeUrlEncoded(text);
  };
  ListPage page;
  TZ_ASSIGN_OR_RETURN(std::vector<std::string_view> contents, Elements(xml, "Contents"));
  for (std::string_view c : contents) {
    TZ_ASSIGN_OR_RETURN(std::optional<std::string> key, FirstText(c, "Key"));
    if (!key) return Malformed("a <Contents> without <Key>");
    TZ_ASSIGN_OR_RETURN(std::string decoded, decode(std::move(*key)));
    page.keys.push_back(std::move(decoded));
  }
  TZ_ASSIGN_OR_RETURN(std::vector<std::string_view> prefixes,
                      Elements(xml, "CommonPrefixes"));
  for (std::string_view p : prefixes) {
    TZ_ASSIGN_OR_RETURN(std::optional<std::string> prefix, FirstText(p, "Prefix"));
    if (!prefix) return Malformed("a <CommonPrefixes> without <Prefix>");
    TZ_ASSIGN_OR_RETURN(std::string decoded, decode(std::move(*prefix)));
    page.common_prefixes.push_back(std::move(decoded));
  }
  TZ_ASSIGN_OR_RETURN(std::optional<std::string> truncated,
                      FirstText(xml, "IsTruncated"));
  page.truncated = truncated.value_or("") == "true";
  TZ_ASSIGN_OR_RETURN(std::optional<std::string> token,
                      FirstText(xml, "NextContinuationToken"));
  if (token) page.next_continuation_token = std::move(*token);
  if (page.truncated && page.next_continuation_token.empty()) {
    return Malformed("a truncated listing without <NextContinuationToken>");
  }
  return page;
}

std::optional<S3Error> ParseError(std::string_view xml) {
  Result<std::vector<std::string_view>> errors = Elements(xml, "Error");
  if (!errors.ok() || errors->empty()) return std::nullopt;
  S3Error e;
  const std::string_view body = errors->front();
  auto text = [&](std::string_view tag) {
    Result<std::optional<std::string>> t = FirstText(body, tag);
    return t.ok() && t->has_value() ? **t : std::string();
  };
  e.code = text("Code");
  e.message = text("Message");
  e.key = text("Key");
  return e;
}

Result<std::string> ParseUploadId(std::string_view xml) {
  TZ_ASSIGN_OR_RETURN(std::optional<std::string> id, FirstText(xml, "UploadId"));
  if (!id || id->empty()) return Malformed("no <UploadId> in the answer");
  return std::move(*id);
}

std::string CompleteMultipartXml(std::span<const std::string> etags) {
  std::string out = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags.size(); ++i) {
    out += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>" +
           EscapeText(etags[i]) + "</ETag></Part>";
  }
  out += "</CompleteMultipartUpload>";
  return out;
}

std::string DeleteObjectsXml(std::span<const std::string> keys) {
  std::string out = "<Delete><Quiet>true</Quiet>";
  for (const std::string& key : keys) {
    out += "<Object><Key>" + EscapeText(key) + "</Key></Object>";
  }
  out += "</Delete>";
  return out;
}

Result<std::vector<S3Error>> ParseDeleteErrors(std::string_view xml) {
  if (xml.find("<DeleteResult") == std::string_view::npos) {
    return Malformed("no <DeleteResult> in a DeleteObjects answer");
  }
  TZ_ASSIGN_OR_RETURN(std::vector<std::string_view> errors, Elements(xml, "Error"));
  std::vector<S3Error> out;
  for (std::string_view e : errors) {
    S3Error err;
    for (auto [tag, field] : {std::pair<const char*, std::string*>{"Key", &err.key},
                              {"Code", &err.code},
                              {"Message", &err.message}}) {
      TZ_ASSIGN_OR_RETURN(std::optional<std::string> t, FirstText(e, tag));
      if (t) *field = std::move(*t);
    }
    out.push_back(std::move(err));
  }
  return out;
}

}  // namespace turbozarr::s3xml
