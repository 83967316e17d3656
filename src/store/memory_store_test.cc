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

TEST(MemoryStoreTest, SetBufferKeepsTheBufferHandedOver) {
  auto store = MakeMemoryStore();
  ASSERT_TRUE(store->SetBuffer("k", Buffer::FromString("shard bytes")).ok());
  auto got = store->Get("k");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->chars(), "shard bytes");
  // Replaced like any Set, and checked like one.
  ASSERT_TRUE(store->SetBuffer("k", Buffer::FromString("new")).ok());
  got = store->Get("k");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->chars(), "new");
  EXPECT_FALSE(store->SetBuffer("../k", Buffer::FromString("x")).ok());
}

TEST(MemoryStoreTest, GetReusingKeepsTheBuffersMemory) {
  auto store = MakeMemoryStore();
  ASSERT_TRUE(store->Set("k", AsBytes(std::string("abc"))).ok());
  Buffer into;
  into.Reserve(1024);
  const std::byte* memory = into.data();
  auto got = store->GetReusing("k", ByteRange::Full(), into);
  ASSERT_TRUE(got.ok() && *got);
  EXPECT_EQ(into.chars(), "abc");
  EXPECT_EQ(into.data(), memory);
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
