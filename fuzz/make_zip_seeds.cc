// Writes the seed corpus of zip_fuzzer into the directory given as the first
// argument: small archives with the variations readers must handle (stored
// and deflated entries, data descriptors, zip64 records, a comment, bytes in
// front), built with the same record writers the tests use.
#include <cstdio>
#include <string>
#include <vector>

#include "testing/zip_test_archive.h"

namespace {

using turbozarr::zip::kMethodDeflated;
using turbozarr::zip::kMethodStored;
using turbozarr::zip::testing::BuildArchive;
using turbozarr::zip::testing::TestArchiveOptions;
using turbozarr::zip::testing::TestEntry;

const char kArrayJson[] =
    R"({"zarr_format":3,"node_type":"array","shape":[4],"data_type":"uint8",)"
    R"("chunk_grid":{"name":"regular","configuration":{"chunk_shape":[2]}},)"
    R"("chunk_key_encoding":{"name":"default"},"fill_value":0,"codecs":[{"name":"bytes"}]})";

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_zip_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  struct Seed {
    const char* name;
    std::vector<TestEntry> entries;
    TestArchiveOptions options;
  };
  const std::vector<TestEntry> stored = {
      {"zarr.json", kArrayJson}, {"c/0", "\x01\x02"}, {"c/1", "\x03\x04"}, {"empty", ""}};
  const std::vector<TestEntry> deflated = {{"zarr.json", kArrayJson, kMethodDeflated},
                                           {"c/0", std::string(64, 'a'), kMethodDeflated},
                                           {"c/1", "\x03\x04", kMethodStored, 8},
                                           {"d/", ""},
                                           {"c/2", "descriptor", kMethodDeflated, 8}};
  TestArchiveOptions zip64;
  zip64.force_zip64 = true;
  TestArchiveOptions comment;
  comment.comment = "an archive comment";
  comment.prefix = "#!stub\n";
  const std::vector<Seed> seeds = {{"stored.zip", stored, {}},
                                   {"deflated.zip", deflated, {}},
                                   {"zip64.zip", stored, zip64},
                                   {"zip64-deflated.zip", deflated, zip64},
                                   {"comment-prefix.zip", deflated, comment},
                                   {"empty.zip", {}, {}}};
  for (const Seed& seed : seeds) {
    const std::string path = dir + "/" + seed.name;
    turbozarr::zip::testing::WriteBytes(path, BuildArchive(seed.entries, seed.options));
  }
  std::printf("make_zip_seeds: wrote %zu seeds to %s\n", seeds.size(), dir.c_str());
  return 0;
}
