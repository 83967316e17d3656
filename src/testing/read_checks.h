// ExpectEveryReadTarget: checks Store::Read against known contents for every
// target kind (a fresh buffer, a reused buffer, caller memory), every kind of
// byte range (whole, offset and length, open end, suffix, empty, past the
// end) and absent keys, one request at a time and all in one batch (so that
// stores which merge neighbouring ranges of one key do so). The store
// conformance suites and the shard store's tests share it, so that every
// store is held to the same answers.
//
// Thread safety: test code.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "turbozarr/store.h"

namespace turbozarr::testing_reads {

// What `range` selects of `value`, cut short at its end.
inline std::string Selected(const std::string& value, const ByteRange& range) {
  if (range.suffix) {
    return value.substr(value.size() - std::min<uint64_t>(range.length, value.size()));
  }
  if (range.offset >= value.size()) return "";
  return value.substr(range.offset, std::min<uint64_t>(range.length, value.size()));
}

// The ranges every value is read with, neighbours included.
inline std::vector<ByteRange> RangesFor(uint64_t size) {
  return {ByteRange::Full(),
          ByteRange::Of(0, 0),
          ByteRange::Of(0, 2),
          ByteRange::Of(2, 2),  // adjacent to the one before
          ByteRange::Of(1, 3),  // overlaps both
          ByteRange::Of(5, 1),  // a small gap after them
          ByteRange::Of(1, ByteRange::kToEnd),
          ByteRange::Of(size > 2 ? size - 2 : 0, 10),  // runs past the end
          ByteRange::Of(size + 5, 3),                  // starts past the end
          ByteRange::Suffix(2),
          ByteRange::Suffix(size + 10),
          ByteRange::Suffix(0)};
}

// One request with its target and what it must come back with.
struct Case {
  std::string key;
  ByteRange range;
  ReadTarget target;
  bool present = false;
  std::string want;
  // Caller memory is this many bytes longer than the selected part; with a
  // difference the memory must not be filled, and the length still tells.
  size_t memory_extra = 0;
  std::string trace;
};

inline std::vector<Case> Cases(const std::map<std::string, std::string>& contents,
                               const std::string& absent_key) {
  std::vector<Case> cases;
  auto add = [&](const std::string& key, bool present, const std::string& value) {
    for (const ByteRange& r : RangesFor(value.size())) {
      for (ReadTarget t : {ReadTarget::kNewBuffer, ReadTarget::kReuseBuffer,
                           ReadTarget::kCallerMemory}) {
        for (size_t extra : {size_t{0}, size_t{1}}) {
          if (extra != 0 && t != ReadTarget::kCallerMemory) continue;
          Case c{key, r, t, present, present ? Selected(value, r) : "", extra, ""};
          c.trace = "key '" + key + "' range {" + std::to_string(r.offset) + ", " +
                    std::to_string(r.length) + (r.suffix ? ", suffix" : "") +
                    "} target " + std::to_string(static_cast<int>(t)) + " extra " +
                    std::to_string(extra);
          cases.push_back(std::move(c));
        }
      }
    }
  };
  for (const auto& [key, value] : contents) add(key, true, value);
  add(absent_key, false, "");
  return cases;
}

// Runs `cases` as one Read (or one Read each) and checks every answer.
inline void RunCases(Store& store, const std::vector<Case>& cases, bool batched) {
  const std::string stale(4096, 'S');  // what buffers held before the read
  std::vector<Buffer> buffers(cases.size());
  std::vector<std::string> memory(cases.size());
  std::vector<ReadRequest> requests(cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    buffers[i] = Buffer::FromString(i % 2 == 0 ? stale : std::string("s"));
    switch (c.target) {
      case ReadTarget::kNewBuffer:
        requests[i] = ReadRequest::NewBuffer(c.key, c.range, buffers[i]);
        break;
      case ReadTarget::kReuseBuffer:
        requests[i] = ReadRequest::Reusing(c.key, c.range, buffers[i]);
        break;
      case ReadTarget::kCallerMemory:
        memory[i].assign(c.want.size() + c.memory_extra, '#');
        requests[i] = ReadRequest::Into(
            c.key, c.range,
            MutableByteView(reinterpret_cast<std::byte*>(memory[i].data()),
                            memory[i].size()));
        break;
    }
  }
  std::vector<ReadAnswer> answers(cases.size(), ReadAnswer{true, 12345});
  if (batched) {
    Status s = store.Read(requests, answers);
    ASSERT_TRUE(s.ok()) << s.ToString();
  } else {
    for (size_t i = 0; i < cases.size(); ++i) {
      Status s = store.Read({&requests[i], 1}, {&answers[i], 1});
      ASSERT_TRUE(s.ok()) << cases[i].trace << ": " << s.ToString();
    }
  }
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    SCOPED_TRACE(c.trace + (batched ? " (batched)" : " (alone)"));
    EXPECT_EQ(answers[i].found, c.present);
    if (!c.present) {
      if (c.target != ReadTarget::kCallerMemory) {
        EXPECT_EQ(buffers[i].size(), 0u);
      }
      continue;
    }
    EXPECT_EQ(answers[i].length, c.want.size());
    if (c.target != ReadTarget::kCallerMemory) {
      EXPECT_EQ(std::string(buffers[i].chars()), c.want);
    } else if (c.memory_extra == 0) {
      EXPECT_EQ(memory[i], c.want);
    }
  }
}

// Checks every target kind, range kind and absent keys against `contents`,
// which the store holds; `absent_key` is a valid key it does not hold.
inline void ExpectEveryReadTarget(Store& store,
                                  const std::map<std::string, std::string>& contents,
                                  const std::string& absent_key) {
  const std::vector<Case> cases = Cases(contents, absent_key);
  ASSERT_NO_FATAL_FAILURE(RunCases(store, cases, /*batched=*/false));
  ASSERT_NO_FATAL_FAILURE(RunCases(store, cases, /*batched=*/true));
  // An empty batch is fine.
  EXPECT_TRUE(store.Read({}, {}).ok());
  // One bad key fails the batch, naming it.
  Buffer b;
  const ReadRequest bad[] = {
      ReadRequest::NewBuffer(contents.begin()->first, ByteRange::Full(), b),
      ReadRequest::NewBuffer("../x", ByteRange::Full(), b)};
  ReadAnswer answers[2];
  Status s = store.Read(bad, answers);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
}

}  // namespace turbozarr::testing_reads
