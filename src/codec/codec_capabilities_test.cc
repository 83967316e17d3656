// The chain's fast paths follow the codecs' capability methods, not their
// types: codecs written here, unknown to the chain, take the same routes as
// bytes, crc32c and the compressors.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>

#include "codec/bytes_codec.h"
#include "testing/codec_fixtures.h"
#include "turbozarr/codec.h"

namespace turbozarr {
namespace {

using testing::MakeSpec;

// A checksum of one byte (the sum of the payload's bytes) put in front.
class SumCodec final : public BytesToBytesCodec {
 public:
  std::string name() const override { return "test.sum"; }
  nlohmann::json ToJson() const override { return {{"name", name()}}; }
  Result<Buffer> Encode(ByteView decoded) const override {
    Buffer out(decoded.size() + 1);
    out.data()[0] = Sum(decoded);
    if (!decoded.empty()) std::memcpy(out.data() + 1, decoded.data(), decoded.size());
    return out;
  }
  Result<Buffer> Decode(ByteView encoded, std::optional<size_t>) const override {
    TZ_ASSIGN_OR_RETURN(ByteView payload, Verify(encoded));
    return Buffer(payload);
  }
  std::optional<size_t> EncodedSize(size_t decoded) const override { return decoded + 1; }
  bool IsChecksum() const override { return true; }
  Result<ByteView> Verify(ByteView encoded) const override {
    if (encoded.empty() || encoded[0] != Sum(encoded.subspan(1))) {
      return Status::Corruption("codec test.sum: checksum mismatch");
    }
    return encoded.subspan(1);
  }

 private:
  static std::byte Sum(ByteView b) {
    uint8_t s = 0;
    for (std::byte x : b) s = static_cast<uint8_t>(s + static_cast<uint8_t>(x));
    return std::byte{s};
  }
};

// Inverts every byte; counts the calls of its in-place decoder.
class InvertCodec final : public BytesToBytesCodec {
 public:
  std::string name() const override { return "test.invert"; }
  nlohmann::json ToJson() const override { return {{"name", name()}}; }
  Result<Buffer> Encode(ByteView decoded) const override { return Inverted(decoded); }
  Result<Buffer> Decode(ByteView encoded, std::optional<size_t>) const override {
    return Inverted(encoded);
  }
  Status DecodeInto(ByteView encoded, MutableByteView out) const override {
    ++into_calls;
    if (encoded.size() != out.size()) return Status::Corruption("test.invert: size");
    for (size_t i = 0; i < out.size(); ++i) out[i] = ~encoded[i];
    return Status::OK();
  }
  bool DecodesIntoCallerMemory() const override { return true; }

  mutable std::atomic<int> into_calls{0};

 private:
  static Buffer Inverted(ByteView in) {
    Buffer out(in.size());
    for (size_t i = 0; i < in.size(); ++i) out.data()[i] = ~in[i];
    return out;
  }
};

// Stores the elements as they are, like bytes in native order, but is not it.
class PlainCodec final : public ArrayToBytesCodec {
 public:
  std::string name() const override { return "test.plain"; }
  nlohmann::json ToJson() const override { return {{"name", name()}}; }
  Result<Buffer> Encode(const ChunkArray& array, const ArraySpec&) const override {
    return Buffer(array.bytes.view());
  }
  Result<ChunkArray> Decode(ByteView bytes, const ArraySpec& spec) const override {
    ChunkArray out;
    out.shape = spec.shape;
    out.dtype = spec.dtype;
    out.bytes.Assign(bytes);
    return out;
  }
  std::optional<size_t> EncodedSize(const ArraySpec& spec) const override {
    return static_cast<size_t>(spec.num_elements()) * spec.dtype.size();
  }
  bool StoresElements() const override { return true; }
};

ChunkArray Sample(const ArraySpec& spec) {
  ChunkArray chunk = ChunkArray::Filled(spec);
  for (size_t i = 0; i < chunk.bytes.size(); ++i) {
    chunk.bytes.data()[i] = std::byte(i * 7);
  }
  return chunk;
}

TEST(CodecCapabilitiesTest, AChecksumIsVerifiedInPlace) {
  ArraySpec spec = MakeSpec({6}, DataType(DataTypeId::kInt32));
  auto chain = CodecChain::Make({}, std::make_shared<PlainCodec>(),
                                {std::make_shared<SumCodec>()}, spec);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_TRUE(chain->CanDecodeInto());
  EXPECT_TRUE(chain->StoresRawElements());
  ChunkArray chunk = Sample(spec);
  auto enc = chain->Encode(chunk);
  ASSERT_TRUE(enc.ok());
  ASSERT_EQ(enc->size(), 25u);
  auto raw = chain->RawElements(*enc);
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_EQ(raw->data(), enc->data() + 1);  // a view, not a copy
  EXPECT_TRUE(Buffer(*raw) == chunk.bytes);
  Buffer out(24);
  ASSERT_TRUE(chain->DecodeInto(*enc, out.mutable_view()).ok());
  EXPECT_TRUE(out == chunk.bytes);
  enc->data()[3] ^= std::byte{1};
  auto bad = chain->RawElements(*enc);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "codec test.sum: checksum mismatch");
}

TEST(CodecCapabilitiesTest, ACompressorDecodesIntoCallerMemory) {
  ArraySpec spec = MakeSpec({3, 2}, DataType(DataTypeId::kUInt16));
  auto invert = std::make_shared<InvertCodec>();
  auto chain = CodecChain::Make({}, std::make_shared<BytesCodec>(std::endian::big),
                                {invert, std::make_shared<SumCodec>()}, spec);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  EXPECT_TRUE(chain->CanDecodeInto());
  EXPECT_FALSE(chain->StoresRawElements());
  ChunkArray chunk = Sample(spec);
  auto enc = chain->Encode(chunk);
  ASSERT_TRUE(enc.ok());
  Buffer out(12);
  ASSERT_TRUE(chain->DecodeInto(*enc, out.mutable_view()).ok());
  EXPECT_TRUE(out == chunk.bytes);
  EXPECT_EQ(invert->into_calls.load(), 1);
  auto dec = chain->Decode(*enc);
  ASSERT_TRUE(dec.ok());
  EXPECT_TRUE(dec->bytes == chunk.bytes);
}

TEST(CodecCapabilitiesTest, VerifyOfANonChecksumIsInvalidArgument) {
  InvertCodec invert;
  auto r = invert.Verify(ByteView());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "codec test.invert is not a checksum");
}

}  // namespace
}  // namespace turbozarr
