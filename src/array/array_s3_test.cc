// Arrays written through the S3 store to moto's S3 server: the same objects
// byte for byte as the same writes to a memory store, the same values read
// back (v3, v2, sharded), and interchange with zarr-python, which reads what
// turbozarr wrote and writes an array turbozarr reads (through obstore).
#include <gtest/gtest.h>
#include <stdio.h>
#include <sys/wait.h>

#include <atomic>

#include "testing/moto_server.h"
#include "turbozarr/array.h"
#include "turbozarr/remote_store.h"

namespace turbozarr {
namespace {

using nlohmann::json;

const json kZstd = {{"name", "zstd"},
                    {"configuration", {{"level", 1}, {"checksum", false}}}};
const json kBytes = {{"name", "bytes"}, {"configuration", {{"endian", "little"}}}};
const json kCrc = {{"name", "crc32c"}};

ArrayMetadata Int32Metadata(int format, std::vector<int64_t> shape,
                            std::vector<int64_t> chunks, json codecs) {
  ArrayMetadata m;
  m.zarr_format = format;
  m.shape = std::move(shape);
  m.chunk_shape = std::move(chunks);
  m.dtype = DataType(DataTypeId::kInt32);
  m.fill_value = DefaultFillValue(m.dtype);
  if (format == 3) {
    m.codecs = std::move(codecs);
  } else {
    m.chunk_key_encoding = {ChunkKeyEncoding::Kind::kV2, '.'};
    m.v2_compressor = std::move(codecs);
  }
  return m;
}

json Sharded(std::vector<int64_t> inner) {
  return json::array({{{"name", "sharding_indexed"},
                       {"configuration",
                        {{"chunk_shape", inner},
                         {"codecs", json::array({kBytes, kZstd})},
                         {"index_codecs", json::array({kBytes, kCrc})},
                         {"index_location", "end"}}}}});
}

// The values every array here holds, also computed by the Python side:
// element (i, j) is (i * 131 + j * 7) % 1000.
std::vector<int32_t> Pattern(int64_t rows, int64_t cols) {
  std::vector<int32_t> v(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      v[static_cast<size_t>(i * cols + j)] =
          static_cast<int32_t>((i * 131 + j * 7) % 1000);
    }
  }
  return v;
}

struct Layout {
  std::string path;
  ArrayMetadata metadata;
};

std::vector<Layout> Layouts() {
  return {{"v3", Int32Metadata(3, {300, 200}, {64, 50}, json::array({kBytes, kZstd}))},
          {"v2", Int32Metadata(2, {130, 70}, {40, 40}, {{"id", "zstd"}, {"level", 1}})},
          {"sharded", Int32Metadata(3, {256, 192}, {128, 96}, Sharded({32, 32}))}};
}

class ArrayOverS3Test : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<MotoServer*> moto = SharedMoto();
    ASSERT_TRUE(moto.ok()) << moto.status().ToString();
    moto_ = *moto;
    static std::atomic<int> n{0};
    bucket_ = FreshBucketName();
    ASSERT_TRUE(moto_->CreateBucket(bucket_).ok());
    prefix_ = "data/t" + std::to_string(n++);
    auto s3 = MakeS3Store(bucket_, prefix_, moto_->Options());
    ASSERT_TRUE(s3.ok()) << s3.status().ToString();
    s3_ = *s3;
  }

  void WriteAll(const std::shared_ptr<Store>& store) {
    for (const Layout& l : Layouts()) {
      auto a = Array::Create(store, l.path, l.metadata);
      ASSERT_TRUE(a.ok()) << l.path << ": " << a.status().ToString();
      std::vector<int32_t> v = Pattern(l.metadata.shape[0], l.metadata.shape[1]);
      Status s = (*a)->Write(Selection::All(l.metadata.shape), v.data());
      ASSERT_TRUE(s.ok()) << l.path << ": " << s.ToString();
    }
  }

  // Runs `script` with the moto Python; answers its output, or fails the test.
  std::string RunPython(const std::string& script) {
    const S3Options o = moto_->Options();
    std::string cmd = "'" + moto_->python() + "' -c '" + script + "' '" + o.endpoint +
                      "' '" + bucket_ + "' '" + prefix_ + "' '" + o.access_key_id +
                      "' '" + o.secret_access_key + "' 2>&1";
    FILE* p = ::popen(cmd.c_str(), "r");
    if (p == nullptr) {
      ADD_FAILURE() << "popen failed";
      return "";
    }
    std::string out;
    char buf[4096];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
    const int status = ::pclose(p);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << out;
    return out;
  }

  MotoServer* moto_ = nullptr;
  std::string bucket_;
  std::string prefix_;
  std::shared_ptr<Store> s3_;
};

TEST_F(ArrayOverS3Test, WritesTheSameObjectsAndReadsTheSameValues) {
  std::shared_ptr<Store> memory = MakeMemoryStore();
  WriteAll(memory);
  WriteAll(s3_);
  auto want_keys = memory->List("");
  auto got_keys = s3_->List("");
  ASSERT_TRUE(want_keys.ok() && got_keys.ok()) << got_keys.status().ToString();
  EXPECT_EQ(*got_keys, *want_keys);
  std::vector<KeyRange> reads;
  for (const std::string& k : *want_keys) reads.push_back({k, ByteRange::Full()});
  auto want = memory->GetMany(reads);
  auto got = s3_->GetMany(reads);
  ASSERT_TRUE(want.ok() && got.ok()) << got.status().ToString();
  for (size_t i = 0; i < reads.size(); ++i) {
    ASSERT_TRUE((*got)[i].has_value()) << reads[i].key;
    EXPECT_TRUE(*(*got)[i] == *(*want)[i]) << reads[i].key;
  }

  for (const Layout& l : Layouts()) {
    SCOPED_TRACE(l.path);
    const std::vector<int64_t>& shape = l.metadata.shape;
    auto a = Array::Open(s3_, l.path);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    const std::vector<int32_t> all = Pattern(shape[0], shape[1]);
    std::vector<int32_t> out(all.size(), -1);
    ASSERT_TRUE((*a)->Read(Selection::All(shape), out).ok());
    EXPECT_TRUE(out == all);
    // A strided corner: partial chunks and, for the sharded array, partial shards.
    const Selection sel({{3, shape[0] - 5, 7}, {1, shape[1], 3}});
    std::vector<int32_t> part(static_cast<size_t>(sel.num_elements()), -1);
    ASSERT_TRUE((*a)->Read(sel, part).ok());
    size_t k = 0;
    bool same = true;
    for (int64_t i = 3; i < shape[0] - 5; i += 7) {
      for (int64_t j = 1; j < shape[1]; j += 3) {
        same &= part[k++] == all[static_cast<size_t>(i * shape[1] + j)];
      }
    }
    EXPECT_TRUE(same && k == part.size());
  }
}

// zarr-python (through obstore's S3 client) reads the three arrays turbozarr
// wrote and writes one for turbozarr to read. (No single quote in it: the
// shell hands it over inside single quotes.)
constexpr char kZarrPython[] = R"(
import sys
import numpy as np
import zarr
from obstore.store import S3Store
from zarr.storage import ObjectStore
endpoint, bucket, prefix, key, secret = sys.argv[1:6]
s3 = S3Store(bucket, prefix=prefix, endpoint=endpoint, region="us-east-1",
             access_key_id=key, secret_access_key=secret,
             virtual_hosted_style_request=False, client_options={"allow_http": True})
store = ObjectStore(s3)
for name, shape in [("v3", (300, 200)), ("v2", (130, 70)), ("sharded", (256, 192))]:
    a = zarr.open_array(store, path=name, mode="r")
    want = np.fromfunction(lambda i, j: (i * 131 + j * 7) % 1000, shape, dtype=np.int64)
    assert a.shape == shape, (name, a.shape)
    assert a.dtype == np.int32, (name, a.dtype)
    assert np.array_equal(a[...], want.astype(np.int32)), name
    print("read", name)
b = zarr.create_array(store, name="from_python", shape=(50, 40), chunks=(16, 16),
                      shards=(32, 32), dtype="int32", fill_value=0)
b[...] = np.arange(2000, dtype=np.int32).reshape(50, 40)
print("wrote from_python")
# Leave without the interpreter teardown: the obstore runtime threads now and
# then abort the process while it shuts down, after everything above is done.
import os
sys.stdout.flush()
os._exit(0)
)";

TEST_F(ArrayOverS3Test, ZarrPythonReadsWhatTurbozarrWroteAndTheOtherWayRound) {
  WriteAll(s3_);
  const std::string out = RunPython(kZarrPython);
  for (const char* name : {"read v3", "read v2", "read sharded", "wrote from_python"}) {
    EXPECT_NE(out.find(name), std::string::npos) << out;
  }
  auto a = Array::Open(s3_, "from_python");
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  std::vector<int32_t> got(2000, -1);
  ASSERT_TRUE((*a)->Read(Selection::All({50, 40}), got).ok());
  bool same = true;
  for (int i = 0; i < 2000; ++i) same &= got[static_cast<size_t>(i)] == i;
  EXPECT_TRUE(same);
}

}  // namespace
}  // namespace turbozarr
