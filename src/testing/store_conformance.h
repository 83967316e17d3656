// StoreConformanceTest: the one GoogleTest suite every Store implementation
// runs, so that all stores agree on keys, byte ranges, listing, erasing and
// atomicity under concurrent use.
//
// A store's test binary compiles src/testing/store_conformance.cc and
// instantiates the suite with a factory:
//
//   INSTANTIATE_TEST_SUITE_P(
//       Memory, StoreConformanceTest,
//       ::testing::Values(StoreFactory{"memory", [](const std::string&) {
//         return Result<std::shared_ptr<Store>>(MakeMemoryStore());
//       }}),
//       StoreFactoryName);
//
// Thread safety: test code; each test owns its store and scratch directory.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "turbozarr/store.h"

namespace turbozarr {

// What the suite expects of a store beyond reads, Set and List; it checks each
// trait a store claims, and that a store without one refuses cleanly.
struct ConformanceTraits {
  // Erase and ErasePrefix remove keys that are present. Without it they must
  // answer Unsupported for present keys, leave them in place, and still
  // accept absent keys (a write-once zip archive).
  bool erase = true;
};

struct StoreFactory {
  // Suffix of the test names: letters, digits and '_' only.
  std::string name;
  // Makes an empty, writable store. `scratch_dir` is a fresh empty directory
  // that is removed after the test; stores that need no files ignore it.
  std::function<Result<std::shared_ptr<Store>>(const std::string& scratch_dir)> make;
  ConformanceTraits traits = {};
  // Optional: the store whose reads the tests check, made from the store they
  // wrote (a zip archive flushed and opened afresh, read-only). Tests call it
  // after their writes. Null: reads go to the store that was written.
  std::function<Result<std::shared_ptr<Store>>(std::shared_ptr<Store> written,
                                               const std::string& scratch_dir)>
      reopen = nullptr;
  // The share of the concurrency tests' iterations to run (all threads still
  // run at once): a store whose test server answers only a few hundred
  // requests a second (moto) runs a tenth, so its suite takes seconds.
  double iterations = 1.0;
};

class StoreConformanceTest : public ::testing::TestWithParam<StoreFactory> {
 protected:
  void SetUp() override;
  void TearDown() override;

  Store& store() { return *store_; }
  // Replaces the store with the factory's reopened one (if it has a reopen);
  // call as ASSERT_NO_FATAL_FAILURE(Reopen()).
  void Reopen();
  const ConformanceTraits& traits() const { return GetParam().traits; }

  std::string scratch_dir_;
  std::shared_ptr<Store> store_;
};

// Prints the factory's name in test failure messages.
void PrintTo(const StoreFactory& factory, std::ostream* os);

// Names instantiations after StoreFactory::name.
std::string StoreFactoryName(const ::testing::TestParamInfo<StoreFactory>& info);

// A fresh empty directory under $TMPDIR (or /tmp); fails the test if it
// cannot be made.
std::string MakeScratchDir();
// Removes `dir` and everything below it.
void RemoveScratchDir(const std::string& dir);

}  // namespace turbozarr
