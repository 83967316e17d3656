// Reading and writing metadata documents byte-compatibly with zarr-python,
// which writes them with Python's json.dumps(indent=2, allow_nan=True).
//
// Documents keep their keys in order (JsonDocument); the writer puts the
// fields zarr metadata uses in zarr-python's order from a table, and leaves
// every other key (user attributes above all) where it was;
// Python's float repr and \uXXXX escaping are reproduced by hand because
// nlohmann's own dump differs in both.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "turbozarr/metadata.h"

namespace turbozarr {
namespace {

// Deeper documents are refused: no zarr metadata nests anywhere near this, and
// the writer and the tree walks below recurse.
constexpr int kMaxDepth = 256;

// Stands in for a bare NaN/Infinity token while nlohmann parses the text;
// a string no real document holds (it starts with U+0001).
constexpr std::string_view kSentinelPrefix = "\x01turbozarr-nonfinite:";

// Scans `text` outside strings: counts nesting depth and, when bare NaN,
// Infinity or -Infinity tokens occur, returns a copy with each replaced by a
// sentinel string. Returns false when nesting is too deep.
bool ScanDocument(std::string_view text, std::string* rewritten, bool* replaced) {
  *replaced = false;
  int depth = 0;
  bool in_string = false;
  std::string out;
  size_t copied = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth) return false;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == 'N' || c == 'I' || c == '-') {
      std::string_view rest = text.substr(i);
      std::string_view token;
      for (std::string_view t : {"NaN", "Infinity", "-Infinity"}) {
        if (rest.substr(0, t.size()) == t) token = t;
      }
      if (token.empty()) continue;
      out.append(text.substr(copied, i - copied));
      out += '"';
      // JSON cannot hold the raw \x01, so the sentinel is written escaped.
      out += "\\u0001";
      out.append(kSentinelPrefix.substr(1));
      out.append(token);
      out += '"';
      i += token.size() - 1;
      copied = i + 1;
      *replaced = true;
    }
  }
  if (*replaced) {
    out.append(text.substr(copied));
    *rewritten = std::move(out);
  }
  return true;
}

void RestoreNonFinite(JsonDocument& j) {
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    if (s.size() > kSentinelPrefix.size() &&
        std::string_view(s).substr(0, kSentinelPrefix.size()) == kSentinelPrefix) {
      std::string_view token = std::string_view(s).substr(kSentinelPrefix.size());
      j = token == "NaN" ? NAN : token == "Infinity" ? INFINITY : -INFINITY;
    }
  } else if (j.is_structured()) {
    for (auto& e : j) RestoreNonFinite(e);
  }
}

// ---- writing -------------------------------------------------------------

// zarr-python's field order. Only the relative order of keys that share an
// object matters: .zarray (shape, chunks, dtype, fill_value, order, filters,
// dimension_separator, compressor, zarr_format), array zarr.json (shape,
// data_type, ..., node_type, storage_transformers), group zarr.json
// (attributes, zarr_format, consolidated_metadata, node_type), named
// configurations and numcodecs objects.
constexpr std::string_view kFieldOrder[] = {
    "id",
    "name",
    "kind",
    "must_understand",
    "shape",
    "chunks",
    "data_type",
    "dtype",
    "chunk_grid",
    "chunk_key_encoding",
    "fill_value",
    "order",
    "filters",
    "dimension_separator",
    "compressor",
    "configuration",
    "chunk_shape",
    "separator",
    "endian",
    "typesize",
    "cname",
    "clevel",
    "shuffle",
    "blocksize",
    "level",
    "checksum",
    "codecs",
    "index_codecs",
    "index_location",
    "attributes",
    "dimension_names",
    "zarr_format",
    "consolidated_metadata",
    "node_type",
    "storage_transformers",
    "metadata",
    "zarr_consolidated_format",
};

size_t FieldRank(std::string_view key) {
  size_t n = std::size(kFieldOrder);
  for (size_t i = 0; i < n; ++i) {
    if (kFieldOrder[i] == key) return i;
  }
  return n;
}

void AppendHex4(std::string& out, uint32_t u) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(u >> shift) & 0xf];
}

// Python's json.dumps with ensure_ascii: control characters and everything
// past ASCII are escaped (astral code points as surrogate pairs). Bytes that
// are not UTF-8 become U+FFFD.
void AppendString(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size();) {
    auto c = static_cast<uint8_t>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (c < 0x20 || c == 0x7f) {  // Python escapes all but ' '..'~'
            AppendHex4(out, c);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    int extra = (c & 0xe0) == 0xc0   ? 1
                : (c & 0xf0) == 0xe0 ? 2
                : (c & 0xf8) == 0xf0 ? 3
                                     : -1;
    uint32_t cp = extra == 1 ? (c & 0x1f) : extra == 2 ? (c & 0x0f) : (c & 0x07);
    bool ok = extra > 0 && i + static_cast<size_t>(extra) < s.size();
    for (int k = 1; ok && k <= extra; ++k) {
      auto cc = static_cast<uint8_t>(s[i + k]);
      if ((cc & 0xc0) != 0x80) ok = false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    static constexpr uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (ok && (cp < kMin[extra] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) {
      ok = false;
    }
    if (!ok) {
      AppendHex4(out, 0xfffd);
      ++i;
      continue;
    }
    if (cp >= 0x10000) {
      cp -= 0x10000;
      AppendHex4(out, 0xd800 + (cp >> 10));
      AppendHex4(out, 0xdc00 + (cp & 0x3ff));
    } else {
      AppendHex4(out, cp);
    }
    i += extra + 1;
  }
  out += '"';
}

// Python's repr of a float: the shortest digits that read back exactly, in
// positional notation for exponents -4..15 (with ".0" when integral) and
// otherwise as "1.5e+16" / "1e-05".
void AppendFloat(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "Infinity" : "-Infinity";
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string_view sci(buf, res.ptr - buf);  // e.g. "-1.2345e+16", "5e-324"
  if (!sci.empty() && sci[0] == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits += c;
  }
  int exp = 0;
  std::string_view exp_str = sci.substr(e_pos + 1);
  if (!exp_str.empty() && exp_str[0] == '+') exp_str.remove_prefix(1);
  std::from_chars(exp_str.data(), exp_str.data() + exp_str.size(), exp);
  if (exp < -4 || exp >= 16) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    out += 'e';
    out += exp < 0 ? '-' : '+';
    int a = exp < 0 ? -exp : exp;
    if (a < 10) out += '0';
    out += std::to_string(a);
  } else if (exp >= 0) {
    size_t int_digits = static_cast<size_t>(exp) + 1;
    if (digits.size() <= int_digits) {
      out += digits;
      out.append(int_digits - digits.size(), '0');
      out += ".0";
    } else {
      out.append(digits, 0, int_digits);
      out += '.';
      out.append(digits, int_digits);
    }
  } else {
    out += "0.";
    out.append(static_cast<size_t>(-exp - 1), '0');
    out += digits;
  }
}

void Newline(std::string& out, int indent, int level) {
  out += '\n';
  out.append(static_cast<size_t>(indent * level), ' ');
}

void Write(std::string& out, const JsonDocument& j, int indent, int level,
           bool ordered) {
  using value_t = JsonDocument::value_t;
  switch (j.type()) {
    case value_t::null:
    case value_t::discarded:
    case value_t::binary:
      out += "null";
      return;
    case value_t::boolean:
      out += j.get<bool>() ? "true" : "false";
      return;
    case value_t::number_integer:
      out += std::to_string(j.get<int64_t>());
      return;
    case value_t::number_unsigned:
      out += std::to_string(j.get<uint64_t>());
      return;
    case value_t::number_float:
      AppendFloat(out, j.get<double>());
      return;
    case value_t::string:
      AppendString(out, j.get_ref<const std::string&>());
      return;
    case value_t::array: {
      if (j.empty()) {
        out += "[]";
        return;
      }
      out += '[';
      bool first = true;
      for (const auto& e : j) {
        if (!first) out += indent < 0 ? ", " : ",";
        first = false;
        if (indent >= 0) Newline(out, indent, level + 1);
        Write(out, e, indent, level + 1, ordered);
      }
      if (indent >= 0) Newline(out, indent, level);
      out += ']';
      return;
    }
    case value_t::object: {
      if (j.empty()) {
        out += "{}";
        return;
      }
      std::vector<JsonDocument::const_iterator> items;
      for (auto it = j.begin(); it != j.end(); ++it) items.push_back(it);
      if (ordered) {
        // Stable: keys outside the table keep their order.
        std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) {
          return FieldRank(a.key()) < FieldRank(b.key());
        });
      }
      out += '{';
      bool first = true;
      for (const auto& it : items) {
        if (!first) out += indent < 0 ? ", " : ",";
        first = false;
        if (indent >= 0) Newline(out, indent, level + 1);
        AppendString(out, it.key());
        out += ": ";
        // User attributes (zarr.json's "attributes", .zmetadata's
        // "<path>/.zattrs") are not metadata fields: keep their order.
        std::string_view key = it.key();
        bool attrs = key == "attributes" || key == ".zattrs" || key.ends_with("/.zattrs");
        Write(out, it.value(), indent, level + 1, ordered && !attrs);
      }
      if (indent >= 0) Newline(out, indent, level);
      out += '}';
      return;
    }
  }
}

}  // namespace

Result<JsonDocument> ParseJsonDocument(ByteView bytes, std::string_view key) {
  std::string_view text = AsChars(bytes);
  std::string rewritten;
  bool replaced = false;
  if (!ScanDocument(text, &rewritten, &replaced)) {
    return Status::Corruption("'" + std::string(key) + "': JSON nested deeper than " +
                              std::to_string(kMaxDepth) + " levels");
  }
  JsonDocument j;
  try {
    j = JsonDocument::parse(replaced ? std::string_view(rewritten) : text);
  } catch (const JsonDocument::exception& e) {
    return Status::Corruption("'" + std::string(key) + "': malformed JSON: " + e.what());
  }
  if (!j.is_object()) {
    return Status::Corruption("'" + std::string(key) + "': expected a JSON object, got " +
                              std::string(j.type_name()));
  }
  if (replaced) RestoreNonFinite(j);
  return j;
}

std::string DumpJsonDocument(const JsonDocument& j, int indent) {
  std::string out;
  Write(out, j, indent, 0, /*ordered=*/true);
  return out;
}

}  // namespace turbozarr
