// Fuzzes the parsers of what a `turbozarr vcz` user types: filter
// expressions (`-i/-e`, vcz/filter_expression.h), query format strings
// (`query -f`, vcz/query_format.h) and region lists (`-r/-t`,
// vcz/regions.h). The first byte picks the parser, the rest is the text. A
// text that does not parse must be InvalidArgument with a message, never a
// crash, a hang or a read out of bounds (deep nesting included); and what
// parses must hold together:
//   - every node of a filter tree starts inside the expression, and
//     operators join at least two operands;
//   - a format's sample loops are never empty of elements and tags have
//     names;
//   - every region of a region list names a contig that is part of the text,
//     at positions that are not negative.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "vcz/filter_expression.h"
#include "vcz/query_format.h"
#include "vcz/regions.h"

namespace {

namespace vcz = turbozarr::vcz::internal;
using turbozarr::Result;
using turbozarr::StatusCode;

[[noreturn]] void Fail(const std::string& what, std::string_view input) {
  std::fprintf(stderr, "vcz_text_fuzzer: %s\ninput: %.*s\n", what.c_str(),
               static_cast<int>(std::min<size_t>(input.size(), 2000)), input.data());
  std::abort();
}

template <typename T>
bool Parsed(const Result<T>& r, const char* what, std::string_view input) {
  if (r.ok()) return true;
  if (r.status().code() != StatusCode::kInvalidArgument) {
    Fail(std::string(what) + " failed with another code than InvalidArgument: " +
             r.status().ToString(),
         input);
  }
  if (r.status().message().empty()) Fail(std::string(what) + " failed without a message", input);
  return false;
}

void CheckFilterNode(const vcz::FilterNode& node, std::string_view input) {
  using Kind = vcz::FilterNode::Kind;
  if (node.position > input.size()) Fail("a filter node starts past the expression", input);
  switch (node.kind) {
    case Kind::kNegate:
      if (node.operands.size() != 1) Fail("a negation of other than one operand", input);
      break;
    case Kind::kArithmetic:
      if (node.operands.size() < 2 || node.ops.size() + 1 != node.operands.size()) {
        Fail("an arithmetic run whose operators do not join its operands", input);
      }
      break;
    case Kind::kComparison:
      if (node.operands.size() != 2) Fail("a comparison of other than two operands", input);
      break;
    case Kind::kLogical:
      if (node.operands.size() < 2) Fail("a logical run of fewer than two operands", input);
      break;
    default:
      if (!node.operands.empty()) Fail("a leaf with operands", input);
  }
  for (const vcz::FilterNode& operand : node.operands) CheckFilterNode(operand, input);
}

void CheckFormat(const std::vector<vcz::FormatElement>& elements, std::string_view input) {
  using Kind = vcz::FormatElement::Kind;
  for (const vcz::FormatElement& e : elements) {
    if ((e.kind == Kind::kTag || e.kind == Kind::kSubfield) && e.text.empty()) {
      Fail("a tag without a name", input);
    }
    if (e.kind == Kind::kSampleLoop) CheckFormat(e.loop, input);
  }
}

void CheckRegions(std::string_view text) {
  for (const vcz::RegionSpec& r : vcz::ParseRegionList(text)) {
    if (text.find(r.contig) == std::string_view::npos) {
      Fail("a region names a contig that is not in the text", text);
    }
    if ((r.start && *r.start < 0) || (r.end && *r.end < 0)) {
      Fail("a region with a negative position", text);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
    case 0: {
      Result<vcz::FilterNode> tree = vcz::ParseFilterExpression(text);
      if (Parsed(tree, "ParseFilterExpression", text)) CheckFilterNode(*tree, text);
      break;
    }
    case 1: {
      Result<std::vector<vcz::FormatElement>> format = vcz::ParseQueryFormat(text);
      if (Parsed(format, "ParseQueryFormat", text)) CheckFormat(*format, text);
      break;
    }
    default:
      CheckRegions(text);
  }
  return 0;
}
