// The XML that S3 speaks, read and written by a small purpose-built scanner:
// S3's answers are flat, machine-written documents with a handful of known
// elements, so a general XML parser would buy nothing but a dependency.
//
// The scanner finds elements by name (`<Key>`, `<Key attr="x">`, `<Key/>`)
// and decodes their text (the five named entities and numeric character
// references). A document that opens an element and never closes it, or
// holds a malformed entity, is Corruption; elements it does not look for are
// skipped, whatever they hold.
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"

namespace turbozarr::s3xml {

// The raw (still encoded) content of every <tag> element in `doc`, in order.
// Elements of the same name are assumed not to nest.
Result<std::vector<std::string_view>> Elements(std::string_view doc,
                                               std::string_view tag);

// The decoded text of the first <tag> element, or nullopt if there is none.
Result<std::optional<std::string>> FirstText(std::string_view doc, std::string_view tag);

// Decodes entities and character references.
Result<std::string> DecodeText(std::string_view text);

// Escapes `text` for element content; tab, LF and CR become character
// references so that no parser normalises them away.
std::string EscapeText(std::string_view text);

// False for text that XML 1.0 cannot hold at all (C0 control characters
// other than tab, LF and CR).
bool CanHold(std::string_view text);

// Decodes a value of a listing asked for with encoding-type=url:
// %XX escapes, and '+' for a space.
Result<std::string> DecodeUrlEncoded(std::string_view text);

// One page of a ListObjectsV2 answer.
struct ListPage {
  std::vector<std::string> keys;             // full object keys
  std::vector<std::string> common_prefixes;  // with their trailing delimiter
  bool truncated = false;
  std::string next_continuation_token;
};
// REQUIRES: `url_encoded` when the listing asked for encoding-type=url.
Result<ListPage> ParseListPage(std::string_view xml, bool url_encoded);

// An S3 error: the <Code> and <Message> of an <Error> document.
struct S3Error {
  std::string code;
  std::string message;
  std::string key;  // DeleteObjects reports which key failed
};
// The first <Error> in `xml`, if it holds one.
std::optional<S3Error> ParseError(std::string_view xml);

// The <UploadId> of an InitiateMultipartUploadResult.
Result<std::string> ParseUploadId(std::string_view xml);

// The body of CompleteMultipartUpload: parts 1..n with their ETags.
std::string CompleteMultipartXml(std::span<const std::string> etags);

// The body of a quiet DeleteObjects request.
// REQUIRES: every key CanHold.
std::string DeleteObjectsXml(std::span<const std::string> keys);

// The keys a DeleteObjects answer says it could not delete.
Result<std::vector<S3Error>> ParseDeleteErrors(std::string_view xml);

}  // namespace turbozarr::s3xml
