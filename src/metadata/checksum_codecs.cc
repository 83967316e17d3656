// Which codec chains carry a checksum that every reader verifies, and how
// one is added (include/turbozarr/metadata.h: HasChecksum, AddChecksum).
//
// A chain is checked when one of its bytes->bytes codecs holds a check of
// the chunk's bytes that decoding verifies: the checksum codecs (crc32c and
// numcodecs' crc32, crc32c, adler32, fletcher32), zstd with its content
// checksum, and the compressors whose format carries one (gzip's CRC-32,
// zlib's Adler-32, bz2's block CRCs). A check anywhere in the chain covers
// the codecs after it too: damaged bytes that a later codec still decodes
// reach the check as other bytes, and the check fails. Blosc, lz4 and lzma
// in numcodecs' configurations carry none that turbozarr verifies.
//
// What is added (docs/guarantees.md, "Checksums"): a v3 array gets a crc32c
// codec last in its chunks' chain (its inner chunks' for a sharded array,
// whose index carries crc32c already), which zarr-python, TensorStore and
// zarrs all read; a v2 array with zstd gets zstd's content checksum, and
// any other v2 array numcodecs' crc32c as its last filter.
#include <string>

#include "turbozarr/checksum.h"

namespace turbozarr {
namespace {

using nlohmann::json;

std::string V3Name(const json& codec) {
  if (codec.is_string()) return codec.get<std::string>();
  if (!codec.is_object()) return "";
  auto it = codec.find("name");
  return it != codec.end() && it->is_string() ? it->get<std::string>() : "";
}

const json* Configuration(const json& codec) {
  if (!codec.is_object()) return nullptr;
  auto it = codec.find("configuration");
  return it != codec.end() && it->is_object() ? &*it : nullptr;
}

bool ZstdChecksumOn(const json* config) {
  if (config == nullptr) return false;
  auto it = config->find("checksum");
  return it != config->end() && it->is_boolean() && it->get<bool>();
}

// Whether the codec `name` (a v3 name without "numcodecs.", or a v2 id)
// with `config` verifies the bytes it decodes.
bool Verifies(std::string name, const json* config) {
  if (name.rfind("numcodecs.", 0) == 0) name.erase(0, 10);
  if (name == "zstd") return ZstdChecksumOn(config);
  return name == "crc32c" || name == "crc32" || name == "adler32" ||
         name == "fletcher32" || name == "gzip" || name == "zlib" || name == "bz2";
}

// The sharding codec's configuration in a v3 chain, or null.
json* ShardingConfiguration(json& codecs) {
  for (json& c : codecs) {
    if (V3Name(c) == "sharding_indexed" && c.is_object()) {
      auto it = c.find("configuration");
      return it != c.end() && it->is_object() ? &*it : nullptr;
    }
  }
  return nullptr;
}

bool V3ChainChecked(const json& codecs) {
  if (!codecs.is_array()) return false;
  for (const json& c : codecs) {
    const std::string name = V3Name(c);
    if (name == "sharding_indexed") {
      const json* config = Configuration(c);
      if (config == nullptr) return false;
      auto inner = config->find("codecs");
      return inner != config->end() && V3ChainChecked(*inner);
    }
    if (Verifies(name, Configuration(c))) return true;
  }
  return false;
}

void AddToV3Chain(json& codecs) {
  if (V3ChainChecked(codecs)) return;
  if (json* sharding = ShardingConfiguration(codecs)) {
    json& inner = (*sharding)["codecs"];
    if (!inner.is_array()) inner = json::array({{{"name", "bytes"}}});
    AddToV3Chain(inner);
    return;
  }
  codecs.push_back({{"name", "crc32c"}});
}

std::string V2Id(const json& codec) {
  auto it = codec.is_object() ? codec.find("id") : codec.end();
  return it != codec.end() && it->is_string() ? it->get<std::string>() : "";
}

bool V2Checked(const ArrayMetadata& m) {
  if (m.v2_compressor.is_object() && Verifies(V2Id(m.v2_compressor), &m.v2_compressor)) {
    return true;
  }
  if (!m.v2_filters.is_array()) return false;
  for (const json& f : m.v2_filters) {
    if (Verifies(V2Id(f), &f)) return true;
  }
  return false;
}

}  // namespace

bool HasChecksum(const ArrayMetadata& metadata) {
  if (metadata.zarr_format == 2) return V2Checked(metadata);
  return V3ChainChecked(metadata.codecs);
}

void AddChecksum(ArrayMetadata& metadata) {
  if (metadata.zarr_format != 2) {
    AddToV3Chain(metadata.codecs);
    return;
  }
  if (V2Checked(metadata)) return;
  if (V2Id(metadata.v2_compressor) == "zstd") {
    metadata.v2_compressor["checksum"] = true;
    return;
  }
  if (!metadata.v2_filters.is_array()) metadata.v2_filters = json::array();
  metadata.v2_filters.push_back({{"id", "crc32c"}, {"location", "end"}});
}

}  // namespace turbozarr
