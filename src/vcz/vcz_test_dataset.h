// A small VCZ dataset built in memory, for the vcz layer's tests.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "turbozarr/group.h"
#include "turbozarr/store.h"

namespace turbozarr::vcz::testing {

using json = nlohmann::json;

inline const json kBytes = json::array({{{"name", "bytes"}, {"configuration", {{"endian", "little"}}}}});

inline ArrayMetadata Metadata(DataType dtype, std::vector<int64_t> shape, std::vector<int64_t> chunks) {
  ArrayMetadata m;
  m.zarr_format = 3;
  m.shape = std::move(shape);
  m.chunk_shape = std::move(chunks);
  m.dtype = dtype;
  m.fill_value = DefaultFillValue(m.dtype);
  m.codecs = dtype.is_variable_length() ? json::array({{{"name", "vlen-utf8"}}}) : kBytes;
  return m;
}

template <typename T>
void Put(Group& g, const std::string& name, DataTypeId id, std::vector<int64_t> shape,
         std::vector<T> values) {
  std::vector<int64_t> chunks = shape;
  chunks[0] = std::max<int64_t>(1, std::min<int64_t>(shape[0], 4));
  auto a = g.CreateArray(name, Metadata(DataType(id), shape, chunks));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE((*a)->Write(Selection::All(shape), values.data()).ok()) << name;
}

// A dataset of 10 variants over contigs chr1 (6), chr2 (0) and chr3 (4), in
// chunks of 4 variants, with 3 samples, and its region index.
inline std::shared_ptr<Group> SmallDataset(bool with_lengths = true, bool with_index = true,
                                    int64_t chr3_length = 3000) {
  auto g = Group::Create(MakeMemoryStore(), "", {});
  EXPECT_TRUE(g.ok());
  Group& root = **g;
  Put<int32_t>(root, "variant_position", DataTypeId::kInt32, {10},
               {5, 9, 9, 20, 31, 40, 2, 3, 50, 60});
  Put<int8_t>(root, "variant_contig", DataTypeId::kInt8, {10}, {0, 0, 0, 0, 0, 0, 2, 2, 2, 2});
  // Lengths: the record at 9 (the second) spans 9-13, the one at 40 spans 40-45.
  Put<int32_t>(root, "variant_length", DataTypeId::kInt32, {10}, {1, 5, 1, 1, 1, 6, 1, 1, 1, 1});
  Put<std::string>(root, "contig_id", DataTypeId::kString, {3}, {"chr1", "chr2", "chr3"});
  Put<std::string>(root, "sample_id", DataTypeId::kString, {3}, {"NA1", "NA2", "NA3"});
  if (with_lengths) {
    Put<int64_t>(root, "contig_length", DataTypeId::kInt64, {3}, {1000, 2000, chr3_length});
  }
  if (with_index) {
    // chunk, contig, start, end, max_end, records: chunk 1 holds the end of
    // chr1 and the start of chr3, so it has a row for each.
    Put<int32_t>(root, "region_index", DataTypeId::kInt32, {4, 6},
                 {0, 0, 5, 20, 20, 4,  //
                  1, 0, 31, 40, 45, 2,  //
                  1, 2, 2, 3, 3, 2,     //
                  2, 2, 50, 60, 60, 2});
  }
  return *g;
}

}  // namespace turbozarr::vcz::testing
