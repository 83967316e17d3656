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

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "turbozarr/store.h"

namespace turbozarr {

struct StoreFactory {
  // Suffix of the test names: letters, digits and '_' only.
  std::string name;
  // Makes an empty, writable store. `scratch_dir` is a fresh empty directory
  // that is removed after the test; stores that need no files ignore it.
  std::function<Result<std::shared_ptr<Store>>(const std::string& scratch_dir)> make;
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
