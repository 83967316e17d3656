#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ome/downsample.h"
#include "turbozarr/array.h"
#include "turbozarr/ome.h"
#include "turbozarr/store.h"
#include "testing/int32_array_fixtures.h"

namespace turbozarr::ome {
namespace {

using nlohmann::json;

using fixtures::kLittle;
using fixtures::Sharded;

// uint16 level-0 metadata: plain chunks, or shards of `inner` chunks.
ArrayMetadata Level0(std::vector<int64_t> shape, std::vector<int64_t> chunks,
                     std::optional<std::vector<int64_t>> inner = std::nullopt) {
  ArrayMetadata m = fixtures::Int32Metadata(
      std::move(shape), std::move(chunks),
      inner ? Sharded(*inner, json::array({kLittle}), "end") : json::array({kLittle}));
  m.dtype = DataType(DataTypeId::kUInt16);
  m.fill_value = DefaultFillValue(m.dtype);
  return m;
}

std::vector<uint16_t> Random(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint16_t> v(n);
  for (uint16_t& x : v) x = static_cast<uint16_t>(rng() % 4096);
  return v;
}

std::vector<uint16_t> ReadAll(const Array& a) {
  int64_t n = 1;
  for (int64_t s : a.shape()) n *= s;
  std::vector<uint16_t> v(static_cast<size_t>(n));
  EXPECT_TRUE(a.Read(Selection::All(a.shape()), v).ok());
  return v;
}

std::vector<uint16_t> Whole(const std::vector<uint16_t>& in, const std::vector<int64_t>& shape,
                            const std::vector<int64_t>& f, DownsampleMethod method) {
  std::vector<int64_t> o = DownsampledShape(shape, f);
  std::vector<uint16_t> out(static_cast<size_t>(o[0] * o[1] * o[2]));
  EXPECT_TRUE(internal::Downsample(DataType(DataTypeId::kUInt16), in.data(), shape, f, method,
                                   out.data()).ok());
  return out;
}

struct Case {
  std::vector<int64_t> shape, chunks;
  std::optional<std::vector<int64_t>> inner;
};

TEST(PyramidTest, LevelsTileByTileEqualTheWholeImageDownsampled) {
  const std::vector<int64_t> f = {1, 2, 2};
  for (const Case& c : {Case{{3, 67, 45}, {1, 16, 16}, std::nullopt},
                        Case{{2, 128, 90}, {2, 32, 32}, std::vector<int64_t>{1, 8, 8}}}) {
    for (DownsampleMethod method : {DownsampleMethod::kMean, DownsampleMethod::kNearest,
                                    DownsampleMethod::kMode}) {
      for (bool from_memory : {false, true}) {
        auto store = MakeMemoryStore();
        auto base = Array::Create(store, "0", Level0(c.shape, c.chunks, c.inner));
        ASSERT_TRUE(base.ok()) << base.status().ToString();
        const std::vector<uint16_t> pixels =
            Random(static_cast<size_t>(c.shape[0] * c.shape[1] * c.shape[2]), 3);
        ASSERT_TRUE((*base)->Write(Selection::All(c.shape), pixels.data()).ok());
        const std::vector<int64_t> shape1 = DownsampledShape(c.shape, f);
        auto level1 = Array::Create(store, "1", LevelMetadata((*base)->metadata(), shape1));
        ASSERT_TRUE(level1.ok()) << level1.status().ToString();
        DownsampleOptions options;
        options.threads = 2;
        options.memory_budget_bytes = 1;  // one tile at a time still works
        if (from_memory) options.source_pixels = pixels.data();
        int64_t last_done = 0, total = 0;
        options.progress = [&](int64_t done, int64_t of) { last_done = done; total = of; };
        Status s = DownsampleInto(**base, **level1, f, method, options);
        ASSERT_TRUE(s.ok()) << s.ToString();
        EXPECT_EQ(ReadAll(**level1), Whole(pixels, c.shape, f, method));
        EXPECT_GT(total, 1);
        EXPECT_EQ(last_done, total);
      }
    }
  }
}

TEST(PyramidTest, LevelMetadataCapsChunksAndKeepsShardsWhole) {
  ArrayMetadata plain = LevelMetadata(Level0({1, 64, 1024, 1024}, {1, 1, 256, 256}), {1, 64, 100, 130});
  EXPECT_EQ(plain.chunk_shape, (std::vector<int64_t>{1, 1, 100, 130}));
  EXPECT_EQ(plain.shape, (std::vector<int64_t>{1, 64, 100, 130}));
  ArrayMetadata sharded = LevelMetadata(
      Level0({1, 64, 1024, 1024}, {1, 4, 1024, 1024}, std::vector<int64_t>{1, 1, 128, 128}),
      {1, 64, 100, 130});
  EXPECT_EQ(sharded.chunk_shape, (std::vector<int64_t>{1, 4, 128, 256}));
  EXPECT_EQ(sharded.InnerChunkShape(), (std::vector<int64_t>{1, 1, 128, 128}));
}

TEST(PyramidTest, ARegionRebuildsOnlyTheChunksItTouches) {
  const std::vector<int64_t> shape = {1, 64, 64}, f = {1, 2, 2};
  auto store = MakeMemoryStore();
  auto base = Array::Create(store, "0", Level0(shape, {1, 16, 16}));
  ASSERT_TRUE(base.ok());
  std::vector<uint16_t> pixels = Random(64 * 64, 5);
  ASSERT_TRUE((*base)->Write(Selection::All(shape), pixels.data()).ok());
  auto level1 = Array::Create(store, "1", LevelMetadata((*base)->metadata(), {1, 32, 32}));
  ASSERT_TRUE(level1.ok());
  ASSERT_TRUE(DownsampleInto(**base, **level1, f, DownsampleMethod::kMean).ok());

  // Change rows 10..13, columns 40..50 of level 0.
  std::vector<uint16_t> patch(4 * 10, 60000);
  ASSERT_TRUE((*base)->Write(Selection({{0, 1, 1}, {10, 14, 1}, {40, 50, 1}}), patch.data()).ok());
  for (int64_t y = 10; y < 14; ++y) {
    for (int64_t x = 40; x < 50; ++x) pixels[static_cast<size_t>(y * 64 + x)] = 60000;
  }
  // Level 1 chunk (0, 0, 0) is poisoned: a rebuild of the region leaves it alone.
  std::vector<uint16_t> poison(16 * 16, 1);
  ASSERT_TRUE((*level1)->Write(Selection({{0, 1, 1}, {0, 16, 1}, {0, 16, 1}}), poison.data()).ok());
  DownsampleOptions options;
  options.region = std::make_pair(std::vector<int64_t>{0, 10, 40}, std::vector<int64_t>{1, 14, 50});
  int64_t tiles = 0;
  options.progress = [&](int64_t, int64_t of) { tiles = of; };
  ASSERT_TRUE(DownsampleInto(**base, **level1, f, DownsampleMethod::kMean, options).ok());
  EXPECT_EQ(tiles, 1);  // level 1 rows 5..7, columns 20..25: chunk (0, 0, 1)
  std::vector<uint16_t> want = Whole(pixels, shape, f, DownsampleMethod::kMean);
  std::vector<uint16_t> got = ReadAll(**level1);
  for (int64_t y = 0; y < 32; ++y) {
    for (int64_t x = 0; x < 32; ++x) {
      const size_t i = static_cast<size_t>(y * 32 + x);
      if (y < 16 && x < 16) {
        EXPECT_EQ(got[i], 1) << y << "," << x;
      } else {
        EXPECT_EQ(got[i], want[i]) << y << "," << x;
      }
    }
  }
}

TEST(PyramidTest, MismatchedLevelsAreRefusedNamingTheArrays) {
  auto store = MakeMemoryStore();
  auto base = Array::Create(store, "0", Level0({1, 10, 10}, {1, 5, 5}));
  auto wrong = Array::Create(store, "1", Level0({1, 4, 5}, {1, 5, 5}));
  ASSERT_TRUE(base.ok() && wrong.ok());
  Status s = DownsampleInto(**base, **wrong, {1, 2, 2}, DownsampleMethod::kMean);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("has shape (1, 4, 5)"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("(1, 5, 5)"), std::string::npos) << s.ToString();
}

}  // namespace
}  // namespace turbozarr::ome

namespace turbozarr::ome {
namespace {

TEST(PyramidTest, BuildPyramidPlacesEachLevel) {
  auto store = MakeMemoryStore();
  auto base = Array::Create(store, "img/0", Level0({2, 40, 30}, {1, 16, 16}));
  ASSERT_TRUE(base.ok());
  const std::vector<uint16_t> pixels = Random(2 * 40 * 30, 9);
  ASSERT_TRUE((*base)->Write(Selection::All({2, 40, 30}), pixels.data()).ok());
  PyramidOptions options;
  options.factors = {{1, 2, 2}, {2, 2, 2}};
  options.axes = {{"z", "space", "micrometer"}, {"y", "space", "micrometer"},
                  {"x", "space", "micrometer"}};
  options.scale = {3.0, 0.5, 0.5};
  for (DownsampleMethod method : {DownsampleMethod::kMean, DownsampleMethod::kNearest}) {
    options.method = method;
    options.overwrite = true;
    auto m = BuildPyramid(**base, "img", options, pixels.data());
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    ASSERT_EQ(m->levels.size(), 3u);
    EXPECT_EQ(m->levels[0], (Level{"0", {3.0, 0.5, 0.5}, std::nullopt}));
    EXPECT_EQ(m->levels[1].scale, (std::vector<double>{3.0, 1.0, 1.0}));
    EXPECT_EQ(m->levels[2].scale, (std::vector<double>{6.0, 2.0, 2.0}));
    if (method == DownsampleMethod::kMean) {  // the centre of each window
      EXPECT_EQ(*m->levels[1].translation, (std::vector<double>{0.0, 0.25, 0.25}));
      EXPECT_EQ(*m->levels[2].translation, (std::vector<double>{1.5, 0.75, 0.75}));
    } else {  // the pixel taken: the later of each pair
      EXPECT_EQ(*m->levels[1].translation, (std::vector<double>{0.0, 0.5, 0.5}));
      EXPECT_EQ(*m->levels[2].translation, (std::vector<double>{3.0, 1.5, 1.5}));
    }
    EXPECT_EQ(m->type, DownsampleMethodName(method));
    auto level2 = Array::Open(store, "img/2");
    ASSERT_TRUE(level2.ok());
    EXPECT_EQ((*level2)->shape(), (std::vector<int64_t>{1, 10, 7}));
    const std::vector<uint16_t> want =
        Whole(Whole(pixels, {2, 40, 30}, {1, 2, 2}, method), {2, 20, 15}, {2, 2, 2}, method);
    EXPECT_EQ(ReadAll(**level2), want);
  }
  options.factors = {{2, 2}};
  EXPECT_EQ(BuildPyramid(**base, "img", options).status().code(), StatusCode::kInvalidArgument);
}

TEST(PyramidTest, FactorsBetweenLevelsInvertDownsampledShape) {
  EXPECT_EQ(FactorsBetween({1, 64, 1024, 1023}, {1, 64, 512, 511}),
            (std::vector<int64_t>{1, 1, 2, 2}));
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{7, 9, 1},
                                            std::vector<int64_t>{5, 3, 2}}) {
    for (int64_t f : {2, 3, 4}) {
      const std::vector<int64_t> factors(shape.size(), f);
      const std::vector<int64_t> upper = DownsampledShape(shape, factors);
      EXPECT_EQ(DownsampledShape(shape, FactorsBetween(shape, upper)), upper);
    }
  }
  EXPECT_EQ(FactorsBetween({4, 0}, {2, 0}), (std::vector<int64_t>{2, 1}));
}

TEST(PyramidTest, APyramidItCannotBuildIsRefusedBeforeAnyLevelIsMade) {
  EXPECT_TRUE(CheckDownsampleType(DataType(DataTypeId::kUInt16), DownsampleMethod::kMean).ok());
  EXPECT_TRUE(CheckDownsampleType(DataType(DataTypeId::kBool), DownsampleMethod::kMode).ok());
  EXPECT_TRUE(CheckDownsampleType(DataType(DataTypeId::kBool), DownsampleMethod::kNearest).ok());
  Status s = CheckDownsampleType(DataType(DataTypeId::kBool), DownsampleMethod::kLinear);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("bool pixels take nearest or mode"), std::string::npos)
      << s.ToString();
  EXPECT_FALSE(CheckDownsampleType(DataType(DataTypeId::kComplex64), DownsampleMethod::kNearest)
                   .ok());

  auto store = MakeMemoryStore();
  ArrayMetadata mask = Level0({1, 8, 8}, {1, 4, 4});
  mask.dtype = DataType(DataTypeId::kBool);
  mask.fill_value = DefaultFillValue(mask.dtype);
  auto base = Array::Create(store, "mask/0", mask);
  ASSERT_TRUE(base.ok());
  PyramidOptions options;
  options.factors = {{1, 2, 2}};
  options.axes = {{"z", "space", ""}, {"y", "space", ""}, {"x", "space", ""}};
  options.scale = {1.0, 1.0, 1.0};
  options.method = DownsampleMethod::kMean;
  auto m = BuildPyramid(**base, "mask", options);
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(m.status().message().find("cannot downsample bool pixels by mean"), std::string::npos)
      << m.status().ToString();
  EXPECT_FALSE(Array::Open(store, "mask/1").ok());  // no level was made
}

}  // namespace
}  // namespace turbozarr::ome
