#include "vcz/filter_expression.h"

#include <gtest/gtest.h>

#include <string>

namespace turbozarr::vcz::internal {
namespace {

// The tree as text: fields and literals as written, operators around their
// operands in brackets.
std::string Show(const FilterNode& n) {
  switch (n.kind) {
    case FilterNode::Kind::kNumber: {
      std::string s = std::to_string(n.number);
      s.erase(s.find_last_not_of('0') + 1);
      if (s.back() == '.') s.pop_back();
      return (n.integer ? "i" : "f") + s;
    }
    case FilterNode::Kind::kString: return "'" + n.text + "'";
    case FilterNode::Kind::kField: return n.text;
    case FilterNode::Kind::kChromTest: return "CHROM" + n.op + "'" + n.text + "'";
    case FilterNode::Kind::kFilterTest: return "FILTER" + n.op + "'" + n.text + "'";
    case FilterNode::Kind::kTypeTest: return "TYPE" + n.op + "'" + n.text + "'";
    case FilterNode::Kind::kNegate: return "-" + Show(n.operands[0]);
    case FilterNode::Kind::kArithmetic: {
      std::string s = "(" + Show(n.operands[0]);
      for (size_t i = 0; i < n.ops.size(); ++i) s += n.ops[i] + Show(n.operands[i + 1]);
      return s + ")";
    }
    case FilterNode::Kind::kComparison:
      return "(" + Show(n.operands[0]) + n.op + Show(n.operands[1]) + ")";
    case FilterNode::Kind::kLogical: {
      std::string s = "[" + Show(n.operands[0]);
      for (size_t i = 1; i < n.operands.size(); ++i) s += " " + n.op + " " + Show(n.operands[i]);
      return s + "]";
    }
  }
  return "?";
}

std::string Parsed(const std::string& expression) {
  Result<FilterNode> r = ParseFilterExpression(expression);
  return r.ok() ? Show(*r) : "error: " + r.status().message();
}

TEST(FilterExpressionTest, PrecedenceAsBcftoolsHasIt) {
  // & and && bind tighter than | and ||; comparisons tighter still.
  EXPECT_EQ(Parsed("POS>5 || POS>1 && POS<2"), "[(POS>i5) || [(POS>i1) && (POS<i2)]]");
  EXPECT_EQ(Parsed("A>1 | B>2 & C>3"), "[(A>i1) | [(B>i2) & (C>i3)]]");
  EXPECT_EQ(Parsed("A>1 && B>2 || C>3"), "[[(A>i1) && (B>i2)] || (C>i3)]");
  // & and && share a level, left to right.
  EXPECT_EQ(Parsed("A>1 && B>2 & C>3"), "[[(A>i1) && (B>i2)] & (C>i3)]");
  EXPECT_EQ(Parsed("1+2*3-4/5>0"), "((i1+(i2*i3)-(i4/i5))>i0)");
  EXPECT_EQ(Parsed("-POS<-10"), "(-POS<-i10)");
  EXPECT_EQ(Parsed("(INFO/DP+1)*2>=QUAL"), "(((INFO/DP+i1)*i2)>=QUAL)");
}

TEST(FilterExpressionTest, ARunOfOneOperatorIsOneNodeUnlessParenthesised) {
  EXPECT_EQ(Parsed("A=1 & B=2 & C=3"), "[(A=i1) & (B=i2) & (C=i3)]");
  EXPECT_EQ(Parsed("(A=1 & B=2) & C=3"), "[[(A=i1) & (B=i2)] & (C=i3)]");
  EXPECT_EQ(Parsed("A=1|B=2|C=3"), "[(A=i1) | (B=i2) | (C=i3)]");
}

TEST(FilterExpressionTest, LiteralsTagsAndTests) {
  EXPECT_EQ(Parsed("QUAL>=20.5"), "(QUAL>=f20.5)");
  EXPECT_EQ(Parsed("POS>.5e5"), "(POS>f50000)");
  EXPECT_EQ(Parsed("POS>1E3"), "(POS>f1000)");
  EXPECT_EQ(Parsed("INFO/AA=\"A\""), "(INFO/AA='A')");
  EXPECT_EQ(Parsed("FMT/FT='PASS'"), "(FMT/FT='PASS')");  // bcftools' single quotes
  EXPECT_EQ(Parsed("FORMAT/DP>1"), "(FORMAT/DP>i1)");
  EXPECT_EQ(Parsed("CHROM==\"chr1\""), "CHROM=='chr1'");
  EXPECT_EQ(Parsed("FILTER!~\"q10;s50\""), "FILTER!~'q10;s50'");
  EXPECT_EQ(Parsed("FILTER=\".\""), "FILTER='.'");
  EXPECT_EQ(Parsed("TYPE = \"snp\" & TYPE!=\"ref\""), "[TYPE='snp' & TYPE!='ref']");
  // Without an operator and a string after it, they are plain tags.
  EXPECT_EQ(Parsed("CHROM=1"), "(CHROM=i1)");
  EXPECT_EQ(Parsed("DB"), "DB");
}

TEST(FilterExpressionTest, RefusesWhatVcztoolsRefusesInItsWords) {
  const std::pair<const char*, const char*> cases[] = {
      {"INFO/AA ~ \"A\"", "Regular expressions"},
      {"FILTER=\"PASS\" & ID!~\"rs\"", "Regular expressions"},
      {"STRLEN(REF)>1", "Function evaluation"},
      {"INFO/AC[0]>1", "Array subscripts"},
      {"@file.txt", "File references"},
      {"GT=\"het\"", "Genotype values"},
      {"FMT/GT=\"0/1\"", "Genotype values"},
      {"INFO/AA=\".\"", "Missing data"},
      {"TYPE=\"indel\"", "TYPE field (except 'ref' and 'snp')"},
  };
  for (const auto& [expression, feature] : cases) {
    Result<FilterNode> r = ParseFilterExpression(expression);
    ASSERT_FALSE(r.ok()) << expression;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message().rfind("Unsupported filtering feature: " +
                                             std::string(feature) + ".",
                                         0),
              0u)
        << expression << ": " << r.status().message();
  }
}

TEST(FilterExpressionTest, SyntaxErrorsPointAtTheCharacter) {
  const std::pair<const char*, size_t> cases[] = {
      {"INFO/DP>", 9}, {"INFO/DP>5 & (QUAL<3", 20}, {"1<2<3", 4}, {"INFO/DP>5 &", 12},
      {"", 1},        {"QUAL>\"x", 6},             {"POS>1 2", 7}, {"POS>)", 5},
  };
  for (const auto& [expression, at] : cases) {
    Result<FilterNode> r = ParseFilterExpression(expression);
    ASSERT_FALSE(r.ok()) << expression;
    const std::string& m = r.status().message();
    EXPECT_NE(m.find("Filter expression parse error: expected"), std::string::npos) << m;
    EXPECT_NE(m.find("at character " + std::to_string(at) + ":"), std::string::npos) << m;
    EXPECT_EQ(m.substr(m.rfind('\n') + 1), std::string(2 + at - 1, ' ') + "^") << m;
  }
}

// Nesting is bounded, so that no expression overflows the stack: 100
// levels of parentheses or signs parse, the 101st is refused where it
// opens, and ten thousand are refused rather than crash.
TEST(FilterExpressionTest, NestingDeeperThanAHundredIsRefusedWhereItOpens) {
  auto nested = [](int levels, char open) {
    std::string e(static_cast<size_t>(levels), open);
    e += "1";
    if (open == '(') e += std::string(static_cast<size_t>(levels), ')');
    return e + ">0";
  };
  for (char open : {'(', '-'}) {
    Result<FilterNode> ok = ParseFilterExpression(nested(100, open));
    ASSERT_TRUE(ok.ok()) << ok.status().ToString();
    const FilterNode* node = &ok->operands[0];
    int depth = 0;
    while (!node->operands.empty() && node->kind != FilterNode::Kind::kNumber) {
      node = &node->operands[0];
      ++depth;
    }
    EXPECT_EQ(depth, open == '-' ? 100 : 0);
    EXPECT_EQ(node->number, 1);
    for (int levels : {101, 10'000}) {
      Result<FilterNode> r = ParseFilterExpression(nested(levels, open));
      ASSERT_FALSE(r.ok());
      const std::string& m = r.status().message();
      EXPECT_NE(m.find("nested more than 100 deep at character 101:"), std::string::npos)
          << m.substr(0, 200);
    }
  }
}

}  // namespace
}  // namespace turbozarr::vcz::internal
