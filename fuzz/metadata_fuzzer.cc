// Fuzzes metadata parsing: bytes -> JSON -> v3 / v2 array metadata (and v3
// group metadata) -> codec chain. Parsing may fail (with a Status) but must
// not crash, hang or touch memory out of bounds. Metadata that parses must
// write back to a document that parses to the same thing, and its codec
// chain must round-trip a chunk of fill value when the chunk is small.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "turbozarr/codec.h"
#include "turbozarr/dtype.h"
#include "turbozarr/metadata.h"

namespace {

using json = nlohmann::json;
using turbozarr::ArrayMetadata;
using turbozarr::ChunkArray;
using turbozarr::CodecChain;
using turbozarr::Result;

constexpr int64_t kMaxChunkElements = 1 << 12;

void Fail(const char* what, const json& doc) {
  std::fprintf(stderr, "metadata_fuzzer: %s\n%s\n", what,
               turbozarr::DumpJsonDocument(doc, -1).c_str());
  std::abort();
}

json WriteBack(const ArrayMetadata& m) {
  return m.zarr_format == 3 ? turbozarr::ToV3Json(m) : turbozarr::ToV2ZarrayJson(m);
}

Result<ArrayMetadata> Reparse(const ArrayMetadata& m, const json& doc) {
  if (m.zarr_format == 3) return turbozarr::ParseV3ArrayMetadata(doc, "fuzz");
  return turbozarr::ParseV2ArrayMetadata(doc, m.attributes, "fuzz");
}

// Elements in one chunk, or -1 if more than kMaxChunkElements.
int64_t SmallChunkElements(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t extent : shape) {
    if (extent < 0 || (extent > 0 && n > kMaxChunkElements / extent)) return -1;
    n *= extent;
  }
  return n;
}

// Whether the document declares elements over 1 MiB each. Such types are
// valid (numpy allows 2^31 - 1 bytes), and parsing one allocates its fill
// value, and every copy of the metadata copies it: a single document would
// then spend the whole fuzzing memory budget without finding anything.
bool DeclaresHugeElements(const json& doc) {
  if (!doc.is_object()) return false;
  constexpr size_t kMaxElementBytes = size_t{1} << 20;
  if (auto it = doc.find("data_type"); it != doc.end()) {
    auto dtype = turbozarr::ParseV3DataType(*it);
    if (dtype.ok() && dtype->size() > kMaxElementBytes) return true;
  }
  if (auto it = doc.find("dtype"); it != doc.end() && it->is_string()) {
    auto dtype = turbozarr::ParseV2DataType(it->get_ref<const std::string&>());
    if (dtype.ok() && dtype->dtype.size() > kMaxElementBytes) return true;
  }
  return false;
}

void Exercise(const Result<ArrayMetadata>& parsed) {
  if (!parsed.ok()) return;
  const ArrayMetadata& m = *parsed;
  const json written = WriteBack(m);
  Result<ArrayMetadata> reparsed = Reparse(m, written);
  if (!reparsed.ok()) Fail("written metadata does not parse again", written);
  // Compared as the text written to zarr.json: JSON values compare NaN
  // (which documents may hold, as Python writes them) unequal to itself.
  if (turbozarr::DumpJsonDocument(WriteBack(*reparsed)) !=
      turbozarr::DumpJsonDocument(written))
    Fail("metadata changes when written twice", written);

  Result<CodecChain> chain = m.MakeCodecChain();
  if (!chain.ok()) return;
  const int64_t elements = SmallChunkElements(chain->spec().shape);
  // Bytes too: a chunk of few elements of a huge fixed-size type is large.
  if (elements < 0 ||
      static_cast<uint64_t>(elements) * chain->spec().dtype.size() > (uint64_t{1} << 20)) {
    return;
  }
  ChunkArray filled = ChunkArray::Filled(chain->spec());
  Result<turbozarr::Buffer> encoded = chain->Encode(filled);
  if (!encoded.ok()) return;  // e.g. a codec level the library refuses
  Result<ChunkArray> decoded = chain->Decode(*encoded);
  if (!decoded.ok()) Fail("an encoded chunk of fill value does not decode", written);
  if (!decoded->IsAll(chain->spec().fill_value)) {
    Fail("a chunk of fill value decodes to something else", written);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  turbozarr::ByteView bytes(reinterpret_cast<const std::byte*>(data), size);
  Result<turbozarr::JsonDocument> doc = turbozarr::ParseJsonDocument(bytes, "fuzz");
  if (!doc.ok() || DeclaresHugeElements(*doc)) return 0;
  Exercise(turbozarr::ParseV3ArrayMetadata(*doc, "fuzz"));
  Exercise(turbozarr::ParseV2ArrayMetadata(*doc, nullptr, "fuzz"));
  Result<turbozarr::GroupMetadata> group = turbozarr::ParseV3GroupMetadata(*doc, "fuzz");
  if (group.ok()) {
    json written = turbozarr::ToV3Json(*group);
    if (!turbozarr::ParseV3GroupMetadata(written, "fuzz").ok()) {
      Fail("written group metadata does not parse again", written);
    }
  }
  return 0;
}
