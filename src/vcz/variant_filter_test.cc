#include "vcz/variant_filter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "vcz/vcz_test_dataset.h"

namespace turbozarr::vcz::internal {
namespace {

using testing::Put;

float Bits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
const float kMissing = Bits(0x7F800001);
const float kFill = Bits(0x7F800002);

// Four variants and three samples (A, B, C), with a field of each kind:
//   variant  alleles     QUAL  INFO/DP  INFO/AF     FILTER  DB  FMT/DP      GT
//   0 chr1   A T         10.5  12       0.5 -       PASS    1   5 15 25     0/1 1/1 ./.
//   1 chr1   A AT G      .     .        0.1 0.2     q10     0   30 . 10     0/0 0/2 1
//   2 chr2   C G T       30    40       0.25 0.75   .       0   1 2 3       0/0 0/1 2/2
//   3 chr2   G           5     7        - -         q10     1   40 50 .     0/0 0/0 ./.
std::shared_ptr<Group> Dataset(int8_t odd_allele = 2) {
  auto g = Group::Create(MakeMemoryStore(), "", {});
  EXPECT_TRUE(g.ok());
  Group& root = **g;
  Put<int32_t>(root, "variant_position", DataTypeId::kInt32, {4}, {10, 20, 30, 40});
  Put<int8_t>(root, "variant_contig", DataTypeId::kInt8, {4}, {0, 0, 1, 1});
  Put<std::string>(root, "contig_id", DataTypeId::kString, {2}, {"chr1", "chr2"});
  Put<std::string>(root, "sample_id", DataTypeId::kString, {3}, {"A", "B", "C"});
  Put<std::string>(root, "variant_allele", DataTypeId::kString, {4, 3},
                   {"A", "T", "", "A", "AT", "G", "C", "G", "T", "G", "", ""});
  Put<float>(root, "variant_quality", DataTypeId::kFloat32, {4}, {10.5f, kMissing, 30, 5});
  Put<int16_t>(root, "variant_DP", DataTypeId::kInt16, {4}, {12, -1, 40, 7});
  Put<float>(root, "variant_AF", DataTypeId::kFloat32, {4, 2},
             {0.5f, kFill, 0.1f, 0.2f, 0.25f, 0.75f, kFill, kFill});
  Put<std::string>(root, "filter_id", DataTypeId::kString, {2}, {"PASS", "q10"});
  // Booleans as bytes: std::vector<bool> has no data() to write from.
  Put<uint8_t>(root, "variant_filter", DataTypeId::kBool, {4, 2}, {1, 0, 0, 1, 0, 0, 0, 1});
  Put<uint8_t>(root, "variant_DB", DataTypeId::kBool, {4}, {1, 0, 0, 1});
  Put<int16_t>(root, "call_DP", DataTypeId::kInt16, {4, 3},
               {5, 15, 25, 30, -1, 10, 1, 2, 3, 40, 50, -1});
  Put<int8_t>(root, "call_genotype", DataTypeId::kInt8, {4, 3, 2},
              {0, 1, 1, 1, -1, -1,  //
               0, 0, 0, 2, 1, -2,   //
               0, 0, 0, 1, odd_allele, 2,  //
               0, 0, 0, 0, -1, -1});
  return *g;
}

struct Outcome {
  std::vector<uint8_t> variants, samples;
  std::string error;
};

Outcome Filter(const std::string& expression, bool exclude = false,
            std::vector<int64_t> columns = {0, 1, 2}, int8_t odd_allele = 2) {
  auto d = VczDataset::Open(Dataset(odd_allele));
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  Result<VariantFilter> f = VariantFilter::Compile(**d, expression, exclude, columns);
  if (!f.ok()) return {{}, {}, f.status().ToString()};
  std::vector<FieldBlock> blocks;
  for (const std::string& name : f->arrays()) {
    auto array = (*d)->OpenArray(name);
    EXPECT_TRUE(array.ok());
    auto block = FieldBlock::Read(**array, 0, 4);
    EXPECT_TRUE(block.ok()) << block.status().ToString();
    blocks.push_back(std::move(*block));
  }
  std::vector<const FieldBlock*> inputs;
  for (const FieldBlock& b : blocks) inputs.push_back(&b);
  Result<FilterOutcome> o = f->Evaluate(inputs, 4);
  if (!o.ok()) return {{}, {}, o.status().ToString()};
  EXPECT_EQ(f->sample_scope(), !o->samples.empty()) << expression;
  return {o->variants, o->samples, ""};
}

using V = std::vector<uint8_t>;

TEST(VariantFilterTest, NumbersAndMissingValues) {
  EXPECT_EQ(Filter("INFO/DP>10").variants, (V{1, 0, 1, 0}));
  // A missing value fails a comparison, and -e inverts that.
  EXPECT_EQ(Filter("INFO/DP>10", true).variants, (V{0, 1, 0, 1}));
  EXPECT_EQ(Filter("INFO/DP=12").variants, (V{1, 0, 0, 0}));
  // One missing value is unequal to anything.
  EXPECT_EQ(Filter("INFO/DP!=12").variants, (V{0, 1, 1, 1}));
  EXPECT_EQ(Filter("QUAL>=10.5").variants, (V{1, 0, 1, 0}));
  EXPECT_EQ(Filter("QUAL<1e3").variants, (V{1, 0, 1, 1}));
  EXPECT_EQ(Filter("-POS<-25").variants, (V{0, 0, 1, 1}));
  EXPECT_EQ(Filter("INFO/DP*2>=24").variants, (V{1, 0, 1, 0}));
  EXPECT_EQ(Filter("INFO/DP/5>2.3").variants, (V{1, 0, 1, 0}));
  EXPECT_EQ(Filter("INFO/DP-QUAL>2").variants, (V{0, 0, 1, 0}));
  EXPECT_EQ(Filter("QUAL*3=31.5").variants, (V{1, 0, 0, 0}));
}

TEST(VariantFilterTest, PerAlleleValuesPassWhenAnyDoesAndPaddingNeverMatches) {
  // A float32 field meets a literal in float32: 0.1 is the stored 0.1.
  EXPECT_EQ(Filter("INFO/AF=0.1").variants, (V{0, 1, 0, 0}));
  EXPECT_EQ(Filter("INFO/AF>0.3").variants, (V{1, 0, 1, 0}));
  // Same-allele test for & over one width.
  EXPECT_EQ(Filter("INFO/AF>0.15 & INFO/AF<0.3").variants, (V{0, 1, 1, 0}));
  EXPECT_EQ(Filter("INFO/AF>0.4 & INFO/AF<0.6").variants, (V{1, 0, 0, 0}));
  // -e inverts each element before "any": the padding passes.
  EXPECT_EQ(Filter("INFO/AF>0.3", true).variants, (V{1, 1, 1, 1}));
}

TEST(VariantFilterTest, FlagsTypesFiltersAndContigs) {
  EXPECT_EQ(Filter("DB").variants, (V{1, 0, 0, 1}));
  EXPECT_EQ(Filter("INFO/DB=0").variants, (V{0, 1, 1, 0}));
  EXPECT_EQ(Filter("TYPE=\"snp\"").variants, (V{1, 0, 1, 0}));
  EXPECT_EQ(Filter("TYPE~\"snp\"").variants, (V{1, 1, 1, 0}));
  EXPECT_EQ(Filter("TYPE!=\"snp\"").variants, (V{0, 1, 0, 1}));
  EXPECT_EQ(Filter("TYPE=\"ref\"").variants, (V{0, 0, 0, 1}));
  EXPECT_EQ(Filter("FILTER=\"PASS\"").variants, (V{1, 0, 0, 0}));
  EXPECT_EQ(Filter("FILTER~\"q10\"").variants, (V{0, 1, 0, 1}));
  EXPECT_EQ(Filter("FILTER=\".\"").variants, (V{0, 0, 1, 0}));
  EXPECT_EQ(Filter("FILTER!=\".\"").variants, (V{1, 1, 0, 1}));
  EXPECT_EQ(Filter("CHROM=\"chr2\"").variants, (V{0, 0, 1, 1}));
  EXPECT_EQ(Filter("CHROM!=\"chrZ\"").variants, (V{1, 1, 1, 1}));
  EXPECT_EQ(Filter("CHROM=\"chr2\" & QUAL>10").variants, (V{0, 0, 1, 0}));
}

TEST(VariantFilterTest, FormatFieldsDecidePerSample) {
  Outcome o = Filter("FMT/DP>20");
  EXPECT_EQ(o.variants, (V{1, 1, 0, 1}));
  EXPECT_EQ(o.samples, (V{0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0}));
  // Only the selected samples, in the order selected.
  o = Filter("FMT/DP>20", false, {2, 0});
  EXPECT_EQ(o.variants, (V{1, 1, 0, 1}));
  EXPECT_EQ(o.samples, (V{1, 0, 0, 1, 0, 0, 0, 1}));
  // & with a per-variant side: its failure fails every sample.
  o = Filter("FMT/DP>20 & INFO/DP>10");
  EXPECT_EQ(o.variants, (V{1, 0, 0, 0}));
  EXPECT_EQ(o.samples, (V{0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // | with a per-variant side that holds: every sample (vcztools' rule).
  o = Filter("FMT/DP>20 | INFO/DP>10");
  EXPECT_EQ(o.variants, (V{1, 1, 1, 1}));
  EXPECT_EQ(o.samples, (V{1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0}));
}

TEST(VariantFilterTest, DoubleOperatorsCombineAcrossSamplesAsBcftools) {
  // &&: each side in some sample; the samples either holds in.
  Outcome o = Filter("FMT/DP>20 && FMT/DP<10");
  EXPECT_EQ(o.variants, (V{1, 0, 0, 0}));
  EXPECT_EQ(o.samples, (V{1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Filter("FMT/DP>20 & FMT/DP<10").variants, (V{0, 0, 0, 0}));
  // ||: every sample of a variant either side passes...
  o = Filter("FMT/DP>20 || FMT/DP<2");
  EXPECT_EQ(o.variants, (V{1, 1, 1, 1}));
  EXPECT_EQ(o.samples, (V{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
  // ... unless the side that failed is per-variant: then the per-sample
  // side's samples.
  o = Filter("INFO/DP>10 || FMT/DP>20");
  EXPECT_EQ(o.samples, (V{1, 1, 1, 1, 0, 0, 1, 1, 1, 1, 1, 0}));
  EXPECT_EQ(Filter("QUAL>5 && INFO/DP<20").variants, (V{1, 0, 0, 0}));
}

TEST(VariantFilterTest, ComputedFieldsComeFromTheSelectedGenotypes) {
  EXPECT_EQ(Filter("AN=5").variants, (V{0, 1, 0, 0}));
  EXPECT_EQ(Filter("AC>1").variants, (V{1, 0, 1, 0}));
  EXPECT_EQ(Filter("AC=1").variants, (V{0, 1, 1, 0}));
  EXPECT_EQ(Filter("N_ALT=2").variants, (V{0, 1, 1, 0}));
  EXPECT_EQ(Filter("NS<3").variants, (V{1, 0, 0, 1}));
  EXPECT_EQ(Filter("N_MISSING=1").variants, (V{1, 0, 0, 1}));
  EXPECT_EQ(Filter("F_MISSING>0.3").variants, (V{1, 0, 0, 1}));
  // Samples A and B only: every variant has four called alleles.
  EXPECT_EQ(Filter("AN=4", false, {0, 1}).variants, (V{1, 1, 1, 1}));
  EXPECT_EQ(Filter("N_MISSING=0", false, {0, 1}).variants, (V{1, 1, 1, 1}));
  // A genotype beyond the variant's alleles is corrupt data, named.
  Outcome o = Filter("AC>1", false, {0, 1, 2}, /*odd_allele=*/7);
  EXPECT_NE(o.error.find("call_genotype holds allele 7 for a variant with 3 alleles"),
            std::string::npos)
      << o.error;
}

TEST(VariantFilterTest, RefusalsNameWhatIsWrong) {
  EXPECT_NE(Filter("DP>1").error.find("ambiguous filtering expression: \"DP\""),
            std::string::npos);
  EXPECT_NE(Filter("XYZ>1").error.find("the tag \"XYZ\" is not defined"), std::string::npos);
  EXPECT_NE(Filter("MAF>0.1").error.find("Calculated variables"), std::string::npos);
  EXPECT_NE(Filter("FMT/DP>INFO/AF").error.find("cannot compare fields with incompatible"),
            std::string::npos);
  EXPECT_NE(Filter("FILTER=\"q20\"").error.find("The filter \"q20\" is not present in header"),
            std::string::npos);
  EXPECT_NE(Filter("INFO/DP").error.find("not a decision"), std::string::npos);
  EXPECT_NE(Filter("INFO/DP>\"x\"").error.find("cannot compare a string with a number"),
            std::string::npos);
}

}  // namespace
}  // namespace turbozarr::vcz::internal
