// The tile codec alone: rows encoded and decoded back in memory, every
// stored type, gene subsets, sorting, and the rows and bytes it must refuse.
#include "sparse/tile_codec.h"
#include "sparse/value_levels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <vector>

namespace turbozarr::sparse::internal {
namespace {

// A CSR block with sorted genes per row, values from `value`.
template <typename V>
struct Csr {
  std::vector<int64_t> indptr{0};
  std::vector<int32_t> indices;
  std::vector<V> values;
  CsrRows Rows() const {
    CsrRows r;
    r.rows = static_cast<int64_t>(indptr.size()) - 1;
    r.indptr = indptr.data();
    r.indptr_type = DataType(DataTypeId::kInt64);
    r.indices = indices.data();
    r.indices_type = DataType(DataTypeId::kInt32);
    r.values = values.data();
    r.values_type = DataType(*DataTypeIdOf<V>());
    return r;
  }
};

template <typename V, typename F>
Csr<V> RandomCsr(int64_t cells, int64_t genes, double density, unsigned seed, F value) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  Csr<V> m;
  for (int64_t c = 0; c < cells; ++c) {
    if (c % 7 == 3) {  // empty rows
      m.indptr.push_back(m.indptr.back());
      continue;
    }
    for (int32_t g = 0; g < genes; ++g) {
      if (u(rng) < density) {
        m.indices.push_back(g);
        m.values.push_back(value(rng));
      }
    }
    m.indptr.push_back(static_cast<int64_t>(m.indices.size()));
  }
  return m;
}

// Rows as maps gene -> value, the order-free content of a CSR.
template <typename V, typename P>
std::vector<std::map<int32_t, V>> RowMaps(const P* indptr, const int32_t* indices, const V* values,
                                          int64_t rows) {
  std::vector<std::map<int32_t, V>> out(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    for (auto k = indptr[r]; k < indptr[r + 1]; ++k) out[static_cast<size_t>(r)][indices[k]] = values[k];
  }
  return out;
}

template <typename V>
Layout LayoutFor(const Csr<V>& m, int64_t genes, std::vector<int32_t>& order,
                 std::vector<int32_t>& rank, int version = kFormatVersion) {
  Layout layout;
  layout.version = version;
  layout.cells = static_cast<int64_t>(m.indptr.size()) - 1;
  layout.genes = genes;
  layout.counts = DataType(*DataTypeIdOf<V>());
  CountStats stats(genes);
  EXPECT_TRUE(stats.Add(m.Rows(), 0).ok());
  stats.ChooseValueTypes(layout);
  order = GeneOrder(stats.gene_totals());
  rank.assign(order.size(), 0);
  for (size_t r = 0; r < order.size(); ++r) rank[static_cast<size_t>(order[r])] = static_cast<int32_t>(r);
  return layout;
}

struct Decoded {
  std::vector<int32_t> indptr, indices;
  std::vector<std::byte> values;
  int64_t nnz = 0;
};

// Room for a decoded tile of `rows` rows and `nnz` nonzeros of V.
template <typename V>
struct Room {
  Room(int64_t rows, int64_t nnz)
      : indptr(static_cast<size_t>(rows) + 1), indices(static_cast<size_t>(nnz)),
        values(static_cast<size_t>(nnz)) {}
  TileTarget target() {
    return {indptr.data(), indices.data(), values.data(), static_cast<int64_t>(indices.size())};
  }
  std::vector<int32_t> indptr, indices;
  std::vector<V> values;
};

template <typename V>
Decoded Decode(const Layout& layout, const std::vector<int32_t>& order, const TileArrays& arrays,
               int64_t cells, const DecodeOptions& options) {
  Decoded d;
  d.indptr.resize(static_cast<size_t>(cells) + 1);
  d.indices.resize(static_cast<size_t>(arrays.size.nonzeros) + 1);
  d.values.resize((static_cast<size_t>(arrays.size.nonzeros) + 1) * sizeof(V));
  TileTarget target{d.indptr.data(), d.indices.data(), d.values.data(), arrays.size.nonzeros};
  Result<int64_t> n = DecodeTile(layout, order, arrays, cells, target, options, "tile 0");
  EXPECT_TRUE(n.ok()) << n.status().ToString();
  d.nnz = n.ok() ? *n : -1;
  return d;
}

TEST(TileCodec, WholeCountsRoundTripThroughANarrowTypeAndExceptions) {
  auto value = [](std::mt19937& rng) -> int32_t {
    const uint32_t x = rng() % 1000;
    if (x == 0) return 70000 + static_cast<int32_t>(rng() % 100000);  // beyond uint16
    if (x < 10) return 300 + static_cast<int32_t>(rng() % 1000);      // beyond uint8
    return 1 + static_cast<int32_t>(rng() % 3);
  };
  const Csr<int32_t> m = RandomCsr<int32_t>(500, 300, 0.1, 1, value);
  std::vector<int32_t> order, rank;
  for (int version : {1, 2})
  for (int threads : {1, 3}) {
    SCOPED_TRACE("version " + std::to_string(version));
    Layout layout = LayoutFor(m, 300, order, rank, version);
    EXPECT_EQ(layout.stored_values.id(), DataTypeId::kUInt8);
    TileArrays arrays;
    ASSERT_TRUE(EncodeTile(layout, rank, m.Rows(), 0, threads, arrays).ok());
    EXPECT_EQ(arrays.size.nonzeros, static_cast<int64_t>(m.values.size()));
    EXPECT_EQ(arrays.size.delta_bytes, 1);  // 300 genes, dense rows: small steps
    const int64_t beyond = std::count_if(m.values.begin(), m.values.end(),
                                         [](int32_t v) { return v > 255; });
    EXPECT_EQ(arrays.size.exceptions, beyond);
    for (bool sorted : {false, true}) {
      DecodeOptions options;
      options.threads = threads;
      options.sorted = sorted;
      Decoded d = Decode<int32_t>(layout, order, arrays, 500, options);
      ASSERT_EQ(d.nnz, arrays.size.nonzeros);
      const auto* values = reinterpret_cast<const int32_t*>(d.values.data());
      EXPECT_EQ(RowMaps(d.indptr.data(), d.indices.data(), values, 500),
                RowMaps(m.indptr.data(), m.indices.data(), m.values.data(), 500));
      if (sorted) {
        // Sorted rows give back the source's arrays exactly.
        EXPECT_TRUE(std::equal(m.indices.begin(), m.indices.end(), d.indices.begin()));
        EXPECT_TRUE(std::equal(m.values.begin(), m.values.end(), values));
      }
    }
  }
}

TEST(TileCodec, StoredOrderIsByDecreasingTotalAndDeltaCoded) {
  // Gene 2 has the most counts, then gene 0, then gene 1.
  Csr<uint16_t> m;
  m.indices = {0, 1, 2, 0, 2};
  m.values = {5, 1, 9, 5, 9};
  m.indptr = {0, 3, 5};
  std::vector<int32_t> order, rank;
  Layout layout = LayoutFor(m, 3, order, rank, 1);
  EXPECT_EQ(order, (std::vector<int32_t>{2, 0, 1}));
  TileArrays arrays;
  ASSERT_TRUE(EncodeTile(layout, rank, m.Rows(), 0, 1, arrays).ok());
  const auto* deltas = reinterpret_cast<const uint8_t*>(arrays.gene_deltas.data());
  EXPECT_EQ(std::vector<uint8_t>(deltas, deltas + 5), (std::vector<uint8_t>{0, 1, 1, 0, 1}));
  const auto* stored = reinterpret_cast<const uint8_t*>(arrays.values.data());
  EXPECT_EQ(std::vector<uint8_t>(stored, stored + 5), (std::vector<uint8_t>{9, 5, 1, 9, 5}));
  // Unsorted decoding hands rows back in storage order, original numbers.
  Decoded d = Decode<uint16_t>(layout, order, arrays, 2, {});
  EXPECT_EQ(std::vector<int32_t>(d.indices.begin(), d.indices.begin() + 5),
            (std::vector<int32_t>{2, 0, 1, 2, 0}));

  // Version 2: positions (rank + 1) 1 2 3 and 1 2, each step in the band
  // of the position it starts from (bit_width: 0 | 1 | 2), band after band;
  // the values as bitmaps of 1s (then 2s, 3s among the rest) and the rest.
  layout.version = 2;
  ASSERT_TRUE(EncodeTile(layout, rank, m.Rows(), 0, 1, arrays).ok());
  EXPECT_EQ(layout.gene_bands(), 3);
  const auto* bands = reinterpret_cast<const uint16_t*>(arrays.gene_bands.data());
  EXPECT_EQ(std::vector<uint16_t>(bands, bands + 6), (std::vector<uint16_t>{1, 1, 1, 1, 1, 0}));
  deltas = reinterpret_cast<const uint8_t*>(arrays.gene_deltas.data());
  EXPECT_EQ(std::vector<uint8_t>(deltas, deltas + 5), (std::vector<uint8_t>{1, 1, 1, 1, 1}));
  EXPECT_EQ(arrays.size.value_levels, (std::array<int64_t, 3>{1, 0, 0}));
  EXPECT_EQ(arrays.value_bitmaps[0].data()[0], 0b100);  // the third value is 1
  EXPECT_EQ(arrays.value_bitmaps[1].data()[0], 0);
  EXPECT_EQ(arrays.size.stored_values(), 4);
  stored = reinterpret_cast<const uint8_t*>(arrays.values.data());
  EXPECT_EQ(std::vector<uint8_t>(stored, stored + 4), (std::vector<uint8_t>{9, 5, 9, 5}));
  d = Decode<uint16_t>(layout, order, arrays, 2, {.sorted = true});
  EXPECT_EQ(std::vector<int32_t>(d.indices.begin(), d.indices.begin() + 5),
            (std::vector<int32_t>{0, 1, 2, 0, 2}));
  const auto* back = reinterpret_cast<const uint16_t*>(d.values.data());
  EXPECT_EQ(std::vector<uint16_t>(back, back + 5), m.values);
}

TEST(TileCodec, FractionalCountsStayFloat32AndDoublesThatNeedItFloat64) {
  for (int version : {1, 2}) {
    SCOPED_TRACE("version " + std::to_string(version));
    auto frac = [](std::mt19937& rng) { return static_cast<float>(rng() % 1000) / 8.0f + 0.125f; };
    const Csr<float> f = RandomCsr<float>(50, 40, 0.3, 2, frac);
    std::vector<int32_t> order, rank;
    Layout layout = LayoutFor(f, 40, order, rank, version);
    EXPECT_EQ(layout.stored_values.id(), DataTypeId::kFloat32);
    TileArrays arrays;
    ASSERT_TRUE(EncodeTile(layout, rank, f.Rows(), 0, 2, arrays).ok());
    EXPECT_EQ(arrays.size.exceptions, 0);
    Decoded d = Decode<float>(layout, order, arrays, 50, {.sorted = true});
    EXPECT_EQ(std::memcmp(d.values.data(), f.values.data(), f.values.size() * 4), 0);

    auto tenth = [](std::mt19937& rng) { return static_cast<double>(rng() % 100) * 0.1 + 0.1; };
    const Csr<double> g = RandomCsr<double>(50, 40, 0.3, 3, tenth);
    layout = LayoutFor(g, 40, order, rank, version);
    EXPECT_EQ(layout.stored_values.id(), DataTypeId::kFloat64);

    // Whole counts held as floats are narrowed like integers, and come back
    // as the same floats.
    auto whole = [](std::mt19937& rng) { return static_cast<float>(1 + rng() % 4); };
    const Csr<float> w = RandomCsr<float>(50, 40, 0.3, 4, whole);
    layout = LayoutFor(w, 40, order, rank, version);
    EXPECT_EQ(layout.stored_values.id(), DataTypeId::kUInt8);
    ASSERT_TRUE(EncodeTile(layout, rank, w.Rows(), 0, 1, arrays).ok());
    d = Decode<float>(layout, order, arrays, 50, {.sorted = true});
    EXPECT_EQ(std::memcmp(d.values.data(), w.values.data(), w.values.size() * 4), 0);
  }
}

TEST(TileCodec, GeneSubsetsKeepTheirColumnsInEveryPart) {
  for (int version : {1, 2}) {
    SCOPED_TRACE("version " + std::to_string(version));
    auto value = [](std::mt19937& rng) -> int64_t { return rng() % 50 == 0 ? 1000 : 1 + rng() % 3; };
    const Csr<int64_t> m = RandomCsr<int64_t>(2000, 100, 0.5, 5, value);
    std::vector<int32_t> order, rank;
    Layout layout = LayoutFor(m, 100, order, rank, version);
    TileArrays arrays;
    ASSERT_TRUE(EncodeTile(layout, rank, m.Rows(), 0, 2, arrays).ok());
    // Genes 90, 3 and 40 as columns 0, 1, 2.
    std::vector<int32_t> map(100, -1);
    map[90] = 0;
    map[3] = 1;
    map[40] = 2;
    for (bool sorted : {false, true}) {
      for (int threads : {1, 4}) {
        Decoded d = Decode<int64_t>(layout, order, arrays, 2000,
                                    {.gene_map = map.data(), .sorted = sorted, .threads = threads});
        auto got = RowMaps(d.indptr.data(), d.indices.data(),
                           reinterpret_cast<const int64_t*>(d.values.data()), 2000);
        auto all = RowMaps(m.indptr.data(), m.indices.data(), m.values.data(), 2000);
        int64_t total = 0;
        for (size_t r = 0; r < all.size(); ++r) {
          std::map<int32_t, int64_t> want;
          for (auto [gene, v] : all[r]) {
            if (map[static_cast<size_t>(gene)] >= 0) want[map[static_cast<size_t>(gene)]] = v;
          }
          total += static_cast<int64_t>(want.size());
          ASSERT_EQ(got[r], want) << "row " << r;
        }
        EXPECT_EQ(d.nnz, total);
        if (sorted) {
          for (size_t r = 0; r + 1 < d.indptr.size(); ++r) {
            EXPECT_TRUE(std::is_sorted(d.indices.begin() + d.indptr[r], d.indices.begin() + d.indptr[r + 1]));
          }
        }
      }
    }
  }
}

TEST(TileCodec, WideSparseRowsTakeWiderDeltasWithExceptions) {
  for (int version : {1, 2}) {
    SCOPED_TRACE("version " + std::to_string(version));
    // 100,000 genes, a few dozen per cell: steps of thousands, a few beyond
    // uint16 (the first gene of a row can sit anywhere).
    auto value = [](std::mt19937& rng) -> int32_t { return 1 + static_cast<int32_t>(rng() % 5); };
    const Csr<int32_t> m = RandomCsr<int32_t>(300, 100000, 0.0003, 8, value);
    std::vector<int32_t> order, rank;
    Layout layout = LayoutFor(m, 100000, order, rank, version);
    TileArrays arrays;
    ASSERT_TRUE(EncodeTile(layout, rank, m.Rows(), 0, 2, arrays).ok());
    EXPECT_EQ(arrays.size.delta_bytes, 2);
    for (bool sorted : {false, true}) {
      Decoded d = Decode<int32_t>(layout, order, arrays, 300, {.sorted = sorted, .threads = 2});
      EXPECT_EQ(RowMaps(d.indptr.data(), d.indices.data(),
                        reinterpret_cast<const int32_t*>(d.values.data()), 300),
                RowMaps(m.indptr.data(), m.indices.data(), m.values.data(), 300));
    }
    // A subset through rows whose deltas carry exceptions.
    std::vector<int32_t> map(100000, -1);
    for (int32_t g = 0; g < 100000; g += 3) map[static_cast<size_t>(g)] = g / 3;
    Decoded d = Decode<int32_t>(layout, order, arrays, 300, {.gene_map = map.data(), .sorted = true});
    auto all = RowMaps(m.indptr.data(), m.indices.data(), m.values.data(), 300);
    auto got = RowMaps(d.indptr.data(), d.indices.data(),
                       reinterpret_cast<const int32_t*>(d.values.data()), 300);
    for (size_t r = 0; r < all.size(); ++r) {
      std::map<int32_t, int32_t> want;
      for (auto [gene, v] : all[r]) {
        if (gene % 3 == 0) want[gene / 3] = v;
      }
      ASSERT_EQ(got[r], want) << "row " << r;
    }
  }
}

TEST(TileCodec, ARareGeneFarDownTheOrderIsADeltaException) {
  // Cell 0 holds 70,000 popular genes (steps of 1); cell 1 only gene 99,999,
  // ranked beyond them all: its one step does not fit uint8 nor uint16.
  Csr<int32_t> m;
  for (int32_t g = 0; g < 70000; ++g) {
    m.indices.push_back(g);
    m.values.push_back(5);
  }
  m.indptr.push_back(70000);
  m.indices.push_back(99999);
  m.values.push_back(1);
  m.indptr.push_back(70001);
  std::vector<int32_t> order, rank;
  Layout layout = LayoutFor(m, 100000, order, rank, 1);
  TileArrays arrays;
  ASSERT_TRUE(EncodeTile(layout, rank, m.Rows(), 0, 2, arrays).ok());
  EXPECT_EQ(arrays.size.delta_bytes, 1);
  ASSERT_EQ(arrays.size.delta_exceptions, 1);
  EXPECT_EQ(arrays.delta_exception_positions.data()[0], 70000u);
  EXPECT_EQ(arrays.delta_exception_values.data()[0], 70000u);
  // Version 2: the step to position 70,001 is escaped: a 0 among the steps
  // of band 0 (the rows' first), its value in the escapes.
  TileArrays banded;
  Layout layout2 = layout;
  layout2.version = 2;
  ASSERT_TRUE(EncodeTile(layout2, rank, m.Rows(), 0, 2, banded).ok());
  EXPECT_EQ(banded.size.delta_bytes, 1);
  ASSERT_EQ(banded.size.delta_exceptions, 1);
  EXPECT_EQ(banded.gene_deltas.data()[1], std::byte{0});
  EXPECT_EQ(banded.delta_exception_values.data()[0], 70001u);
  for (bool sorted : {false, true}) {
    Decoded d = Decode<int32_t>(layout2, order, banded, 2, {.sorted = sorted, .threads = 2});
    EXPECT_EQ(d.indices[70000], 99999);
    EXPECT_EQ(RowMaps(d.indptr.data(), d.indices.data(),
                      reinterpret_cast<const int32_t*>(d.values.data()), 2),
              RowMaps(m.indptr.data(), m.indices.data(), m.values.data(), 2));
  }
  for (bool sorted : {false, true}) {
    Decoded d = Decode<int32_t>(layout, order, arrays, 2, {.sorted = sorted, .threads = 2});
    EXPECT_EQ(d.indices[70000], 99999);
    EXPECT_EQ(RowMaps(d.indptr.data(), d.indices.data(),
                      reinterpret_cast<const int32_t*>(d.values.data()), 2),
              RowMaps(m.indptr.data(), m.indices.data(), m.values.data(), 2));
  }
}

TEST(TileCodec, RowsTheLayoutCannotHoldAreRefusedNamingTheCell) {
  Csr<int32_t> m;
  m.indices = {0, 1, 1};
  m.values = {1, 2, 3};
  m.indptr = {0, 1, 3};
  std::vector<int32_t> rank = {0, 1};
  Layout layout;
  layout.cells = 2;
  layout.genes = 2;
  TileArrays arrays;
  Status s = EncodeTile(layout, rank, m.Rows(), 100, 1, arrays);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("cell 101: gene 1 appears twice"), std::string::npos) << s.message();

  m.indices = {0, 5, 1};
  s = EncodeTile(layout, rank, m.Rows(), 0, 1, arrays);
  EXPECT_NE(s.message().find("cell 1: gene index 5 is outside [0, 2)"), std::string::npos) << s.message();

  m.indices = {0, 0, 1};
  m.values = {1, -4, 3};
  s = EncodeTile(layout, rank, m.Rows(), 0, 1, arrays);
  EXPECT_NE(s.message().find("cell 1: negative count -4"), std::string::npos) << s.message();

  CountStats stats(2);
  s = stats.Add(m.Rows(), 10);
  EXPECT_NE(s.message().find("cell 11, gene 0: negative count -4"), std::string::npos) << s.message();

  m.indptr = {0, 2, 1};
  s = EncodeTile(layout, rank, m.Rows(), 0, 1, arrays);
  EXPECT_NE(s.message().find("row pointers go backwards"), std::string::npos) << s.message();
}

// Encodes `m`, sets to 0 the step to the second gene of the first row
// with 2 to max_len - 1 entries whose step is not a delta exception (the
// row now names one gene twice), and returns the status of a sorted decode.
template <typename V>
Status RepeatAGeneAndSort(const Csr<V>& m, int64_t genes, int64_t max_len, const char* where) {
  std::vector<int32_t> order, rank;
  Layout layout = LayoutFor(m, genes, order, rank, 1);
  TileArrays arrays;
  Status s = EncodeTile(layout, rank, m.Rows(), 0, 1, arrays);
  if (!s.ok()) return s;
  const int64_t rows = static_cast<int64_t>(m.indptr.size()) - 1;
  const uint32_t* exc = arrays.delta_exception_positions.data();
  const uint32_t* exc_end = exc + arrays.size.delta_exceptions;
  int64_t at = -1;
  for (int64_t r = 0; r < rows && at < 0; ++r) {
    const int64_t len = m.indptr[r + 1] - m.indptr[r];
    const int64_t k = m.indptr[r] + 1;
    if (len >= 2 && len < max_len && std::find(exc, exc_end, static_cast<uint32_t>(k)) == exc_end) {
      at = k;
    }
  }
  EXPECT_GE(at, 0) << "no row to damage";
  if (at < 0) return Status::OK();
  std::memset(arrays.gene_deltas.data() + at * arrays.size.delta_bytes, 0,
              static_cast<size_t>(arrays.size.delta_bytes));
  Room<V> room(rows, arrays.size.nonzeros);
  return DecodeTile(layout, order, arrays, rows, room.target(), {.sorted = true}, where).status();
}

TEST(TileCodec, BytesThatContradictTheLayoutAreCorruptionNotACrash) {
  auto value = [](std::mt19937& rng) -> int32_t { return 1 + static_cast<int32_t>(rng() % 3); };
  const Csr<int32_t> m = RandomCsr<int32_t>(100, 60, 0.2, 6, value);
  std::vector<int32_t> order, rank;
  Layout layout = LayoutFor(m, 60, order, rank, 1);
  TileArrays arrays;
  ASSERT_TRUE(EncodeTile(layout, rank, m.Rows(), 0, 1, arrays).ok());
  Room<int32_t> room(100, arrays.size.nonzeros);
  const TileTarget target = room.target();

  auto* deltas = reinterpret_cast<uint8_t*>(arrays.gene_deltas.data());
  const uint8_t saved = deltas[5];
  deltas[5] = 250;  // runs past the 60 genes
  Result<int64_t> n = DecodeTile(layout, order, arrays, 100, target, {}, "tile 7");
  EXPECT_EQ(n.status().code(), StatusCode::kCorruption);
  EXPECT_NE(n.status().message().find("tile 7: a gene delta runs beyond"), std::string::npos);
  // Sorted, and sorted through a gene subset: the same refusal.
  std::vector<int32_t> map(60, -1);
  map[3] = 0;
  map[59] = 1;
  for (const int32_t* gene_map : {static_cast<const int32_t*>(nullptr), static_cast<const int32_t*>(map.data())}) {
    n = DecodeTile(layout, order, arrays, 100, target,
                   {.gene_map = gene_map, .sorted = true}, "tile 7");
    EXPECT_EQ(n.status().code(), StatusCode::kCorruption);
  }
  deltas[5] = saved;

  // A gene twice in a row (a step of 0 after the row's first): sorting
  // finds it, and says so.
  int64_t second = -1;
  for (int64_t r = 0; r < 100 && second < 0; ++r) {
    if (m.indptr[r + 1] - m.indptr[r] >= 2) second = m.indptr[r] + 1;
  }
  ASSERT_GE(second, 0);
  const uint8_t step = deltas[second];
  deltas[second] = 0;
  n = DecodeTile(layout, order, arrays, 100, target, {.sorted = true}, "tile 7");
  EXPECT_EQ(n.status().code(), StatusCode::kCorruption);
  EXPECT_NE(n.status().message().find("tile 7: a gene appears twice"), std::string::npos);
  deltas[second] = step;

  // The same in a short row of a wide matrix, which is sorted as pairs.
  const Csr<int32_t> wide = RandomCsr<int32_t>(50, 5000, 0.0006, 7, value);
  Status repeated = RepeatAGeneAndSort(wide, 5000, 4, "tile 8");  // short: under 5000 / 1024
  EXPECT_EQ(repeated.code(), StatusCode::kCorruption);
  EXPECT_NE(repeated.message().find("tile 8: a gene appears twice"), std::string::npos);

  // And where the values are too wide for a dense row of stored bytes
  // (float32 here: the bitmap sort), in a dense and in a short row.
  auto frac = [](std::mt19937& rng) { return static_cast<float>(rng() % 1000) / 8.0f + 0.125f; };
  for (int64_t genes : {int64_t{60}, int64_t{5000}}) {
    const Csr<float> f = RandomCsr<float>(50, genes, genes == 60 ? 0.3 : 0.0006, 9, frac);
    std::vector<int32_t> f_order, f_rank;
    ASSERT_EQ(LayoutFor(f, genes, f_order, f_rank).stored_values.id(), DataTypeId::kFloat32);
    repeated = RepeatAGeneAndSort(f, genes, 1 << 20, "tile 9");
    EXPECT_EQ(repeated.code(), StatusCode::kCorruption) << genes << " genes";
    EXPECT_NE(repeated.message().find("tile 9: a gene appears twice"), std::string::npos);
  }

  arrays.indptr.data()[50] = 100000;
  n = DecodeTile(layout, order, arrays, 100, target, {}, "tile 7");
  EXPECT_EQ(n.status().code(), StatusCode::kCorruption);
  EXPECT_NE(n.status().message().find("indptr"), std::string::npos);
}

TEST(TileCodec, Version2BytesThatContradictEachOtherAreCorruption) {
  auto value = [](std::mt19937& rng) -> int32_t { return 1 + static_cast<int32_t>(rng() % 6); };
  // 5,000 genes at 1%: steps beyond uint8 (escaped) in every row.
  const Csr<int32_t> m = RandomCsr<int32_t>(100, 5000, 0.01, 10, value);
  std::vector<int32_t> order, rank;
  Layout layout = LayoutFor(m, 5000, order, rank, 2);
  TileArrays arrays;
  ASSERT_TRUE(EncodeTile(layout, rank, m.Rows(), 0, 1, arrays).ok());
  ASSERT_EQ(arrays.size.delta_bytes, 1);
  ASSERT_GT(arrays.size.delta_exceptions, 0);
  Room<int32_t> room(100, arrays.size.nonzeros);
  const TileTarget target = room.target();
  auto expect = [&](const char* message) {
    for (bool sorted : {false, true}) {
      Result<int64_t> n = DecodeTile(layout, order, arrays, 100, target,
                                     {.sorted = sorted, .threads = 2}, "tile 3");
      EXPECT_EQ(n.status().code(), StatusCode::kCorruption) << message;
      EXPECT_NE(n.status().message().find(std::string("tile 3: ") + message), std::string::npos)
          << n.status().message();
    }
  };
  ASSERT_TRUE(DecodeTile(layout, order, arrays, 100, target, {}, "tile 3").ok());

  auto fresh = [&] { ASSERT_TRUE(EncodeTile(layout, rank, m.Rows(), 0, 1, arrays).ok()); };
  auto* steps = reinterpret_cast<uint8_t*>(arrays.gene_deltas.data());
  uint32_t* escapes = arrays.delta_exception_values.data();
  const int64_t escaped = arrays.size.delta_exceptions;
  int64_t plain = 0;  // a step that is not escaped
  while (steps[plain] == 0) ++plain;

  // A zero the index does not count as an escape.
  steps[plain] = 0;
  expect("gene_deltas holds");
  fresh();
  // An escaped step that runs past the genes.
  escapes[escaped - 1] = 100000;
  expect("a gene delta runs beyond");
  fresh();
  // An escaped step of 0.
  escapes[0] = 0;
  expect("an escaped gene step is 0");
  fresh();

  // A step moved from one row's band to the next row's.
  auto* bands = reinterpret_cast<uint16_t*>(arrays.gene_bands.data());
  int64_t at = -1;
  for (int64_t i = 100; i + 1 < 2 * 100 && at < 0; ++i) {  // band 1
    if (bands[i] > 0) at = i;
  }
  ASSERT_GE(at, 0);
  --bands[at];
  ++bands[at + 1];
  expect("gene_bands gives cell");
  ++bands[at];
  --bands[at + 1];

  // A 1 the bitmap no longer marks.
  uint8_t* ones = arrays.value_bitmaps[0].data();
  int64_t bit = 0;
  while (!((ones[bit >> 3] >> (bit & 7)) & 1)) ++bit;
  ones[bit >> 3] = static_cast<uint8_t>(ones[bit >> 3] & ~(1u << (bit & 7)));
  expect("value_bitmap_1 marks");
}

TEST(TileCodec, Version2TilesWithRandomDamageDecodeOrAreCorruption) {
  // Any bytes of any array: a decode either succeeds (the damage still
  // reads as some matrix) or is Corruption, and never reads or writes
  // outside its arrays (the sanitizer builds run this too).
  auto value = [](std::mt19937& rng) -> int32_t {
    return rng() % 40 == 0 ? 300 + static_cast<int32_t>(rng() % 1000) : 1 + static_cast<int32_t>(rng() % 5);
  };
  const Csr<int32_t> m = RandomCsr<int32_t>(120, 3000, 0.03, 11, value);
  std::vector<int32_t> order, rank;
  const Layout layout = LayoutFor(m, 3000, order, rank, 2);
  std::vector<int32_t> map(3000, -1);
  for (int32_t g = 0; g < 3000; g += 7) map[static_cast<size_t>(g)] = g / 7;
  std::mt19937 rng(12);
  int corrupt = 0, decoded = 0;
  for (int trial = 0; trial < 400; ++trial) {
    TileArrays arrays;
    ASSERT_TRUE(EncodeTile(layout, rank, m.Rows(), 0, 1, arrays).ok());
    const TileSize& size = arrays.size;
    ASSERT_GT(size.delta_exceptions, 0);
    ASSERT_GT(size.exceptions, 0);
    int64_t bits = size.nonzeros;
    std::vector<std::pair<std::byte*, size_t>> targets = {
        {arrays.gene_bands.data(), static_cast<size_t>(layout.gene_bands() * 120 * 2)},
        {arrays.gene_deltas.data(), static_cast<size_t>(size.nonzeros * size.delta_bytes)},
        {reinterpret_cast<std::byte*>(arrays.delta_exception_values.data()),
         static_cast<size_t>(size.delta_exceptions * 4)},
        {arrays.values.data(), static_cast<size_t>(size.stored_values())},
        {reinterpret_cast<std::byte*>(arrays.exception_positions.data()),
         static_cast<size_t>(size.exceptions * 4)}};
    for (int l = 0; l < 3; ++l) {
      targets.emplace_back(reinterpret_cast<std::byte*>(arrays.value_bitmaps[static_cast<size_t>(l)].data()),
                           static_cast<size_t>(BitmapBytes(bits)));
      bits -= size.value_levels[static_cast<size_t>(l)];
    }
    auto [bytes, length] = targets[rng() % targets.size()];
    if (length == 0) continue;
    for (uint32_t k = 0, n = 1 + rng() % 3; k < n; ++k) {
      bytes[rng() % length] = static_cast<std::byte>(rng());
    }
    Room<int32_t> room(120, size.nonzeros);
    for (bool sorted : {false, true}) {
      for (const int32_t* gene_map : {static_cast<const int32_t*>(nullptr), static_cast<const int32_t*>(map.data())}) {
        Result<int64_t> n = DecodeTile(layout, order, arrays, 120, room.target(),
                                       {.gene_map = gene_map, .sorted = sorted, .threads = 2},
                                       "tile 4");
        if (n.ok()) {
          ++decoded;
          EXPECT_LE(*n, size.nonzeros);
        } else {
          ++corrupt;
          ASSERT_EQ(n.status().code(), StatusCode::kCorruption) << n.status().ToString();
          EXPECT_EQ(n.status().message().rfind("tile 4: ", 0), 0u) << n.status().message();
        }
      }
    }
  }
  // Both outcomes happen: the trials reach the checks and the decode.
  EXPECT_GT(corrupt, 100);
  EXPECT_GT(decoded, 100);
}

}  // namespace
}  // namespace turbozarr::sparse::internal
