// The shared codec conformance suites. Every bytes->bytes codec and every
// codec chain runs the same checks:
//
//  - round trips of empty, 1-byte, small, compressible, incompressible and
//    larger inputs, with the decoded size known and unknown;
//  - bad input (empty, truncated, bit-flipped, garbage, wrong expected
//    size) gives a non-OK Status or, for a codec without integrity checks,
//    at worst wrong bytes of the expected size; never a crash, hang or
//    out-of-bounds read (run these under the sanitizers);
//  - ToJson builds an equal codec back.
//
// Every codec of the codec table has cases here (codec_conformance_test.cc
// checks that): bytes->bytes codecs on their own, the others in chains.
//
// Instantiate in one test file:
//   INSTANTIATE_TEST_SUITE_P(Zstd, BytesToBytesConformance,
//       ::testing::Values(CodecCase{"zstd", {{"name", "zstd"}, ...}}), CaseName);
//   INSTANTIATE_TEST_SUITE_P(Zstd, ChainConformance, ::testing::Values(ChainCase{...}));
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "testing/codec_fixtures.h"
#include "turbozarr/codec.h"

namespace turbozarr::testing {

struct CodecCase {
  std::string label;     // a valid test-name fragment
  nlohmann::json codec;  // v3 JSON of a bytes->bytes codec
  // The codec takes whole multiples of this many bytes (shuffle's element
  // size); the round-trip inputs are cut to such a multiple.
  size_t granule = 1;
  bool v2 = false;  // `codec` is numcodecs JSON ({"id": ...}), built by MakeV2Codec
};

// A v3 "codecs" list to run over several shapes and data types.
struct ChainCase {
  std::string label;
  nlohmann::json codecs;
  // The data types and chunk shapes the codecs accept (array->array codecs
  // fix a type or rank, sharding a shape); empty for the suite's own sets.
  // The single-spec checks use the last shape and the first type.
  std::vector<DataType> types = {};
  std::vector<std::vector<int64_t>> shapes = {};
  // The chain loses information (quantize, bitround, a narrowing astype):
  // a round trip need not give the input back, but what it gives must be a
  // fixed point, decoding to itself after another round trip.
  bool lossy = false;
};

template <typename Case>
std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  return info.param.label;
}

// Inputs every bytes->bytes codec must round-trip.
inline std::vector<Buffer> ConformanceInputs() {
  std::vector<Buffer> v;
  v.push_back(Buffer());
  v.push_back(Buffer::FromString("x"));
  v.push_back(Buffer::FromString("hello, hello, hello zarr"));
  v.push_back(PatternBytes(4096));
  v.push_back(RandomBytes(3001));
  v.push_back(Buffer(std::vector<std::byte>(100000, std::byte{0})));
  v.push_back(PatternBytes(300000, 3));
  return v;
}

// OK with a value of the expected size, or not OK: what the bad-input
// checks accept from a decoder told the size.
inline ::testing::AssertionResult FailsOrRightSize(const Result<Buffer>& r,
                                                   size_t expected) {
  if (!r.ok()) return ::testing::AssertionSuccess();
  if (r->size() == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "decode succeeded with " << r->size() << " bytes, expected " << expected;
}

// Builds a case's codec from its JSON in the case's spelling.
inline Result<std::shared_ptr<const Codec>> MakeCaseCodec(const CodecCase& c,
                                                          const nlohmann::json& j) {
  const ArraySpec spec = MakeSpec({1024}, DataType(DataTypeId::kUInt16));
  return c.v2 ? MakeV2Codec(j, spec) : MakeCodec(j, spec);
}

class BytesToBytesConformance : public ::testing::TestWithParam<CodecCase> {
 protected:
  void SetUp() override {
    auto c = MakeCaseCodec(GetParam(), GetParam().codec);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    ASSERT_EQ((*c)->kind(), CodecKind::kBytesToBytes);
    codec_ = std::dynamic_pointer_cast<const BytesToBytesCodec>(*c);
    ASSERT_NE(codec_, nullptr);
  }

  Buffer EncodeOrDie(ByteView in) {
    auto r = codec_->Encode(in);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : Buffer();
  }

  std::shared_ptr<const BytesToBytesCodec> codec_;
};

TEST_P(BytesToBytesConformance, RoundTripsWithKnownAndUnknownSize) {
  for (Buffer in : ConformanceInputs()) {
    in.Resize(in.size() / GetParam().granule * GetParam().granule);
    SCOPED_TRACE("input of " + std::to_string(in.size()) + " bytes");
    Buffer enc = EncodeOrDie(in);
    if (auto fixed = codec_->EncodedSize(in.size())) {
      EXPECT_EQ(enc.size(), *fixed);
    }
    auto known = codec_->Decode(enc, in.size());
    ASSERT_TRUE(known.ok()) << known.status().ToString();
    EXPECT_TRUE(*known == in);
    auto unknown = codec_->Decode(enc, std::nullopt);
    ASSERT_TRUE(unknown.ok()) << unknown.status().ToString();
    EXPECT_TRUE(*unknown == in);
  }
}

TEST_P(BytesToBytesConformance, WrongExpectedSizeIsCorruption) {
  Buffer in = PatternBytes(4096);
  Buffer enc = EncodeOrDie(in);
  for (size_t wrong : {size_t{0}, size_t{4095}, size_t{4097}, size_t{1} << 20}) {
    auto r = codec_->Decode(enc, wrong);
    ASSERT_FALSE(r.ok()) << "expected size " << wrong;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
  }
}

TEST_P(BytesToBytesConformance, EmptyInputFailsOrHasRightSize) {
  EXPECT_TRUE(FailsOrRightSize(codec_->Decode(ByteView(), 16), 16));
  (void)codec_->Decode(ByteView(), std::nullopt);  // must not crash
}

TEST_P(BytesToBytesConformance, TruncatedInputFailsOrHasRightSize) {
  for (const Buffer& in : {PatternBytes(4096), RandomBytes(600)}) {
    Buffer enc = EncodeOrDie(in);
    for (size_t cut :
         {size_t{1}, size_t{4}, size_t{15}, enc.size() / 2, enc.size() - 1}) {
      if (cut >= enc.size()) continue;
      SCOPED_TRACE("truncated to " + std::to_string(cut) + " of " +
                   std::to_string(enc.size()));
      ByteView part = enc.view().first(cut);
      EXPECT_TRUE(FailsOrRightSize(codec_->Decode(part, in.size()), in.size()));
      (void)codec_->Decode(part, std::nullopt);
    }
  }
}

TEST_P(BytesToBytesConformance, BitFlipsFailOrHaveRightSize) {
  for (const Buffer& in : {PatternBytes(2048), RandomBytes(300)}) {
    Buffer enc = EncodeOrDie(in);
    // Every bit of the first 48 bytes (the headers), then a spread of others.
    std::vector<size_t> bits;
    for (size_t b = 0; b < std::min<size_t>(enc.size(), 48) * 8; ++b) bits.push_back(b);
    for (size_t b = 48 * 8; b < enc.size() * 8; b += 61) bits.push_back(b);
    for (size_t bit : bits) {
      Buffer bad = enc;
      bad.data()[bit / 8] ^= std::byte(1u << (bit % 8));
      auto r = codec_->Decode(bad, in.size());
      ASSERT_TRUE(FailsOrRightSize(r, in.size())) << "bit " << bit;
      (void)codec_->Decode(bad, std::nullopt);
    }
  }
}

TEST_P(BytesToBytesConformance, GarbageFailsOrHasRightSize) {
  for (size_t n : {1, 3, 16, 17, 100, 5000}) {
    for (uint32_t seed = 1; seed <= 8; ++seed) {
      Buffer junk = RandomBytes(n, seed);
      EXPECT_TRUE(FailsOrRightSize(codec_->Decode(junk, 1000), 1000)) << n << "/" << seed;
      (void)codec_->Decode(junk, std::nullopt);
    }
  }
}

TEST_P(BytesToBytesConformance, JsonRoundTrips) {
  nlohmann::json j = codec_->ToJson();
  if (GetParam().v2) {
    auto v2 = ToV2Json(*codec_);
    ASSERT_TRUE(v2.ok()) << v2.status().ToString();
    j = *v2;
  }
  auto again = MakeCaseCodec(GetParam(), j);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(GetParam().v2 ? *ToV2Json(**again) : (*again)->ToJson(), j);
  EXPECT_EQ((*again)->name(), codec_->name());
  // Its output decodes with the original.
  Buffer in = PatternBytes(1000);
  auto enc = std::dynamic_pointer_cast<const BytesToBytesCodec>(*again)->Encode(in);
  ASSERT_TRUE(enc.ok());
  auto dec = codec_->Decode(*enc, in.size());
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  EXPECT_TRUE(*dec == in);
}

// Chains over several shapes (including 0-d, empty and 1-element chunks)
// and data types, fixed-size or variable-length.
class ChainConformance : public ::testing::TestWithParam<ChainCase> {
 protected:
  static std::vector<std::vector<int64_t>> Shapes() {
    if (!GetParam().shapes.empty()) return GetParam().shapes;
    return {{}, {0}, {1}, {1, 1}, {7}, {3, 5}, {2, 3, 4}, {4, 0, 2}, {64, 33}};
  }
  static std::vector<DataType> Types() {
    if (!GetParam().types.empty()) return GetParam().types;
    return {DataType(DataTypeId::kUInt8), DataType(DataTypeId::kInt16),
            DataType(DataTypeId::kInt32), DataType(DataTypeId::kFloat64),
            DataType(DataTypeId::kComplex128)};
  }
  // The spec of a single-spec check: `shape` and `dtype` unless the case
  // fixes its own.
  static ArraySpec Spec(std::vector<int64_t> shape, DataTypeId dtype) {
    const ChainCase& c = GetParam();
    return MakeSpec(c.shapes.empty() ? std::move(shape) : c.shapes.back(),
                    c.types.empty() ? DataType(dtype) : c.types.front());
  }
  static Result<CodecChain> Chain(const ArraySpec& spec) {
    return CodecChain::FromJson(GetParam().codecs, spec);
  }
  // The elements of `a` and `b` are equal.
  static bool SameElements(const ChunkArray& a, const ChunkArray& b) {
    return a.bytes == b.bytes && a.strings == b.strings;
  }
  // `chunk` holds the elements of a chunk of `spec`.
  static bool HoldsSpec(const ChunkArray& chunk, const ArraySpec& spec) {
    const size_t n = static_cast<size_t>(spec.num_elements());
    if (chunk.shape != spec.shape) return false;
    return spec.dtype.is_variable_length() ? chunk.strings.size() == n
                                           : chunk.bytes.size() == n * spec.dtype.size();
  }
};

TEST_P(ChainConformance, RoundTripsShapesAndTypes) {
  for (const DataType& dtype : Types()) {
    for (const auto& shape : Shapes()) {
      ArraySpec spec = MakeSpec(shape, dtype);
      SCOPED_TRACE(dtype.ToString() + " " + std::to_string(shape.size()) + "-d, " +
                   std::to_string(spec.num_elements()) + " elements");
      auto chain = Chain(spec);
      ASSERT_TRUE(chain.ok()) << chain.status().ToString();
      ChunkArray chunk = PatternChunk(spec);
      auto enc = chain->Encode(chunk);
      ASSERT_TRUE(enc.ok()) << enc.status().ToString();
      if (auto fixed = chain->EncodedSize()) {
        EXPECT_EQ(enc->size(), *fixed);
      }
      auto dec = chain->Decode(*enc);
      ASSERT_TRUE(dec.ok()) << dec.status().ToString();
      EXPECT_EQ(dec->shape, spec.shape);
      EXPECT_TRUE(dec->dtype == dtype);
      if (!GetParam().lossy) {
        EXPECT_TRUE(SameElements(*dec, chunk));
        continue;
      }
      auto again = chain->Encode(*dec);
      ASSERT_TRUE(again.ok()) << again.status().ToString();
      auto fixed = chain->Decode(*again);
      ASSERT_TRUE(fixed.ok()) << fixed.status().ToString();
      EXPECT_TRUE(SameElements(*fixed, *dec));
    }
  }
}

TEST_P(ChainConformance, BadInputFailsOrDecodesToTheSpec) {
  ArraySpec spec = Spec({16, 8}, DataTypeId::kInt32);
  auto chain = Chain(spec);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  auto enc = chain->Encode(PatternChunk(spec));
  ASSERT_TRUE(enc.ok());
  auto check = [&](ByteView bytes, const std::string& what) {
    auto r = chain->Decode(bytes);
    if (r.ok()) {
      EXPECT_TRUE(HoldsSpec(*r, spec)) << what;
    }
  };
  check(ByteView(), "empty");
  for (size_t cut : {size_t{1}, enc->size() / 2, enc->size() - 1}) {
    check(enc->view().first(std::min(cut, enc->size())), "truncated");
  }
  for (size_t bit = 0; bit < enc->size() * 8; bit += 3) {
    Buffer bad = *enc;
    bad.data()[bit / 8] ^= std::byte(1u << (bit % 8));
    check(bad, "bit " + std::to_string(bit));
  }
  check(RandomBytes(enc->size()), "garbage");
}

TEST_P(ChainConformance, WrongChunkIsInvalidArgument) {
  ArraySpec spec = Spec({4, 4}, DataTypeId::kInt32);
  auto chain = Chain(spec);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  std::vector<int64_t> other = spec.shape;
  other.push_back(2);
  auto r = chain->Encode(PatternChunk(MakeSpec(other, spec.dtype)));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
}

TEST_P(ChainConformance, JsonRoundTrips) {
  ArraySpec spec = Spec({5, 3}, DataTypeId::kUInt16);
  auto chain = Chain(spec);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  auto again = CodecChain::FromJson(chain->ToJson(), spec);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->ToJson(), chain->ToJson());
}

}  // namespace turbozarr::testing
