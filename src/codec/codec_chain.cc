// CodecChain: validates the order of a chunk's codecs and runs them, forwards
// to encode and backwards to decode, telling each bytes->bytes decoder the
// size to expect whenever the chain fixes it.
#include <cstring>
#include <memory>

#include "codec/checksum32_codec.h"
#include "codec/codec_config.h"
#include "codec/raw_bytes.h"
#include "turbozarr/codec.h"

namespace turbozarr {
namespace {

// The element storage of `a` matches its own shape and type.
bool StorageMatches(const ChunkArray& a) {
  const int64_t n = a.num_elements();
  return a.dtype.is_variable_length()
             ? static_cast<int64_t>(a.strings.size()) == n
             : a.bytes.size() == static_cast<size_t>(n) * a.dtype.size();
}

}  // namespace

Result<CodecChain> CodecChain::FromJson(const nlohmann::json& codecs,
                                        const ArraySpec& spec) {
  if (!codecs.is_array()) {
    return Status::InvalidArgument("codecs must be a list, got " + codecs.dump());
  }
  std::vector<std::shared_ptr<const ArrayToArrayCodec>> a2a;
  std::shared_ptr<const ArrayToBytesCodec> a2b;
  std::vector<std::shared_ptr<const BytesToBytesCodec>> b2b;
  ArraySpec current = spec;  // the spec the next codec is handed
  for (const nlohmann::json& j : codecs) {
    TZ_ASSIGN_OR_RETURN(std::shared_ptr<const Codec> codec, MakeCodec(j, current));
    const CodecKind kind = codec->kind();
    if (kind == CodecKind::kArrayToArray && a2b) {
      return Status::InvalidArgument(
          "codec " + codec->name() +
          " (array->array) comes after the array->bytes codec " + a2b->name());
    }
    if (kind == CodecKind::kArrayToBytes && a2b) {
      return Status::InvalidArgument("codecs hold two array->bytes codecs: " +
                                     a2b->name() + " and " + codec->name());
    }
    if (kind == CodecKind::kBytesToBytes && !a2b) {
      return Status::InvalidArgument(
          "codec " + codec->name() +
          " (bytes->bytes) comes before any array->bytes codec");
    }
    switch (kind) {
      case CodecKind::kArrayToArray: {
        auto c = std::static_pointer_cast<const ArrayToArrayCodec>(codec);
        TZ_ASSIGN_OR_RETURN(current, c->EncodedSpec(current));
        a2a.push_back(std::move(c));
        break;
      }
      case CodecKind::kArrayToBytes:
        a2b = std::static_pointer_cast<const ArrayToBytesCodec>(codec);
        break;
      case CodecKind::kBytesToBytes:
        b2b.push_back(std::static_pointer_cast<const BytesToBytesCodec>(codec));
        break;
    }
  }
  return Make(std::move(a2a), std::move(a2b), std::move(b2b), spec);
}

Result<CodecChain> CodecChain::Make(
    std::vector<std::shared_ptr<const ArrayToArrayCodec>> a2a,
    std::shared_ptr<const ArrayToBytesCodec> a2b,
    std::vector<std::shared_ptr<const BytesToBytesCodec>> b2b, const ArraySpec& spec) {
  if (!a2b) {
    return Status::InvalidArgument(
        "codecs need exactly one array->bytes codec (such as bytes), found none");
  }
  CodecChain chain;
  chain.spec_ = spec;
  ArraySpec current = spec;
  for (const auto& c : a2a) {
    if (!c) return Status::InvalidArgument("codecs: null array->array codec");
    chain.a2a_specs_.push_back(current);
    TZ_ASSIGN_OR_RETURN(current, c->EncodedSpec(current));
  }
  for (const auto& c : b2b) {
    if (!c) return Status::InvalidArgument("codecs: null bytes->bytes codec");
  }
  // The decoded size of each bytes->bytes codec, known while every codec
  // before it fixes its output size.
  std::optional<size_t> size = a2b->EncodedSize(current);
  for (const auto& c : b2b) {
    chain.b2b_sizes_.push_back(size);
    size = size ? c->EncodedSize(*size) : std::nullopt;
  }
  chain.a2b_spec_ = std::move(current);
  chain.decode_into_ =
      a2a.empty() && !spec.dtype.is_variable_length() && a2b->StoresElements();
  chain.a2a_ = std::move(a2a);
  chain.a2b_ = std::move(a2b);
  chain.b2b_ = std::move(b2b);
  return chain;
}

Result<Buffer> CodecChain::Encode(ChunkArray chunk) const {
  if (!a2b_) return Status::InvalidArgument("codec chain is empty");
  if (chunk.shape != spec_.shape || !(chunk.dtype == spec_.dtype) ||
      !StorageMatches(chunk)) {
    return Status::InvalidArgument(
        "codecs: chunk of shape " + internal::ShapeString(chunk.shape) + " and type " +
        chunk.dtype.ToString() + " does not match the chunk spec " +
        internal::ShapeString(spec_.shape) + " " + spec_.dtype.ToString());
  }
  for (const auto& c : a2a_) {
    TZ_ASSIGN_OR_RETURN(chunk, c->Encode(std::move(chunk)));
  }
  TZ_ASSIGN_OR_RETURN(Buffer bytes, a2b_->EncodeOwned(std::move(chunk), a2b_spec_));
  for (const auto& c : b2b_) {
    if (c->EncodesByAppending()) {
      c->EncodeAppend(bytes);
      continue;
    }
    TZ_ASSIGN_OR_RETURN(bytes, c->Encode(bytes.view()));
  }
  return bytes;
}

Result<ByteView> CodecChain::EncodeFrom(ByteView elements, Buffer& storage) const {
  TZ_RETURN_NOT_OK(CheckCallerMemory(elements.size(), "encode from", "given"));
  const size_t chunk_bytes = elements.size();
  ByteView view = elements;
  if (a2b_->NeedsSwap(spec_.dtype)) {
    storage.Resize(chunk_bytes);
    internal::CopySwappedElements(storage.data(), elements.data(), chunk_bytes, spec_.dtype);
    view = storage.view();
  }
  for (const auto& c : b2b_) {
    if (c->EncodesByAppending() && !storage.empty() && view.data() == storage.data()) {
      c->EncodeAppend(storage);  // the payload is ours already
      view = storage.view();
      continue;
    }
    TZ_ASSIGN_OR_RETURN(Buffer next, c->Encode(view));
    storage = std::move(next);  // `view` may point into storage: read it first
    view = storage.view();
  }
  return view;
}

Result<ChunkArray> CodecChain::Decode(ByteView bytes) const {
  if (!a2b_) return Status::InvalidArgument("codec chain is empty");
  Buffer scratch;
  TZ_ASSIGN_OR_RETURN(ByteView view, DecodeBytesDownTo(bytes, 0, scratch));
  ChunkArray chunk;
  if (!scratch.empty() && view.data() == scratch.data() &&
      view.size() == scratch.size()) {
    // The last decompressor's output may become the chunk's storage.
    TZ_ASSIGN_OR_RETURN(chunk, a2b_->DecodeOwned(std::move(scratch), a2b_spec_));
  } else {
    TZ_ASSIGN_OR_RETURN(chunk, a2b_->Decode(view, a2b_spec_));
  }
  for (size_t i = a2a_.size(); i-- > 0;) {
    TZ_ASSIGN_OR_RETURN(chunk, a2a_[i]->Decode(std::move(chunk), a2a_specs_[i]));
  }
  if (chunk.shape != spec_.shape || !(chunk.dtype == spec_.dtype) ||
      !StorageMatches(chunk)) {
    return Status::Corruption(
        "codecs: decoded chunk of shape " + internal::ShapeString(chunk.shape) +
        " and type " + chunk.dtype.ToString() + " does not match the chunk spec " +
        internal::ShapeString(spec_.shape) + " " + spec_.dtype.ToString());
  }
  return chunk;
}

Status CodecChain::DecodeInto(ByteView bytes, MutableByteView out) const {
  TZ_RETURN_NOT_OK(CheckCallerMemory(out.size(), "decode into", "the destination has"));
  const size_t chunk_bytes = out.size();
  // Every bytes->bytes decoder but the one next to the bytes codec runs as
  // in Decode; that one, when it can, writes straight into `out`.
  const bool into_out = !b2b_.empty() && b2b_[0]->DecodesIntoCallerMemory();
  Buffer scratch;
  TZ_ASSIGN_OR_RETURN(ByteView view, DecodeBytesDownTo(bytes, into_out ? 1 : 0, scratch));
  if (into_out) {
    TZ_RETURN_NOT_OK(b2b_[0]->DecodeInto(view, out));
  } else {
    TZ_RETURN_NOT_OK(CheckChunkBytes(view.size()));
    if (chunk_bytes > 0) std::memcpy(out.data(), view.data(), chunk_bytes);
  }
  if (a2b_->NeedsSwap(spec_.dtype)) {
    internal::CopySwappedElements(out.data(), out.data(), out.size(), spec_.dtype);
  }
  return Status::OK();
}

Result<ByteView> CodecChain::DecodeBytesDownTo(ByteView bytes, size_t first,
                                               Buffer& scratch) const {
  ByteView view = bytes;
  for (size_t k = b2b_.size(); k-- > first;) {
    const BytesToBytesCodec& codec = *b2b_[k];
    if (codec.IsChecksum()) {
      // A checksum strips to a view of its input; no copy needed.
      TZ_ASSIGN_OR_RETURN(view, codec.Verify(view));
      if (b2b_sizes_[k] && view.size() != *b2b_sizes_[k]) {
        return Status::Corruption("codec " + codec.name() + ": expected " +
                                  std::to_string(*b2b_sizes_[k]) + " bytes, got " +
                                  std::to_string(view.size()));
      }
      continue;
    }
    TZ_ASSIGN_OR_RETURN(Buffer next, codec.Decode(view, b2b_sizes_[k]));
    scratch = std::move(next);
    view = scratch.view();
  }
  return view;
}

bool CodecChain::StoresRawElements() const {
  if (!decode_into_ || a2b_->NeedsSwap(spec_.dtype)) return false;
  for (const auto& c : b2b_) {
    if (!c->IsChecksum()) return false;
  }
  return true;
}

size_t CodecChain::TrailingChecksumBytes() const {
  if (!StoresRawElements() || b2b_.size() != 1) return 0;
  const auto* sum = dynamic_cast<const Checksum32Codec*>(b2b_[0].get());
  return sum != nullptr && sum->location() == Checksum32Codec::Location::kEnd ? 4 : 0;
}

Status CodecChain::VerifyTrailingChecksum(ByteView elements, ByteView sum) const {
  if (TrailingChecksumBytes() == 0) {
    return Status::InvalidArgument("codec chain: no checksum stored after the elements");
  }
  return static_cast<const Checksum32Codec&>(*b2b_[0]).VerifySum(elements, sum);
}

Result<ByteView> CodecChain::RawElements(ByteView bytes) const {
  if (!StoresRawElements()) {
    return Status::InvalidArgument("codecs " + ToJson().dump() +
                                   " do not store the elements unchanged");
  }
  Buffer unused;  // checksums only: nothing is decoded into it
  TZ_ASSIGN_OR_RETURN(ByteView view, DecodeBytesDownTo(bytes, 0, unused));
  TZ_RETURN_NOT_OK(CheckChunkBytes(view.size()));
  return view;
}

Status CodecChain::CheckCallerMemory(size_t size, std::string_view action,
                                     std::string_view what) const {
  if (!decode_into_) {
    return Status::InvalidArgument("codecs " + ToJson().dump() + " cannot " +
                                   std::string(action) + " caller memory");
  }
  const size_t chunk_bytes =
      static_cast<size_t>(spec_.num_elements()) * spec_.dtype.size();
  if (size == chunk_bytes) return Status::OK();
  return Status::InvalidArgument(
      "codecs: a chunk of shape " + internal::ShapeString(spec_.shape) + " and type " +
      spec_.dtype.ToString() + " needs " + std::to_string(chunk_bytes) + " bytes, " +
      std::string(what) + " " + std::to_string(size));
}

Status CodecChain::CheckChunkBytes(size_t got) const {
  const size_t chunk_bytes =
      static_cast<size_t>(spec_.num_elements()) * spec_.dtype.size();
  if (got == chunk_bytes) return Status::OK();
  return Status::Corruption(
      "codec bytes: chunk of shape " + internal::ShapeString(spec_.shape) + " and type " +
      spec_.dtype.ToString() + " needs " + std::to_string(chunk_bytes) + " bytes, got " +
      std::to_string(got));
}

nlohmann::json CodecChain::ToJson() const {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& c : a2a_) j.push_back(c->ToJson());
  if (a2b_) j.push_back(a2b_->ToJson());
  for (const auto& c : b2b_) j.push_back(c->ToJson());
  return j;
}

std::optional<size_t> CodecChain::EncodedSize() const {
  if (!a2b_) return std::nullopt;
  std::optional<size_t> size = a2b_->EncodedSize(a2b_spec_);
  for (const auto& c : b2b_) {
    if (!size) return std::nullopt;
    size = c->EncodedSize(*size);
  }
  return size;
}

}  // namespace turbozarr
