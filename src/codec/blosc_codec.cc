#include "codec/blosc_codec.h"

#include <blosc.h>

#include <algorithm>

#include "codec/blosc_frame.h"
#include "codec/raw_bytes.h"
#include "util/parallelism.h"

namespace turbozarr {
namespace {

constexpr const char* kShuffleNames[] = {"noshuffle", "shuffle", "bitshuffle"};

// Blosc compresses each block's streams separately, and none of its codecs
// turns 4 bytes into more than 128 KiB (zstd's bound; measured ratios top
// out near 18000 for all-zero input), so a header claiming more than this
// many decoded bytes per stored byte is corrupt and must not drive an
// allocation of up to 2 GiB.
constexpr uint64_t kMaxRatio = 1 << 16;

// Blosc starts its threads afresh in every _ctx call and splits a buffer
// between them by blocks (32 KiB to 512 KiB each), so a thread pays for
// itself only with a few blocks to work on: below this many bytes per thread
// the start-up costs more than the thread saves (see BloscThreads).
constexpr size_t kMinBytesPerThread = size_t{1} << 20;

// blosc's internal threads for one call on `nbytes` decoded bytes: the
// caller's codec budget (util/parallelism.h), fewer for small buffers.
int BloscThreads(size_t nbytes) {
  const size_t useful = std::max<size_t>(1, nbytes / kMinBytesPerThread);
  return static_cast<int>(std::min<size_t>(useful, static_cast<size_t>(CodecThreads())));
}

int ItemSize(const ArraySpec& spec) {
  return spec.dtype.is_variable_length() ? 1 : static_cast<int>(spec.dtype.size());
}

// Shared checks and fields of both spellings; `shuffle` and `typesize` are
// resolved by the callers.
Status ReadCommon(internal::CodecConfig& config, BloscCodec::Options* o) {
  TZ_ASSIGN_OR_RETURN(o->cname, config.String("cname", "zstd"));
  if (blosc_compname_to_compcode(o->cname.c_str()) < 0) {
    return config.Invalid("cname", "\"" + o->cname + "\" is not one of this blosc's " +
                                       "compressors (" + blosc_list_compressors() + ")");
  }
  TZ_ASSIGN_OR_RETURN(int64_t clevel, config.Int("clevel", 5));
  if (clevel < 0 || clevel > 9) {
    return config.Invalid("clevel", "must be in [0, 9], got " + std::to_string(clevel));
  }
  o->clevel = static_cast<int>(clevel);
  TZ_ASSIGN_OR_RETURN(int64_t blocksize, config.Int("blocksize", 0));
  if (blocksize < 0 || blocksize > BLOSC_MAX_BUFFERSIZE) {
    return config.Invalid("blocksize", "must be in [0, " +
                                           std::to_string(BLOSC_MAX_BUFFERSIZE) +
                                           "], got " + std::to_string(blocksize));
  }
  o->blocksize = static_cast<size_t>(blocksize);
  return Status::OK();
}

Status CheckTypesize(internal::CodecConfig& config, int64_t typesize) {
  if (typesize < 1 || typesize > (1 << 30)) {
    return config.Invalid("typesize",
                          "must be positive, got " + std::to_string(typesize));
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const BloscCodec>> BloscCodec::Make(internal::CodecConfig& config,
                                                           const ArraySpec& spec) {
  Options o;
  TZ_RETURN_NOT_OK(ReadCommon(config, &o));
  TZ_ASSIGN_OR_RETURN(int64_t typesize, config.Int("typesize", ItemSize(spec)));
  TZ_RETURN_NOT_OK(CheckTypesize(config, typesize));
  o.typesize = static_cast<int>(typesize);
  nlohmann::json shuffle = config.Raw("shuffle");
  if (shuffle.is_null()) {
    o.shuffle = ItemSize(spec) == 1 ? Shuffle::kBitShuffle : Shuffle::kShuffle;
  } else if (shuffle == "noshuffle") {
    o.shuffle = Shuffle::kNoShuffle;
  } else if (shuffle == "shuffle") {
    o.shuffle = Shuffle::kShuffle;
  } else if (shuffle == "bitshuffle") {
    o.shuffle = Shuffle::kBitShuffle;
  } else {
    return config.Invalid("shuffle",
                          "expected \"noshuffle\", \"shuffle\" or \"bitshuffle\", "
                          "got " +
                              shuffle.dump());
  }
  TZ_RETURN_NOT_OK(config.Finish());
  const int as_int = static_cast<int>(o.shuffle);
  return std::make_shared<const BloscCodec>(std::move(o), Spelling::kV3, as_int, false);
}

Result<std::shared_ptr<const BloscCodec>> BloscCodec::MakeNumcodecs(
    internal::CodecConfig& config, const ArraySpec& spec, bool in_v3_array) {
  Options o;
  TZ_RETURN_NOT_OK(ReadCommon(config, &o));
  const bool has_typesize = config.Has("typesize");
  TZ_ASSIGN_OR_RETURN(int64_t typesize,
                      config.Int("typesize", in_v3_array ? 1 : ItemSize(spec)));
  TZ_RETURN_NOT_OK(CheckTypesize(config, typesize));
  o.typesize = static_cast<int>(typesize);
  TZ_ASSIGN_OR_RETURN(int64_t shuffle, config.Int("shuffle", 1));
  if (shuffle < -1 || shuffle > 2) {
    return config.Invalid("shuffle",
                          "expected -1, 0, 1 or 2, got " + std::to_string(shuffle));
  }
  if (shuffle == -1) {
    o.shuffle = o.typesize == 1 ? Shuffle::kBitShuffle : Shuffle::kShuffle;
  } else {
    o.shuffle = static_cast<Shuffle>(shuffle);
  }
  TZ_RETURN_NOT_OK(config.Finish());
  return std::make_shared<const BloscCodec>(
      std::move(o), in_v3_array ? Spelling::kNumcodecsV3 : Spelling::kV2,
      static_cast<int>(shuffle), has_typesize);
}

nlohmann::json BloscCodec::ToJson() const {
  if (spelling_ == Spelling::kNumcodecsV3) return internal::NumcodecsV3Json(ToV2Json());
  return {{"name", "blosc"},
          {"configuration",
           {{"typesize", o_.typesize},
            {"cname", o_.cname},
            {"clevel", o_.clevel},
            {"shuffle", kShuffleNames[static_cast<int>(o_.shuffle)]},
            {"blocksize", o_.blocksize}}}};
}

nlohmann::json BloscCodec::ToV2Json() const {
  nlohmann::json j = {{"id", "blosc"},
                      {"cname", o_.cname},
                      {"clevel", o_.clevel},
                      {"shuffle", numcodecs_shuffle_},
                      {"blocksize", o_.blocksize}};
  if (numcodecs_typesize_) j["typesize"] = o_.typesize;
  return j;
}

Result<Buffer> BloscCodec::Encode(ByteView decoded) const {
  if (decoded.size() > static_cast<size_t>(BLOSC_MAX_BUFFERSIZE)) {
    return Status::InvalidArgument("codec blosc: " + std::to_string(decoded.size()) +
                                   " bytes exceed blosc's limit of " +
                                   std::to_string(BLOSC_MAX_BUFFERSIZE));
  }
  Buffer out(decoded.size() + BLOSC_MAX_OVERHEAD);
  const int n = blosc_compress_ctx(
      o_.clevel, static_cast<int>(o_.shuffle), static_cast<size_t>(o_.typesize),
      decoded.size(), decoded.data(), out.data(), out.size(), o_.cname.c_str(),
      o_.blocksize, BloscThreads(decoded.size()));
  if (n <= 0) {
    return Status::IOError("codec blosc: compression failed (error " + std::to_string(n) +
                           ")");
  }
  out.Resize(static_cast<size_t>(n));
  return out;
}

// Validates blosc's header against the data (and the expected size, when
// known) and returns the decoded size it records.
Result<std::optional<size_t>> BloscCodec::DecodedSize(
    ByteView encoded, std::optional<size_t> expected_size) const {
  if (encoded.size() < BLOSC_MIN_HEADER_LENGTH) {
    return Status::Corruption("codec blosc: " + std::to_string(encoded.size()) +
                              " bytes cannot hold the 16-byte header");
  }
  size_t nbytes = 0;
  if (blosc_cbuffer_validate(encoded.data(), encoded.size(), &nbytes) != 0) {
    size_t cbytes = 0, blocksize = 0;
    blosc_cbuffer_sizes(encoded.data(), &nbytes, &cbytes, &blocksize);
    return Status::Corruption("codec blosc: header says " + std::to_string(cbytes) +
                              " compressed bytes and " + std::to_string(nbytes) +
                              " decoded bytes; the data has " +
                              std::to_string(encoded.size()) + " bytes");
  }
  if (expected_size && nbytes != *expected_size) {
    return Status::Corruption("codec blosc: header says " + std::to_string(nbytes) +
                              " decoded bytes, expected " +
                              std::to_string(*expected_size));
  }
  const bool memcpyed = (static_cast<uint8_t>(encoded[2]) & BLOSC_MEMCPYED) != 0;
  if ((memcpyed && nbytes + BLOSC_MAX_OVERHEAD != encoded.size()) ||
      nbytes > encoded.size() * kMaxRatio) {
    return Status::Corruption(
        "codec blosc: header claims " + std::to_string(nbytes) + " decoded bytes from " +
        std::to_string(encoded.size()) +
        (memcpyed ? " stored raw" : ", more than blosc can encode"));
  }
  return std::optional<size_t>(nbytes);
}

Status BloscCodec::DecompressInto(ByteView encoded, MutableByteView out,
                                  bool /*caller_size*/) const {
  if (out.empty()) return Status::OK();
  if (internal::IsBitshuffledBytesFrame(encoded)) {
    return internal::DecodeBitshuffledBytes(encoded, out, BloscThreads(out.size()));
  }
  const int n = blosc_decompress_ctx(encoded.data(), out.data(), out.size(),
                                     BloscThreads(out.size()));
  if (n <= 0 || static_cast<size_t>(n) != out.size()) {
    return Status::Corruption("codec blosc: corrupt data (blosc error " +
                              std::to_string(n) + ")");
  }
  return Status::OK();
}

}  // namespace turbozarr
