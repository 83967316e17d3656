#include "codec/bit_packing_codec.h"

#include <cstring>

#include "codec/numpy_cast.h"

namespace turbozarr {
namespace {

// The components of an element of `dtype` the codec packs: their count and
// bits, and whether they are signed integers. Nullopt for other types.
struct Components {
  int count;
  int bits;
  bool is_signed;
};

std::optional<Components> ComponentsOf(const DataType& dtype) {
  switch (dtype.id()) {
    case DataTypeId::kBool:
      return Components{1, 1, false};
    case DataTypeId::kInt8:
    case DataTypeId::kInt16:
    case DataTypeId::kInt32:
    case DataTypeId::kInt64:
    case DataTypeId::kInt2:
    case DataTypeId::kInt4:
      return Components{1, static_cast<int>(dtype.value_bits()), true};
    case DataTypeId::kComplex64:
    case DataTypeId::kComplex128:
      return Components{2, static_cast<int>(dtype.size() * 4), false};
    default:
      break;
  }
  if (dtype.is_integer() || dtype.is_narrow_integer() || dtype.is_low_precision_float() ||
      internal::IsNumericType(dtype.id())) {
    return Components{1, static_cast<int>(dtype.value_bits()), false};
  }
  return std::nullopt;
}

constexpr const char* kPaddingNames[] = {"none", "first_byte", "last_byte"};

// Appends bit fields to a byte buffer, least significant bit first.
class BitWriter {
 public:
  explicit BitWriter(uint8_t* out) : out_(out) {}
  void Put(uint64_t value, int bits) {
    acc_ |= static_cast<unsigned __int128>(value) << filled_;
    filled_ += bits;
    while (filled_ >= 8) {
      *out_++ = static_cast<uint8_t>(acc_);
      acc_ >>= 8;
      filled_ -= 8;
    }
  }
  void Flush() {
    if (filled_ > 0) *out_++ = static_cast<uint8_t>(acc_);
  }

 private:
  uint8_t* out_;
  unsigned __int128 acc_ = 0;
  int filled_ = 0;
};

class BitReader {
 public:
  explicit BitReader(const uint8_t* in) : in_(in) {}
  uint64_t Get(int bits) {
    while (filled_ < bits) {
      acc_ |= static_cast<unsigned __int128>(*in_++) << filled_;
      filled_ += 8;
    }
    const uint64_t value = static_cast<uint64_t>(acc_) & Mask(bits);
    acc_ >>= bits;
    filled_ -= bits;
    return value;
  }
  static uint64_t Mask(int bits) { return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1; }

 private:
  const uint8_t* in_;
  unsigned __int128 acc_ = 0;
  int filled_ = 0;
};

}  // namespace

BitPackingCodec::BitPackingCodec(Padding padding, int first_bit, int last_bit,
                                 bool first_given, bool last_given, int component_bits,
                                 int num_components, bool is_signed)
    : padding_(padding),
      first_bit_(first_bit),
      last_bit_(last_bit),
      first_given_(first_given),
      last_given_(last_given),
      component_bits_(component_bits),
      num_components_(num_components),
      is_signed_(is_signed) {}

Result<std::shared_ptr<const BitPackingCodec>> BitPackingCodec::Make(
    internal::CodecConfig& config, const ArraySpec& spec) {
  Padding padding = Padding::kNone;
  const nlohmann::json pad = config.Raw("padding_encoding");
  if (!pad.is_null()) {
    const std::string given = pad.is_string() ? pad.get<std::string>() : pad.dump();
    int i = 0;
    while (i < 3 && given != kPaddingNames[i]) ++i;
    if (i == 3) {
      return config.Invalid("padding_encoding",
                            "expected \"none\", \"first_byte\" or \"last_byte\", got " +
                                pad.dump());
    }
    padding = static_cast<Padding>(i);
  }
  auto bit = [&](const char* key) -> Result<std::optional<int64_t>> {
    const nlohmann::json v = config.Raw(key);
    if (v.is_null()) return std::optional<int64_t>();
    if (!v.is_number_integer()) return config.Invalid(key, "expected an integer or null");
    return std::optional<int64_t>(v.get<int64_t>());
  };
  TZ_ASSIGN_OR_RETURN(std::optional<int64_t> first, bit("first_bit"));
  TZ_ASSIGN_OR_RETURN(std::optional<int64_t> last, bit("last_bit"));
  TZ_RETURN_NOT_OK(config.Finish());
  const std::optional<Components> c = ComponentsOf(spec.dtype);
  if (!c) {
    return Status::Unsupported("codec packbits: cannot pack the data type " +
                               spec.dtype.ToString());
  }
  const int64_t first_bit = first.value_or(0);
  const int64_t last_bit = last.value_or(c->bits - 1);
  if (first_bit < 0 || last_bit < first_bit || last_bit >= c->bits) {
    return config.Invalid(last_bit >= c->bits ? "last_bit" : "first_bit",
                          "bits " + std::to_string(first_bit) + " to " +
                              std::to_string(last_bit) + " are not within the " +
                              std::to_string(c->bits) + " bits of " + spec.dtype.ToString());
  }
  return std::make_shared<const BitPackingCodec>(
      padding, static_cast<int>(first_bit), static_cast<int>(last_bit), first.has_value(),
      last.has_value(), c->bits, c->count, c->is_signed);
}

nlohmann::json BitPackingCodec::ToJson() const {
  // As zarrs writes it: "none" and absent bits left out.
  nlohmann::json config = nlohmann::json::object();
  if (padding_ != Padding::kNone) {
    config["padding_encoding"] = kPaddingNames[static_cast<int>(padding_)];
  }
  if (first_given_) config["first_bit"] = first_bit_;
  if (last_given_) config["last_bit"] = last_bit_;
  return {{"name", "packbits"}, {"configuration", config}};
}

namespace {

size_t DataBytes(int64_t elements, int bits_per_element) {
  return static_cast<size_t>((static_cast<uint64_t>(elements) * bits_per_element + 7) / 8);
}

}  // namespace

std::optional<size_t> BitPackingCodec::EncodedSize(const ArraySpec& spec) const {
  const int k = (last_bit_ - first_bit_ + 1) * num_components_;
  return DataBytes(spec.num_elements(), k) + (padding_ == Padding::kNone ? 0 : 1);
}

Result<Buffer> BitPackingCodec::Encode(const ChunkArray& array, const ArraySpec& spec) const {
  const int64_t n = spec.num_elements();
  const size_t element_size = spec.dtype.size();
  if (array.bytes.size() != static_cast<size_t>(n) * element_size) {
    return Status::InvalidArgument("codec packbits: chunk of " + std::to_string(n) +
                                   " elements has " + std::to_string(array.bytes.size()) +
                                   " bytes");
  }
  const int b = last_bit_ - first_bit_ + 1;
  const size_t data_bytes = DataBytes(n, b * num_components_);
  const size_t extra = padding_ == Padding::kNone ? 0 : 1;
  Buffer out(data_bytes + extra);
  auto* dst = reinterpret_cast<uint8_t*>(out.data());
  const uint8_t padding_bits =
      static_cast<uint8_t>((8 - (static_cast<uint64_t>(n) * b * num_components_) % 8) % 8);
  if (padding_ == Padding::kFirstByte) *dst = padding_bits;
  if (padding_ == Padding::kLastByte) dst[data_bytes] = padding_bits;
  BitWriter writer(dst + (padding_ == Padding::kFirstByte ? 1 : 0));
  const size_t component_size = element_size / num_components_;
  const auto* src = reinterpret_cast<const uint8_t*>(array.bytes.data());
  const uint64_t mask = BitReader::Mask(b);
  for (int64_t i = 0; i < n * num_components_; ++i) {
    uint64_t v = 0;
    std::memcpy(&v, src + i * component_size, component_size);  // little-endian
    writer.Put((v >> first_bit_) & mask, b);
  }
  writer.Flush();
  return out;
}

Result<ChunkArray> BitPackingCodec::Decode(ByteView bytes, const ArraySpec& spec) const {
  const int64_t n = spec.num_elements();
  const int b = last_bit_ - first_bit_ + 1;
  const size_t data_bytes = DataBytes(n, b * num_components_);
  size_t extra = padding_ == Padding::kNone ? 0 : 1;
  // zarrs stores types of whole bytes, all bits kept, as the bytes codec
  // does: without the padding byte (which would be 0). Read that too.
  if (extra && bytes.size() == data_bytes && first_bit_ == 0 &&
      last_bit_ == component_bits_ - 1 && component_bits_ % 8 == 0) {
    extra = 0;
  }
  if (bytes.size() != data_bytes + extra) {
    return Status::Corruption("codec packbits: a chunk of " + std::to_string(n) + " " +
                              spec.dtype.ToString() + " elements needs " +
                              std::to_string(data_bytes + extra) + " bytes, got " +
                              std::to_string(bytes.size()));
  }
  const auto* src = reinterpret_cast<const uint8_t*>(bytes.data());
  const uint8_t padding_bits =
      static_cast<uint8_t>((8 - (static_cast<uint64_t>(n) * b * num_components_) % 8) % 8);
  const bool first_byte = extra && padding_ == Padding::kFirstByte;
  if (extra) {
    const uint8_t recorded = first_byte ? src[0] : src[data_bytes];
    if (recorded != padding_bits) {
      return Status::Corruption("codec packbits: " + std::to_string(recorded) +
                                " padding bits recorded, " + std::to_string(padding_bits) +
                                " expected for a chunk of " + std::to_string(n) +
                                " elements");
    }
  }
  ChunkArray out = internal::NewChunk(spec.shape, spec.dtype);
  auto* dst = reinterpret_cast<uint8_t*>(out.bytes.data());
  const size_t component_size = spec.dtype.size() / num_components_;
  BitReader reader(src + (first_byte ? 1 : 0));
  const int top = last_bit_;  // the highest bit a component gets back
  // Sign extension fills the component's bits above `top` (int2 and int4
  // keep their high bits clear, as ml_dtypes holds them).
  const uint64_t above = BitReader::Mask(component_bits_) & ~BitReader::Mask(top + 1);
  for (int64_t i = 0; i < n * num_components_; ++i) {
    uint64_t v = reader.Get(b) << first_bit_;
    if (is_signed_ && ((v >> top) & 1)) v |= above;
    std::memcpy(dst + i * component_size, &v, component_size);
  }
  return out;
}

}  // namespace turbozarr
