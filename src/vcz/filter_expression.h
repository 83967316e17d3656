// The filter expressions of `-i/--include` and `-e/--exclude`
// ('INFO/DP>10 & FMT/GQ>20', 'FILTER="PASS"', 'TYPE="snp"'), parsed into a
// tree: the bcftools expression language as vcztools 0.2.0 accepts it.
//
// Precedence, loosest first, as bcftools has it: `|` and `||`; `&` and `&&`;
// the comparisons `< <= > >= = == !=` (one per operand pair); `+ -`;
// `* /`; unary `-`. A run of one logical operator is one node with every
// operand (vcztools decides some shapes over the whole run).
//
// What vcztools refuses is refused here with its words ("Unsupported
// filtering feature: Regular expressions", ...): regular expressions,
// functions, array subscripts, file references, genotype values (GT), the
// missing-value literal ".", and TYPE other than "ref" and "snp". A syntax
// error names the character position, with the expression and a caret.
//
// Thread safety: pure functions over values.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "turbozarr/status.h"

namespace turbozarr::vcz::internal {

struct FilterNode {
  enum class Kind {
    kNumber,      // a literal: `number`, `integer` when written without . or e
    kString,      // a quoted literal: `text`
    kField,       // a tag as written: `text` ("DP", "INFO/DP", "FMT/GQ", "POS")
    kChromTest,   // CHROM `op` "name": `text` is the name
    kFilterTest,  // FILTER `op` "a;b": `text` is the list
    kTypeTest,    // TYPE `op` "snp": `text` is the type
    kNegate,      // -operands[0]
    kArithmetic,  // operands[0] ops[0] operands[1] ops[1] ... (+ - * /)
    kComparison,  // operands[0] op operands[1]
    kLogical,     // operands joined by one `op`: & | && ||
  };
  Kind kind = Kind::kNumber;
  std::string text;
  double number = 0;
  bool integer = false;
  std::string op;                 // kComparison, kLogical, the tests
  std::vector<std::string> ops;   // kArithmetic
  std::vector<FilterNode> operands;
  size_t position = 0;            // where the node starts in the expression
  bool grouped = false;           // written in parentheses: not joined to a run
};

// The tree of `expression`; InvalidArgument naming the position (with the
// expression and a caret under it) when it does not parse, or vcztools'
// refusal when it uses a feature vcztools does not support.
Result<FilterNode> ParseFilterExpression(std::string_view expression);

// The message of vcztools' refusal of `feature` ("Regular expressions").
std::string UnsupportedFeature(std::string_view feature);

}  // namespace turbozarr::vcz::internal
