// Codecs: how a chunk's elements become stored bytes and back.
//
// A chain is zero or more array->array codecs (transpose), exactly one
// array->bytes codec (bytes, vlen-utf8, vlen-bytes, sharding_indexed), then
// zero or more bytes->bytes codecs (blosc, gzip, zstd, crc32c, ...). Encoding
// runs the chain forwards, decoding backwards.
//
// Codecs are immutable values built from JSON by the registry; a codec never
// starts threads of its own, so every method may be called from many threads
// at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "turbozarr/buffer.h"
#include "turbozarr/dtype.h"
#include "turbozarr/status.h"

namespace turbozarr {

// What a codec is told about the array it is coding: one chunk's shape, the
// element type and the fill value.
struct ArraySpec {
  std::vector<int64_t> shape;
  DataType dtype;
  FillValue fill_value;
  int64_t num_elements() const;
};

// One chunk's decoded elements, C order, native byte order.
struct ChunkArray {
  std::vector<int64_t> shape;
  DataType dtype;
  Buffer bytes;                      // fixed-size types: num_elements * dtype.size()
  std::vector<std::string> strings;  // variable-length types: one per element

  int64_t num_elements() const;
  // A chunk of `spec.shape` where every element is the fill value.
  static ChunkArray Filled(const ArraySpec& spec);
  // True when every element equals `fill`.
  bool IsAll(const FillValue& fill) const;
};

enum class CodecKind { kArrayToArray, kArrayToBytes, kBytesToBytes };

class Codec {
 public:
  virtual ~Codec() = default;
  virtual CodecKind kind() const = 0;
  // The v3 codec name, e.g. "zstd".
  virtual std::string name() const = 0;
  // {"name": ..., "configuration": {...}} as written to zarr.json.
  virtual nlohmann::json ToJson() const = 0;
};

class ArrayToArrayCodec : public Codec {
 public:
  CodecKind kind() const final { return CodecKind::kArrayToArray; }
  // The spec of the encoded array given the decoded one.
  virtual Result<ArraySpec> EncodedSpec(const ArraySpec& decoded) const = 0;
  virtual Result<ChunkArray> Encode(ChunkArray decoded) const = 0;
  // `decoded` is the spec to restore.
  virtual Result<ChunkArray> Decode(ChunkArray encoded, const ArraySpec& decoded) const = 0;
};

// The capability methods below (with defaults that are always correct, if
// slower) let a chain take its fast paths for any codec that has the
// property, rather than for codecs it knows by type.
class ArrayToBytesCodec : public Codec {
 public:
  CodecKind kind() const final { return CodecKind::kArrayToBytes; }
  virtual Result<Buffer> Encode(const ChunkArray& array, const ArraySpec& spec) const = 0;
  virtual Result<ChunkArray> Decode(ByteView bytes, const ArraySpec& spec) const = 0;
  // The encoded size when it depends only on the spec (the bytes codec), so
  // bytes->bytes codecs can be told what to expect.
  virtual std::optional<size_t> EncodedSize(const ArraySpec& spec) const { return std::nullopt; }

  // Encode and Decode taking ownership of their input, so that a codec that
  // keeps the bytes (the bytes codec) hands the buffer on, swapping in place
  // if needed, instead of copying every chunk once more. The defaults copy.
  virtual Result<Buffer> EncodeOwned(ChunkArray array, const ArraySpec& spec) const {
    return Encode(array, spec);
  }
  virtual Result<ChunkArray> DecodeOwned(Buffer bytes, const ArraySpec& spec) const {
    return Decode(bytes.view(), spec);
  }
  // True when, for fixed-size types, the stored bytes are the chunk's
  // C-order elements up to byte order (the bytes codec), so that a chain can
  // decode into and encode from caller memory without this codec.
  virtual bool StoresElements() const { return false; }
  // With StoresElements: true when the stored bytes of `dtype` are in the
  // other byte order than this machine's and must be swapped.
  virtual bool NeedsSwap(const DataType& dtype) const { return false; }
};

class BytesToBytesCodec : public Codec {
 public:
  CodecKind kind() const final { return CodecKind::kBytesToBytes; }
  virtual Result<Buffer> Encode(ByteView decoded) const = 0;
  // `expected_size`, when known, is the decoded size; a codec may use it to
  // allocate once and must fail with Corruption if the result differs.
  virtual Result<Buffer> Decode(ByteView encoded,
                                std::optional<size_t> expected_size) const = 0;
  // Decodes into `out`, whose size is the decoded size the caller expects, so
  // that a chunk can land straight in its final place. Corruption if the data
  // decodes to another size; never writes past `out` (on failure its contents
  // are unspecified). The default decodes into a fresh buffer and copies;
  // codecs override it to decompress in place.
  virtual Status DecodeInto(ByteView encoded, MutableByteView out) const;
  // The encoded size given the decoded one, when fixed (crc32c adds 4).
  virtual std::optional<size_t> EncodedSize(size_t decoded) const { return std::nullopt; }

  // True when DecodeInto really decompresses into `out` (rather than the
  // default's decode and copy), so that a chain hands it the caller's memory.
  virtual bool DecodesIntoCallerMemory() const { return false; }
  // True for a checksum: the encoded bytes are the decoded ones plus a sum,
  // and Verify strips it without copying.
  virtual bool IsChecksum() const { return false; }
  // For a checksum, checks the sum of `encoded` and returns the payload as a
  // view of `encoded` (Corruption on a mismatch). The default, for codecs
  // that are not checksums, is InvalidArgument.
  virtual Result<ByteView> Verify(ByteView encoded) const;
  // True when the encoded bytes are the decoded ones with something appended
  // (a checksum kept after its payload), so that a chain encodes with
  // EncodeAppend on the buffer it holds instead of copying into a new one.
  virtual bool EncodesByAppending() const { return false; }
  // Turns `bytes` into its encoding by appending to it; the result equals
  // Encode(bytes). REQUIRES: EncodesByAppending() (the default aborts).
  virtual void EncodeAppend(Buffer& bytes) const;
};

// The ordered codecs of one array, bound to its chunk spec.
class CodecChain {
 public:
  CodecChain() = default;
  // Builds from a v3 "codecs" list for chunks described by `spec`.
  static Result<CodecChain> FromJson(const nlohmann::json& codecs, const ArraySpec& spec);
  static Result<CodecChain> Make(std::vector<std::shared_ptr<const ArrayToArrayCodec>> a2a,
                                 std::shared_ptr<const ArrayToBytesCodec> a2b,
                                 std::vector<std::shared_ptr<const BytesToBytesCodec>> b2b,
                                 const ArraySpec& spec);

  Result<Buffer> Encode(ChunkArray chunk) const;

  // True when EncodeFrom can encode a chunk straight from its elements in
  // caller memory (the same chains as CanDecodeInto).
  bool CanEncodeFrom() const { return decode_into_; }
  // Encodes one chunk from `elements`, its C-order elements in native byte
  // order (exactly the chunk's size in bytes), without copying them into a
  // ChunkArray first. The result is a view of `elements` itself when no codec
  // changes the bytes (the bytes codec in native order and nothing after
  // it), else a view of `storage`, which then holds the encoded bytes; the
  // result lives as long as both. The bytes equal Encode's for the same
  // chunk. REQUIRES: CanEncodeFrom() (else InvalidArgument).
  Result<ByteView> EncodeFrom(ByteView elements, Buffer& storage) const;
  // Checks that the result has the spec's shape and size (else Corruption).
  Result<ChunkArray> Decode(ByteView bytes) const;

  // True when DecodeInto can place a chunk's elements in caller memory: a
  // fixed-size type, no array->array codecs and an array->bytes codec that
  // StoresElements (bytes), so that the stored payload is the chunk's C-order
  // elements up to byte order.
  bool CanDecodeInto() const { return decode_into_; }
  // Decodes one chunk into `out` (C order, native byte order), which must be
  // exactly the chunk's size in bytes: checksums are verified in place, the
  // decompressor next to the bytes codec writes into `out` when it
  // DecodesIntoCallerMemory (else its output, or with none the payload, is
  // copied), and big-endian storage is swapped in place. Errors as
  // Decode (Corruption for bad data); never writes past `out`, whose
  // contents are unspecified after a failure.
  // REQUIRES: CanDecodeInto() (else InvalidArgument).
  Status DecodeInto(ByteView bytes, MutableByteView out) const;

  // True when the stored payload is the chunk's elements unchanged: the
  // bytes codec in native byte order, with at most checksums (IsChecksum)
  // after it. Then
  // a partial read can copy elements straight out of the stored bytes.
  bool StoresRawElements() const;
  // The chunk's elements as a view of `bytes`, checksums verified; errors
  // as Decode. REQUIRES: StoresRawElements() (else InvalidArgument).
  Result<ByteView> RawElements(ByteView bytes) const;
  // Bytes stored after the elements when the chain is the bytes codec and one
  // checksum kept after its payload (bytes + crc32c): 4; else 0. Such a chunk's
  // elements can be read straight into the caller's memory and the sum beside
  // them, then checked by VerifyTrailingChecksum.
  size_t TrailingChecksumBytes() const;
  // Checks `sum` (the TrailingChecksumBytes() stored after them) against
  // `elements` held elsewhere: Corruption naming the codec when they differ.
  // REQUIRES: TrailingChecksumBytes() > 0 (else InvalidArgument).
  Status VerifyTrailingChecksum(ByteView elements, ByteView sum) const;

  const ArraySpec& spec() const { return spec_; }
  nlohmann::json ToJson() const;
  const std::vector<std::shared_ptr<const ArrayToArrayCodec>>& array_to_array() const {
    return a2a_;
  }
  const std::shared_ptr<const ArrayToBytesCodec>& array_to_bytes() const { return a2b_; }
  const std::vector<std::shared_ptr<const BytesToBytesCodec>>& bytes_to_bytes() const {
    return b2b_;
  }
  // The encoded size when fixed (no compression), for shard index sizing.
  std::optional<size_t> EncodedSize() const;

 private:
  // Corruption unless `got` is the decoded chunk's size in bytes.
  Status CheckChunkBytes(size_t got) const;
  // InvalidArgument unless the chain can `action` ("decode into") caller
  // memory and `size` is one chunk's bytes; `what` names the buffer.
  Status CheckCallerMemory(size_t size, std::string_view action,
                           std::string_view what) const;
  // Runs the bytes->bytes decoders from the last down to b2b_[first], each
  // told its decoded size when the chain fixes it. Checksums are verified in
  // place; the result is a view of `bytes` or of `scratch`.
  Result<ByteView> DecodeBytesDownTo(ByteView bytes, size_t first, Buffer& scratch) const;

  ArraySpec spec_;
  std::vector<ArraySpec> a2a_specs_;  // spec fed to each array->array codec
  ArraySpec a2b_spec_;                // spec fed to the array->bytes codec
  std::vector<std::shared_ptr<const ArrayToArrayCodec>> a2a_;
  std::shared_ptr<const ArrayToBytesCodec> a2b_;
  std::vector<std::shared_ptr<const BytesToBytesCodec>> b2b_;
  // b2b_sizes_[k]: the decoded size of b2b_[k] when every codec before it
  // fixes its output size (the bytes codec, crc32c), else nullopt.
  std::vector<std::optional<size_t>> b2b_sizes_;
  bool decode_into_ = false;
};

// Builds one codec from its v3 JSON ({"name":..., "configuration":...}) for
// arrays described by `spec` (the spec that codec will be handed). Unknown
// names give Unsupported naming the codec.
Result<std::shared_ptr<const Codec>> MakeCodec(const nlohmann::json& j, const ArraySpec& spec);

// Builds one codec from a v2 (numcodecs) compressor or filter JSON
// ({"id": "blosc", ...}). Unknown ids give Unsupported naming the codec.
Result<std::shared_ptr<const Codec>> MakeV2Codec(const nlohmann::json& j, const ArraySpec& spec);

// The numcodecs JSON of a codec made by MakeV2Codec (for writing .zarray).
Result<nlohmann::json> ToV2Json(const Codec& codec);

// `codec` with the configuration zarr-python writes for it in new array
// metadata, for arrays of `itemsize`-byte elements: for zarr_format 3 a v3
// codec ({"name": ...}) with the fields it leaves out filled in (blosc's
// typesize and shuffle follow the item size) and an empty configuration
// dropped; for 2 a numcodecs codec ({"id": ...}) over numcodecs' defaults.
// Codecs the library does not know keep their fields. InvalidArgument when
// `codec` is not such an object. Key order is kept, as Python writes it.
Result<nlohmann::ordered_json> CompleteCodecJson(const nlohmann::ordered_json& codec,
                                                 size_t itemsize, int zarr_format);

// The codec table, one object per codec the library knows, in the table's
// order: {"name": v3 name or null, "numcodecs_id": id or null,
// "numcodecs_in_v3": bool, "kind": "array->array" | "array->bytes" |
// "bytes->bytes", "v3_defaults": {...}, "numcodecs_defaults": {...},
// "shorthand": bool}, for bindings and tools that build metadata.
nlohmann::ordered_json CodecTableJson();

// The bytes->bytes codec a command-line shorthand names, for an array of
// `dtype`: "zstd:3", "gzip:6", "blosc:lz4:5:shuffle", "lz4", "zlib:6",
// "bz2:9", "crc32c" (each argument optional) as completed v3 JSON for
// zarr_format 3 or numcodecs JSON for 2; null JSON for "none".
// InvalidArgument for anything else, naming the shorthands there are.
Result<nlohmann::json> CodecFromShorthand(std::string_view text, const DataType& dtype,
                                          int zarr_format);

}  // namespace turbozarr
