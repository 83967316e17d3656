// The format strings of `query -f` ("%CHROM\t%POS[\t%SAMPLE=%GT]\n"), parsed
// by vcztools' grammar: tags (%POS, %INFO/DP, %AF1), subfields (%AC{0}),
// sample loops ([...], which may nest), the escapes \n and \t, runs of
// whitespace, and words of the other printable ASCII characters. Anything
// else (another escape, a lower-case tag, an unclosed bracket, a byte
// outside printable ASCII) is refused with the position it was met at.
//
// Thread safety: pure functions over values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"

namespace turbozarr::vcz::internal {

struct FormatElement {
  enum class Kind { kText, kTag, kSubfield, kSampleLoop };
  Kind kind = Kind::kText;
  std::string text;                   // kText: the characters; tags: the name ("INFO/DP")
  int64_t subfield = 0;               // kSubfield: the index in braces
  std::vector<FormatElement> loop;    // kSampleLoop: what is repeated per sample
};

// The elements of `format`; InvalidArgument naming the character position
// (with the format and a caret under it) when it does not parse.
Result<std::vector<FormatElement>> ParseQueryFormat(std::string_view format);

}  // namespace turbozarr::vcz::internal
