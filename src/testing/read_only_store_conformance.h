// ReadOnlyStoreConformanceTest: the GoogleTest suite for the reading half of
// the Store contract, which stores that cannot be written through (HTTP, zip
// files opened for reading) run as well as writable ones: values, byte
// ranges, missing keys, sizes, key checks, GetMany (in order, with
// duplicates, overlaps, neighbours and gaps) and concurrent readers. A store
// that says it is not writable must refuse Set and Erase with a message that
// says "read-only".
//
// A store's test binary compiles src/testing/read_only_store_conformance.cc and
// instantiates the suite with a factory that makes a store holding exactly
// the given keys and values:
//
//   INSTANTIATE_TEST_SUITE_P(
//       Http, ReadOnlyStoreConformanceTest,
//       ::testing::Values(ReadOnlyStoreFactory{"http", MakeServedStore}),
//       ReadOnlyStoreFactoryName);
//
// Thread safety: test code; each test owns its store and scratch directory.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <string>

#include "turbozarr/store.h"

namespace turbozarr {

using StoreContents = std::map<std::string, std::string>;

struct ReadOnlyStoreFactory {
  // Suffix of the test names: letters, digits and '_' only.
  std::string name;
  // Makes a store that holds `contents` and nothing else. `scratch_dir` is a
  // fresh empty directory removed after the test.
  std::function<Result<std::shared_ptr<Store>>(const std::string& scratch_dir,
                                               const StoreContents& contents)>
      make;
};

class ReadOnlyStoreConformanceTest
    : public ::testing::TestWithParam<ReadOnlyStoreFactory> {
 protected:
  void SetUp() override;
  void TearDown() override;

  Store& store() { return *store_; }
  // What the store was made with.
  static const StoreContents& Contents();

  std::string scratch_dir_;
  std::shared_ptr<Store> store_;
};

void PrintTo(const ReadOnlyStoreFactory& factory, std::ostream* os);
std::string ReadOnlyStoreFactoryName(
    const ::testing::TestParamInfo<ReadOnlyStoreFactory>& info);

}  // namespace turbozarr
