#include "store/memory_store.h"

#include <gtest/gtest.h>

#include "testing/store_conformance.h"

namespace turbozarr {
namespace {

INSTANTIATE_TEST_SUITE_P(Memory, StoreConformanceTest,
                         ::testing::Values(StoreFactory{
                             "memory",
                             [](const std::string&) {
                               return Result<std::shared_ptr<Store>>(MakeMemoryStore());
                             }}),
                         StoreFactoryName);

TEST(MemoryStoreTest, ValuesAreCopiedIn) {
  auto store = MakeMemoryStore();
  std::string value = "abc";
  ASSERT_TRUE(store->Set("k", AsBytes(value)).ok());
  value[0] = 'X';
  auto got = store->Get("k");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->chars(), "abc");
}

TEST(MemoryStoreTest, StoresAreIndependent) {
  auto a = MakeMemoryStore();
  auto b = MakeMemoryStore();
  ASSERT_TRUE(a->Set("k", AsBytes("1")).ok());
  auto got = b->Get("k");
  ASSERT_TRUE(got.ok());
  EXPECT_FALSE(got->has_value());
  EXPECT_EQ(a->Describe(), "memory://");
}

}  // namespace
}  // namespace turbozarr
