// DataType: the element type of an array, and FillValue, one element's value.
//
// In memory every fixed-size element is held in the machine's native byte
// order, packed, C layout. Variable-length strings and bytes are held as
// std::string objects (one per element); their `size()` is sizeof(std::string).
// The stored byte order is not part of the DataType: for v3 it is the `bytes`
// codec's business, for v2 the metadata layer turns "<"/">" into that codec.
//
// Thread safety: values; no shared state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "turbozarr/buffer.h"
#include "turbozarr/status.h"

namespace turbozarr {

enum class DataTypeId {
  kBool,
  kInt8, kInt16, kInt32, kInt64,
  kUInt8, kUInt16, kUInt32, kUInt64,
  kFloat16, kFloat32, kFloat64,
  kComplex64, kComplex128,
  kRawBits,        // v3 "r<bits>", v2 "|V<n>": opaque bytes of fixed size
  kFixedBytes,     // v2 "|S<n>": NUL-padded bytes of fixed size
  kFixedUnicode,   // v2 "<U<n>": UTF-32 code units, n characters
  kString,         // variable-length UTF-8 (v3 "string", v2 "|O" + vlen-utf8)
  kBytes,          // variable-length bytes (v3 "bytes", v2 "|O" + vlen-bytes)
  kDateTime64,     // numpy datetime64: int64 counts of unit x scale since 1970
  kTimeDelta64,    // numpy timedelta64: int64 counts of unit x scale
  kStruct,         // named fields of fixed-size types, packed in field order
  // Low-precision types of the zarr-extensions registry (the ml_dtypes
  // package's types), one element per byte (bfloat16: two) in memory and
  // with the bytes codec. Types of fewer than 8 bits keep their value in the
  // low bits of the byte; the high bits are ignored when read.
  kBFloat16,
  kFloat8E4M3FN, kFloat8E5M2, kFloat8E4M3FNUZ, kFloat8E5M2FNUZ,
  kFloat8E4M3B11FNUZ, kFloat8E3M4, kFloat8E4M3, kFloat8E8M0FNU,
  kFloat4E2M1FN, kFloat6E2M3FN, kFloat6E3M2FN,
  kInt2, kInt4, kUInt2, kUInt4,
};

struct StructField;

class DataType {
 public:
  DataType() = default;
  // REQUIRES: `id` has a fixed size implied by the id (not kRawBits,
  // kFixedBytes or kFixedUnicode, which need Sized()).
  explicit DataType(DataTypeId id);
  // Raw bits, fixed bytes or fixed unicode of `size` bytes in memory.
  static DataType Sized(DataTypeId id, size_t size);
  // datetime64 / timedelta64 counting in multiples of `scale` `unit`s
  // ("Y" "M" "W" "D" "h" "m" "s" "ms" "us" "ns" "ps" "fs" "as" or "generic").
  // InvalidArgument for another unit or a scale below 1.
  static Result<DataType> Time(DataTypeId id, std::string_view unit, int64_t scale);
  // A struct of `fields` (at least one, distinct non-empty names, fixed-size
  // types); each field's offset is set here, packed in order, as numpy packs
  // a structured dtype made from a list.
  static Result<DataType> Struct(std::vector<StructField> fields);

  DataTypeId id() const { return id_; }
  // Bytes per element in memory.
  size_t size() const { return size_; }
  bool is_integer() const { return id_ >= DataTypeId::kInt8 && id_ <= DataTypeId::kUInt64; }
  bool is_variable_length() const {
    return id_ == DataTypeId::kString || id_ == DataTypeId::kBytes;
  }
  bool is_time() const {
    return id_ == DataTypeId::kDateTime64 || id_ == DataTypeId::kTimeDelta64;
  }
  // bfloat16 and the float8/float6/float4 types.
  bool is_low_precision_float() const {
    return id_ >= DataTypeId::kBFloat16 && id_ <= DataTypeId::kFloat6E3M2FN;
  }
  // int2, int4, uint2, uint4.
  bool is_narrow_integer() const {
    return id_ >= DataTypeId::kInt2 && id_ <= DataTypeId::kUInt4;
  }
  // The bits that hold a value: 2, 4 or 6 for the sub-byte types (in the low
  // bits of their byte), 8 * size() for every other fixed-size type.
  size_t value_bits() const;
  // The size of one scalar whose bytes are swapped for big-endian storage:
  // the element size for numbers, each half of a complex, 4 for UTF-32, and
  // 1 for types that have no byte order. A struct has no single unit: 1, and
  // its scalars are swap_segments().
  size_t swap_unit() const;
  // Whether the stored bytes depend on the byte order (some scalar of more
  // than one byte): what makes the bytes codec's "endian" required.
  bool has_byte_order() const;
  // Where a struct element's scalars of more than one byte lie, as (offset,
  // bytes) pairs in order, nested fields included; worked out once when the
  // struct is made. Empty for other types: their scalars are swap_unit() wide.
  struct SwapSegment {
    uint32_t offset;
    uint32_t bytes;
    bool operator==(const SwapSegment&) const = default;
  };
  const std::vector<SwapSegment>& swap_segments() const;
  // Reverses in place the bytes of every scalar (swap_segments) of the
  // struct elements in data[0, n): between stored big-endian and native.
  // REQUIRES: a struct; n a multiple of size().
  void SwapStructScalars(std::byte* data, size_t n) const;

  // datetime64 / timedelta64 only: the unit and its multiple ("ns", 1).
  const std::string& time_unit() const;
  int64_t time_scale() const;
  // kStruct only: the fields in order (empty for other types).
  const std::vector<StructField>& fields() const;

  // The v3 name ("int32", "r16", "string") or JSON object for extensions.
  nlohmann::json ToV3Json() const;
  // The v2 type string with the given byte order ('<', '>' or '|' where the
  // type has none): "<i4", "|b1", "|S10", "<U5", "|O".
  std::string ToV2TypeString(char byte_order = '<') const;
  // The v2 "dtype" value: ToV2TypeString's string, or for a struct the list
  // of [name, type] (or [name, type, shape]) pairs, every multi-byte scalar in
  // `byte_order`.
  nlohmann::json ToV2Json(char byte_order = '<') const;
  // A short human name ("int32", "string", "S10", "datetime64[ns]",
  // "struct{a: int32, b: float64}").
  std::string ToString() const;

  bool operator==(const DataType& o) const;

 private:
  struct Details;  // time unit and scale, or struct fields
  DataTypeId id_ = DataTypeId::kUInt8;
  size_t size_ = 1;
  std::shared_ptr<const Details> details_;
};

// One field of a struct: its name, its element type, and (v2 only, where
// numpy allows "subarray" fields) a shape of such elements; offset and size
// in bytes within the struct element are set by DataType::Struct.
struct StructField {
  std::string name;
  DataType dtype;
  std::vector<int64_t> shape;  // empty: one element
  size_t offset = 0;
  size_t size() const;  // dtype.size() times the product of shape
  bool operator==(const StructField&) const = default;
};

// Parses a v3 "data_type" value.
Result<DataType> ParseV3DataType(const nlohmann::json& j);

struct V2TypeString {
  DataType dtype;
  char byte_order;  // '<', '>' or '|'
};
// Parses a v2 "dtype" string; an object type "|O" parses as kString (the
// filters decide between string and bytes).
Result<V2TypeString> ParseV2DataType(std::string_view typestr);
// Parses a v2 "dtype" value: a type string, or a structured dtype's list of
// [name, type] / [name, type, shape] pairs (nested lists for nested structs).
// A struct's byte order is that of its multi-byte scalars ('|' if none);
// Unsupported if they differ.
Result<V2TypeString> ParseV2DataTypeJson(const nlohmann::json& j);

// One element's value. For fixed-size types, `bytes` holds dtype.size() bytes
// in native order; for variable-length types, `bytes` holds the string.
struct FillValue {
  Buffer bytes;
  bool IsAllZero() const;
  bool operator==(const FillValue&) const = default;
};

// Parses a fill value as zarr.json (v3) or .zarray (v2) spells it: numbers,
// true/false, "NaN", "Infinity", "-Infinity", "0x<hex bits>", [re, im],
// base64 strings for v2 bytes types, strings. v2's null yields zeros.
Result<FillValue> ParseFillValue(const nlohmann::json& j, const DataType& dtype,
                                 int zarr_format);
// The JSON spelling of a fill value for the given format. A struct's object
// keeps its fields in their declared order, as zarr-python writes it.
nlohmann::ordered_json FillValueToJson(const FillValue& fill, const DataType& dtype,
                                       int zarr_format);

// Zero for every type ("" for strings).
FillValue DefaultFillValue(const DataType& dtype);

// The value of one element of a low-precision float type or of int2/int4/
// uint2/uint4, at `element` (dtype.size() bytes, native order): exact; a NaN
// keeps only its sign; the bits above value_bits() are ignored.
// REQUIRES: dtype.is_low_precision_float() || dtype.is_narrow_integer().
double LowPrecisionValue(const DataType& dtype, const void* element);
// Stores at `element` the value of a low-precision float type nearest to
// `value`, rounded as ml_dtypes rounds (ties to even; out of range: infinity,
// else NaN for the float8 "fn"/"fnuz" types, else the largest finite value).
// REQUIRES: dtype.is_low_precision_float().
void LowPrecisionFromDouble(const DataType& dtype, double value, void* element);

}  // namespace turbozarr
