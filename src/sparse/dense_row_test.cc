// DenseRow and its drain kernels against the definition: the non-zero
// entries of a dense row in column order, at every width around a kernel's
// step, every density, every output type; and the patches for values the
// narrow row cannot hold.
#include "sparse/dense_row.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace turbozarr::sparse::internal {
namespace {

template <typename Stored, typename Out>
void CheckDrain(DrainKernel kernel, int64_t columns, double density, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const int64_t padded = (columns * static_cast<int64_t>(sizeof(Stored)) + 63) / 64 * 64 /
                         static_cast<int64_t>(sizeof(Stored));
  std::vector<Stored> dense(static_cast<size_t>(padded), 0);
  std::vector<int32_t> want_indices;
  std::vector<Out> want_values;
  for (int64_t c = 0; c < columns; ++c) {
    if (u(rng) >= density) continue;
    // Every value the type holds shows up: 1, the top, and between.
    const uint32_t top = (uint32_t{1} << (8 * sizeof(Stored))) - 1;
    const uint32_t pick = rng() % 3;
    const Stored v = static_cast<Stored>(pick == 0 ? 1 : pick == 1 ? top : 1 + rng() % top);
    dense[static_cast<size_t>(c)] = v;
    want_indices.push_back(static_cast<int32_t>(c));
    want_values.push_back(static_cast<Out>(v));
  }
  // Room for every column plus a guard that must stay untouched.
  std::vector<int32_t> indices(static_cast<size_t>(columns) + 16, -7);
  std::vector<Out> values(static_cast<size_t>(columns) + 16, static_cast<Out>(99));
  const int64_t n =
      DrainDenseRowWith<Stored, Out>(kernel, dense.data(), columns, indices.data(), values.data());
  const std::string where = std::string(DrainKernelName(kernel)) + " columns " +
                            std::to_string(columns) + " density " + std::to_string(density);
  ASSERT_EQ(n, static_cast<int64_t>(want_indices.size())) << where;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(indices[static_cast<size_t>(i)], want_indices[static_cast<size_t>(i)]) << where;
    ASSERT_EQ(values[static_cast<size_t>(i)], want_values[static_cast<size_t>(i)]) << where;
  }
  EXPECT_EQ(indices[static_cast<size_t>(n)], -7) << where << ": wrote past the row";
  EXPECT_EQ(values[static_cast<size_t>(n)], static_cast<Out>(99)) << where;
  for (Stored v : dense) ASSERT_EQ(v, Stored{0}) << where << ": the dense row was not emptied";
}

template <typename Stored, typename Out>
void CheckEveryShape() {
  for (DrainKernel kernel : AvailableDrainKernels()) {
    unsigned seed = 1;
    for (int64_t columns : {1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 127, 128, 129, 1000, 38000}) {
      for (double density : {0.0, 0.01, 0.09, 0.3, 0.9, 1.0}) {
        CheckDrain<Stored, Out>(kernel, columns, density, seed++);
      }
    }
  }
}

TEST(DenseRow, EveryKernelDrainsByteRowsAsTheDefinition) {
  CheckEveryShape<uint8_t, uint32_t>();
  CheckEveryShape<uint8_t, int32_t>();
  CheckEveryShape<uint8_t, float>();
  CheckEveryShape<uint8_t, double>();
  CheckEveryShape<uint8_t, uint64_t>();
  CheckEveryShape<uint8_t, int64_t>();
  CheckEveryShape<uint8_t, uint16_t>();
  CheckEveryShape<uint8_t, uint8_t>();
  CheckEveryShape<uint8_t, int8_t>();
}

TEST(DenseRow, EveryKernelDrainsTwoByteRowsAsTheDefinition) {
  CheckEveryShape<uint16_t, uint32_t>();
  CheckEveryShape<uint16_t, float>();
  CheckEveryShape<uint16_t, double>();
  CheckEveryShape<uint16_t, int64_t>();
  CheckEveryShape<uint16_t, uint16_t>();
  CheckEveryShape<uint16_t, int16_t>();
}

TEST(DenseRow, ZerosAndWideValuesComeBackThroughThePatches) {
  // DenseRow drains with the fastest kernel; the kernels agree above.
  DenseRow<uint8_t, uint32_t> row(200);
  row.Set(150, 3);
  row.Set(7, 0);           // an explicit zero
  row.Patch(64, 70000);    // beyond uint8
  row.Set(199, 255);
  row.Patch(0, 256);
  std::vector<int32_t> indices(200);
  std::vector<uint32_t> values(200);
  ASSERT_EQ(row.Drain(indices.data(), values.data()), 5);
  EXPECT_EQ(std::vector<int32_t>(indices.begin(), indices.begin() + 5),
            (std::vector<int32_t>{0, 7, 64, 150, 199}));
  EXPECT_EQ(std::vector<uint32_t>(values.begin(), values.begin() + 5),
            (std::vector<uint32_t>{256, 0, 70000, 3, 255}));
  // The row is empty again, patches included.
  row.Set(5, 1);
  ASSERT_EQ(row.Drain(indices.data(), values.data()), 1);
  EXPECT_EQ(indices[0], 5);
  EXPECT_EQ(values[0], 1u);
}

}  // namespace
}  // namespace turbozarr::sparse::internal
