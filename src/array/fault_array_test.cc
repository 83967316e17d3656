// Arrays over a store that fails: every fault the fault wrapper injects
// (I/O errors, dropped connections, short reads, a full disk, partial
// writes, latency spikes), one kind at a time and all together, on chunked
// (raw and zstd) and sharded arrays. Random region reads and writes run
// through the faulty store; after each, the array is read through the store
// underneath, without faults, and compared with a model:
//
// - a read either succeeds with exactly the model's values or fails with an
//   IOError or Corruption that names a key; never wrong bytes;
// - a write that succeeds leaves its region written; one that fails leaves
//   each chunk (or shard) either as it was or as the write made it, or, after
//   an injected partial write, unreadable with a Corruption error naming it
//   (the store lied; the damage is found, never returned as values).
//
// Run under AddressSanitizer and LeakSanitizer by make test-sanitize, so a
// failure path that leaks or touches freed memory fails too.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "testing/int32_array_fixtures.h"
#include "turbozarr/array.h"
#include "turbozarr/store_wrappers.h"

namespace turbozarr {
namespace {

using namespace fixtures;  // NOLINT: the shared test fixtures

constexpr int64_t kSide = 256;
constexpr int64_t kUnit = 64;  // a chunk, or a shard of 32 x 32 inner chunks
constexpr int64_t kUnits = kSide / kUnit;

struct Case {
  const char* name;
  std::vector<Fault> faults;
};

std::vector<Case> Cases() {
  return {{"ReadError", {Fault::kReadError}},
          {"Reset", {Fault::kReset}},
          {"ShortRead", {Fault::kShortRead}},
          {"WriteError", {Fault::kWriteError}},
          {"PartialWrite", {Fault::kPartialWrite}},
          {"LatencySpike", {Fault::kLatencySpike}},
          {"All",
           {Fault::kReadError, Fault::kReset, Fault::kShortRead, Fault::kWriteError,
            Fault::kPartialWrite, Fault::kLatencySpike}}};
}

ArrayMetadata Layout(int layout) {
  switch (layout) {
    case 0:
      return Int32Metadata({kSide, kSide}, {kUnit, kUnit}, json::array({kLittle}));
    case 1:
      return Int32Metadata({kSide, kSide}, {kUnit, kUnit}, json::array({kLittle, kZstd}));
    default:
      return Int32Metadata({kSide, kSide}, {kUnit, kUnit},
                           Sharded({32, 32}, json::array({kLittle, kZstd}), "end"));
  }
}

bool NamesAKey(const Status& s) {
  return s.message().find("chunk '") != std::string::npos ||
         s.message().find("key '") != std::string::npos;
}

class FaultArrayTest : public ::testing::TestWithParam<std::tuple<int, int>> {};

TEST_P(FaultArrayTest, FailsCleanlyOrIsRight) {
  const auto [layout, which] = GetParam();
  const Case c = Cases()[static_cast<size_t>(which)];
  std::shared_ptr<Store> clean = MakeMemoryStore();
  FaultOptions options;
  options.faults = c.faults;
  options.rate = 0.15;
  options.seed = static_cast<uint64_t>(layout * 100 + which);
  options.spike = std::chrono::milliseconds(1);
  std::shared_ptr<FaultStore> faulty = MakeFaultStore(clean, options);
  faulty->set_rate(0);  // create it cleanly
  auto created = Array::Create(faulty, "a", Layout(layout));
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  faulty->set_rate(options.rate);
  std::shared_ptr<Array> through_faults = *created;
  std::shared_ptr<Array> truth = *Array::Open(clean, "a");

  std::vector<int32_t> model(static_cast<size_t>(kSide * kSide), kFill);
  std::vector<bool> broken(static_cast<size_t>(kUnits * kUnits), false);
  std::mt19937_64 rng(options.seed);
  auto uniform = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  int reads_ok = 0, reads_failed = 0, writes_ok = 0, writes_failed = 0;

  for (int op = 0; op < 60; ++op) {
    const int64_t r0 = uniform(0, kSide - 1), c0 = uniform(0, kSide - 1);
    const int64_t r1 = uniform(r0 + 1, std::min(kSide, r0 + 100));
    const int64_t c1 = uniform(c0 + 1, std::min(kSide, c0 + 100));
    const Selection region({{r0, r1, 1}, {c0, c1, 1}});
    const size_t n = static_cast<size_t>((r1 - r0) * (c1 - c0));
    auto at = [&](int64_t r, int64_t col) { return static_cast<size_t>(r * kSide + col); };

    if (uniform(0, 1) == 0) {  // a read
      std::vector<int32_t> got(n);
      Status s = through_faults->Read(region, got);
      if (!s.ok()) {
        ++reads_failed;
        EXPECT_TRUE(s.code() == StatusCode::kIOError || s.code() == StatusCode::kCorruption)
            << s.ToString();
        EXPECT_TRUE(NamesAKey(s)) << s.ToString();
        continue;
      }
      ++reads_ok;
      for (int64_t r = r0; r < r1; ++r) {
        for (int64_t col = c0; col < c1; ++col) {
          EXPECT_FALSE(broken[static_cast<size_t>((r / kUnit) * kUnits + col / kUnit)])
              << "a read over a damaged chunk succeeded";
          const int32_t want = model[at(r, col)];
          const int32_t have = got[static_cast<size_t>((r - r0) * (c1 - c0) + col - c0)];
          if (have != want) {
            ADD_FAILURE() << c.name << " op " << op << ": read (" << r << ", " << col
                          << ") = " << have << ", expected " << want;
            r = r1;
            break;
          }
        }
      }
      continue;
    }

    // A write: each element its own value, so a misplaced one shows.
    std::vector<int32_t> values(n);
    for (size_t i = 0; i < n; ++i) values[i] = (op + 1) * 100000 + static_cast<int32_t>(i);
    Status s = through_faults->Write(region, values.data());
    const std::vector<int32_t> written = Overwritten(model, kSide, r0, r1, c0, c1, values);
    if (s.ok()) {
      ++writes_ok;
    } else {
      ++writes_failed;
      EXPECT_TRUE(s.code() == StatusCode::kIOError || s.code() == StatusCode::kCorruption)
          << s.ToString();
      EXPECT_TRUE(NamesAKey(s)) << s.ToString();
    }
    // Each unit, read without faults: old or new (new only, if the write
    // succeeded), or damaged by an injected partial write.
    for (int64_t ur = 0; ur < kUnits; ++ur) {
      for (int64_t uc = 0; uc < kUnits; ++uc) {
        const size_t u = static_cast<size_t>(ur * kUnits + uc);
        std::vector<int32_t> now(static_cast<size_t>(kUnit * kUnit));
        Status rs = truth->Read(Selection({{ur * kUnit, (ur + 1) * kUnit, 1},
                                           {uc * kUnit, (uc + 1) * kUnit, 1}}),
                                now);
        if (!rs.ok()) {
          EXPECT_EQ(rs.code(), StatusCode::kCorruption) << rs.ToString();
          EXPECT_TRUE(NamesAKey(rs)) << rs.ToString();
          EXPECT_NE(std::find(c.faults.begin(), c.faults.end(), Fault::kPartialWrite),
                    c.faults.end())
              << "a unit is damaged though no write was cut short: " << rs.ToString();
          broken[u] = true;
          continue;
        }
        bool is_old = !broken[u], is_new = true;
        for (int64_t i = 0; i < kUnit; ++i) {
          for (int64_t j = 0; j < kUnit; ++j) {
            const size_t e = at(ur * kUnit + i, uc * kUnit + j);
            const int32_t v = now[static_cast<size_t>(i * kUnit + j)];
            is_old = is_old && v == model[e];
            is_new = is_new && v == written[e];
          }
        }
        EXPECT_TRUE(is_new || (!s.ok() && is_old))
            << c.name << " op " << op << ": unit " << u << " is "
            << (s.ok() ? "not as the write made it" : "neither old nor new");
        broken[u] = false;
        for (int64_t i = 0; i < kUnit; ++i) {
          for (int64_t j = 0; j < kUnit; ++j) {
            const size_t e = at(ur * kUnit + i, uc * kUnit + j);
            model[e] = now[static_cast<size_t>(i * kUnit + j)];
          }
        }
      }
    }
  }
  // Faults were injected, and both outcomes were seen.
  EXPECT_GT(faulty->injected(), 0u);
  EXPECT_GT(reads_ok + writes_ok, 0);
  std::printf("%s: reads %d ok, %d failed; writes %d ok, %d failed; %llu faults\n", c.name,
              reads_ok, reads_failed, writes_ok, writes_failed,
              static_cast<unsigned long long>(faulty->injected()));
}

std::string CaseName(const ::testing::TestParamInfo<std::tuple<int, int>>& info) {
  static const char* kLayouts[] = {"Raw", "Zstd", "Sharded"};
  return std::string(kLayouts[std::get<0>(info.param)]) +
         Cases()[static_cast<size_t>(std::get<1>(info.param))].name;
}

INSTANTIATE_TEST_SUITE_P(Faults, FaultArrayTest,
                         ::testing::Combine(::testing::Values(0, 1, 2), ::testing::Range(0, 7)),
                         CaseName);

}  // namespace
}  // namespace turbozarr
