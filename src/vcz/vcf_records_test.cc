#include "vcz/vcf_records.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "vcz/vcz_test_dataset.h"

namespace turbozarr::vcz {
namespace {

using testing::Put;

std::string Float(float value) {
  std::string out;
  internal::VcfRecordEncoder::AppendFloat(value, out);
  return out;
}

TEST(VcfRecordsTest, FloatsAsVcztoolsWritesThem) {
  EXPECT_EQ(Float(0.687f), "0.687");
  EXPECT_EQ(Float(54.5f), "54.5");
  EXPECT_EQ(Float(3.0f), "3");
  EXPECT_EQ(Float(0.0005f), "0.001");  // rounded to thousandths
  EXPECT_EQ(Float(0.0004f), "0");
  EXPECT_EQ(Float(-0.0004f), "-0");  // vcztools keeps the sign
  EXPECT_EQ(Float(-4.476f), "-4.476");
  EXPECT_EQ(Float(1.05f), "1.05");
  EXPECT_EQ(Float(3e9f), "3000000000.000");  // beyond int32: printf's %.3f
  EXPECT_EQ(Float(std::numeric_limits<float>::infinity()), "inf");
}

// Two variants, two samples; no filters, IDs or qualities stored.
std::shared_ptr<Group> Minimal() {
  auto g = Group::Create(MakeMemoryStore(), "", {});
  EXPECT_TRUE(g.ok());
  Group& root = **g;
  Put<int32_t>(root, "variant_position", DataTypeId::kInt32, {2}, {5, 7});
  Put<int8_t>(root, "variant_contig", DataTypeId::kInt8, {2}, {0, 0});
  Put<std::string>(root, "contig_id", DataTypeId::kString, {1}, {"c1"});
  Put<std::string>(root, "sample_id", DataTypeId::kString, {2}, {"A", "B"});
  Put<std::string>(root, "variant_allele", DataTypeId::kString, {2, 2}, {"A", "T", "G", ""});
  Put<int8_t>(root, "call_genotype", DataTypeId::kInt8, {2, 2, 2}, {0, 1, 1, 1, -1, -1, -1, -2});
  Put<int8_t>(root, "call_DP", DataTypeId::kInt8, {2, 2}, {3, -1, -1, -1});
  Put<uint8_t>(root, "variant_DB", DataTypeId::kBool, {2}, {1, 0});
  return *g;
}

std::string View(const ViewOptions& options) {
  auto d = VczDataset::Open(Minimal());
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  std::ostringstream out;
  Status s = WriteVcf(**d, options, out);
  return s.ok() ? out.str() : "error: " + s.ToString();
}

TEST(VcfRecordsTest, DefaultsForWhatTheDatasetDoesNotStore) {
  EXPECT_EQ(View({}),
            "##fileformat=VCFv4.3\n"
            "##INFO=<ID=DB,Number=0,Type=Flag,Description=\"dbSNP membership\">\n"
            "##FILTER=<ID=PASS,Description=\"\">\n"
            "##FORMAT=<ID=GT,Number=1,Type=String,Description=\"Genotype\">\n"
            "##FORMAT=<ID=DP,Number=1,Type=Integer,Description=\"Read depth\">\n"
            "##contig=<ID=c1>\n"
            "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tA\tB\n"
            "c1\t5\t.\tA\tT\t.\tPASS\tDB\tGT:DP\t0/1:3\t1/1:.\n"
            "c1\t7\t.\tG\t.\t.\tPASS\t.\t.\t.\t.\n");
}

TEST(VcfRecordsTest, ASampleSubsetRecomputesAcAndAnAndDropsWhatItLacks) {
  ViewOptions o;
  o.samples = "B";
  o.no_header = true;
  // B: 1/1 and a missing DP at the first variant (so DP leaves FORMAT),
  // nothing called at the second (AN=0, and no ALT for an AC).
  EXPECT_EQ(View(o),
            "c1\t5\t.\tA\tT\t.\tPASS\tAC=2;AN=2;DB\tGT\t1/1\n"
            "c1\t7\t.\tG\t.\t.\tPASS\tAN=0\t.\t.\n");
  o.no_update = true;
  EXPECT_EQ(View(o),
            "c1\t5\t.\tA\tT\t.\tPASS\tDB\tGT\t1/1\n"
            "c1\t7\t.\tG\t.\t.\tPASS\t.\t.\t.\n");
}

TEST(VcfRecordsTest, DroppedGenotypesLeaveNoSampleColumns) {
  ViewOptions o;
  o.drop_genotypes = true;
  o.header_only = true;
  const std::string header = View(o);
  EXPECT_EQ(header.substr(header.rfind("#CHROM")),
            "#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\n");
  EXPECT_EQ(header.find("##FORMAT"), std::string::npos);
  o.header_only = false;
  o.no_header = true;
  EXPECT_EQ(View(o), "c1\t5\t.\tA\tT\t.\tPASS\tDB\nc1\t7\t.\tG\t.\t.\tPASS\t.\n");
}

}  // namespace
}  // namespace turbozarr::vcz
