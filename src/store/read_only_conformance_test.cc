// The read-only conformance suite on the reference stores, so that the suite
// itself is known to pass where the answers are certain.
#include "testing/read_only_store_conformance.h"

namespace turbozarr {
namespace {

Result<std::shared_ptr<Store>> Fill(Result<std::shared_ptr<Store>> made,
                                    const StoreContents& contents) {
  if (!made.ok()) return made;
  for (const auto& [key, value] : contents) {
    TZ_RETURN_NOT_OK((*made)->Set(key, AsBytes(value)));
  }
  return made;
}

INSTANTIATE_TEST_SUITE_P(
    Reference, ReadOnlyStoreConformanceTest,
    ::testing::Values(
        ReadOnlyStoreFactory{"memory",
                             [](const std::string&, const StoreContents& contents) {
                               return Fill(MakeMemoryStore(), contents);
                             }},
        ReadOnlyStoreFactory{"local",
                             [](const std::string& dir, const StoreContents& contents) {
                               return Fill(MakeLocalStore(dir + "/root"), contents);
                             }}),
    ReadOnlyStoreFactoryName);

}  // namespace
}  // namespace turbozarr
