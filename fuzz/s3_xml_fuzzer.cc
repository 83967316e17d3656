// Fuzzes the scanner of S3's XML answers (store/s3_xml.h). The input is a
// document handed to every parser: ListObjectsV2 pages (plain and
// url-encoded), errors, InitiateMultipartUpload and DeleteObjects answers,
// and the element finder and text decoders under them. A malformed
// document must be Corruption, never a crash or a read out of bounds; and
// what parses must hold together:
//   - every element found lies in the document, right after '>' of its
//     opening tag and right before its closing tag;
//   - decoding never makes text longer, and text without escapes is kept;
//   - a url-encoded page is the plain page with each value url-decoded;
//   - any text XML can hold survives EscapeText -> DecodeText, also as an
//     element's content, and the request bodies the store writes give back
//     the keys and ETags they were made of.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "store/s3_xml.h"

namespace {

namespace s3xml = turbozarr::s3xml;
using turbozarr::Result;
using turbozarr::StatusCode;

[[noreturn]] void Fail(const std::string& what, std::string_view input) {
  std::fprintf(stderr, "s3_xml_fuzzer: %s\ninput: %.*s\n", what.c_str(),
               static_cast<int>(std::min<size_t>(input.size(), 2000)), input.data());
  std::abort();
}

template <typename T>
void ExpectCorruptionIfFailed(const Result<T>& r, const char* what,
                              std::string_view input) {
  if (!r.ok() && r.status().code() != StatusCode::kCorruption) {
    Fail(std::string(what) +
             " failed with another code than Corruption: " + r.status().ToString(),
         input);
  }
}

// The elements of `tag` lie inside `doc`, each right after the '>' of its
// opening tag and right before its closing tag (or nowhere, for <tag/>).
std::vector<std::string_view> CheckElements(std::string_view doc, std::string_view tag) {
  Result<std::vector<std::string_view>> elements = s3xml::Elements(doc, tag);
  ExpectCorruptionIfFailed(elements, "Elements", doc);
  if (!elements.ok()) return {};
  const std::string close = "</" + std::string(tag) + ">";
  for (std::string_view e : *elements) {
    if (e.data() == nullptr && e.empty()) continue;  // <tag/>
    const char* begin = doc.data();
    if (e.data() < begin + 1 || e.data() + e.size() > begin + doc.size()) {
      Fail("an element of <" + std::string(tag) + "> lies outside the document", doc);
    }
    const size_t at = static_cast<size_t>(e.data() - begin);
    if (doc[at - 1] != '>' ||
        doc.substr(at + e.size()).substr(0, close.size()) != close) {
      Fail("an element of <" + std::string(tag) + "> is not between its tags", doc);
    }
  }
  return std::move(elements).value();
}

void CheckDecoders(std::string_view text, std::string_view input) {
  Result<std::string> decoded = s3xml::DecodeText(text);
  ExpectCorruptionIfFailed(decoded, "DecodeText", input);
  if (decoded.ok()) {
    if (decoded->size() > text.size()) Fail("DecodeText made text longer", input);
    if (text.find('&') == std::string_view::npos && *decoded != text) {
      Fail("DecodeText changed text without entities", input);
    }
  }
  Result<std::string> url = s3xml::DecodeUrlEncoded(text);
  ExpectCorruptionIfFailed(url, "DecodeUrlEncoded", input);
  if (url.ok()) {
    if (url->size() > text.size()) Fail("DecodeUrlEncoded made text longer", input);
    if (text.find_first_of("%+") == std::string_view::npos && *url != text) {
      Fail("DecodeUrlEncoded changed text without escapes", input);
    }
  }
}

// Text that XML can hold comes back from its escaped form, alone and as an
// element's content; escaped text holds no markup or raw line ends.
void CheckRoundTrip(std::string_view text, std::string_view input) {
  if (!s3xml::CanHold(text)) return;
  const std::string escaped = s3xml::EscapeText(text);
  if (escaped.find_first_of("<>\"'\t\n\r") != std::string::npos) {
    Fail("EscapeText left markup or a raw line end", input);
  }
  Result<std::string> back = s3xml::DecodeText(escaped);
  if (!back.ok() || *back != text) Fail("DecodeText(EscapeText(s)) != s", input);
  Result<std::optional<std::string>> first =
      s3xml::FirstText("<R><Key>" + escaped + "</Key></R>", "Key");
  if (!first.ok() || !first->has_value() || **first != text) {
    Fail("escaped text does not come back as an element's content", input);
  }
}

void CheckListPage(std::string_view doc) {
  Result<s3xml::ListPage> plain = s3xml::ParseListPage(doc, false);
  Result<s3xml::ListPage> url = s3xml::ParseListPage(doc, true);
  ExpectCorruptionIfFailed(plain, "ParseListPage", doc);
  ExpectCorruptionIfFailed(url, "ParseListPage (url-encoded)", doc);
  if (url.ok() && !plain.ok()) Fail("a page parses url-encoded only", doc);
  if (!plain.ok()) return;
  if (plain->truncated && plain->next_continuation_token.empty()) {
    Fail("a truncated page without a continuation token parsed", doc);
  }
  if (plain->keys.size() != CheckElements(doc, "Contents").size() ||
      plain->common_prefixes.size() != CheckElements(doc, "CommonPrefixes").size()) {
    Fail("a page has another number of keys or prefixes than of elements", doc);
  }
  // The request body a DeleteObjects of the listed keys sends gives them back.
  std::vector<std::string> keys;
  for (const std::string& key : plain->keys) {
    if (s3xml::CanHold(key)) keys.push_back(key);
  }
  const std::string body = s3xml::DeleteObjectsXml(keys);
  std::vector<std::string_view> sent = CheckElements(body, "Key");
  if (sent.size() != keys.size()) Fail("DeleteObjectsXml lost keys", doc);
  for (size_t i = 0; i < keys.size(); ++i) {
    Result<std::string> back = s3xml::DecodeText(sent[i]);
    if (!back.ok() || *back != keys[i]) Fail("DeleteObjectsXml changed a key", doc);
  }
  if (!url.ok()) return;
  auto decoded = [&](const std::vector<std::string>& values,
                     const std::vector<std::string>& got) {
    if (values.size() != got.size()) return false;
    for (size_t i = 0; i < values.size(); ++i) {
      Result<std::string> d = s3xml::DecodeUrlEncoded(values[i]);
      if (!d.ok() || *d != got[i]) return false;
    }
    return true;
  };
  if (!decoded(plain->keys, url->keys) ||
      !decoded(plain->common_prefixes, url->common_prefixes) ||
      plain->truncated != url->truncated ||
      plain->next_continuation_token != url->next_continuation_token) {
    Fail("the url-encoded page is not the plain page url-decoded", doc);
  }
}

void CheckOtherAnswers(std::string_view doc) {
  std::optional<s3xml::S3Error> error = s3xml::ParseError(doc);
  if (error) {
    std::vector<std::string_view> errors = CheckElements(doc, "Error");
    if (errors.empty()) Fail("ParseError found an error where there is no <Error>", doc);
    Result<std::optional<std::string>> code = s3xml::FirstText(errors.front(), "Code");
    const std::string expected = code.ok() && code->has_value() ? **code : std::string();
    if (error->code != expected) Fail("ParseError's code is not the first <Code>", doc);
  }

  Result<std::string> upload = s3xml::ParseUploadId(doc);
  ExpectCorruptionIfFailed(upload, "ParseUploadId", doc);
  if (upload.ok()) {
    Result<std::optional<std::string>> first = s3xml::FirstText(doc, "UploadId");
    if (upload->empty() || !first.ok() || *first != std::optional<std::string>(*upload)) {
      Fail("ParseUploadId is not the first non-empty <UploadId>", doc);
    }
    // The completion body with this id as an ETag gives it back.
    if (s3xml::CanHold(*upload)) {
      const std::vector<std::string> etags = {*upload, "\"etag\""};
      const std::string body = s3xml::CompleteMultipartXml(etags);
      std::vector<std::string_view> sent = CheckElements(body, "ETag");
      Result<std::string> back = sent.empty() ? Result<std::string>(std::string())
                                              : s3xml::DecodeText(sent.front());
      if (sent.size() != 2 || !back.ok() || *back != *upload) {
        Fail("CompleteMultipartXml changed an ETag", doc);
      }
    }
  }

  Result<std::vector<s3xml::S3Error>> deletes = s3xml::ParseDeleteErrors(doc);
  ExpectCorruptionIfFailed(deletes, "ParseDeleteErrors", doc);
  if (deletes.ok() && deletes->size() != CheckElements(doc, "Error").size()) {
    Fail("ParseDeleteErrors has another number of errors than <Error> elements", doc);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view doc(reinterpret_cast<const char*>(data), size);
  CheckListPage(doc);
  CheckOtherAnswers(doc);
  for (std::string_view tag : {"Key", "Contents", "Prefix", "Message"}) {
    std::vector<std::string_view> elements = CheckElements(doc, tag);
    Result<std::optional<std::string>> first = s3xml::FirstText(doc, tag);
    ExpectCorruptionIfFailed(first, "FirstText", doc);
    if (first.ok() && first->has_value()) {
      Result<std::string> decoded = s3xml::DecodeText(elements.front());
      if (!decoded.ok() || *decoded != **first)
        Fail("FirstText is not the first element", doc);
    }
    for (std::string_view e : elements) CheckDecoders(e, doc);
  }
  CheckDecoders(doc, doc);
  CheckRoundTrip(doc, doc);
  return 0;
}
