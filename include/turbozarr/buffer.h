// Buffer: an owned, resizable run of bytes whose growth does not zero-fill.
// ByteView / MutableByteView: non-owning views of bytes.
//
// Chunks are decoded into Buffers; zero-filling megabytes only to overwrite
// them at once would cost a second pass over memory, so Resize leaves new
// bytes uninitialised (like std::make_unique_for_overwrite).
//
// Thread safety: a Buffer is a value; no internal synchronisation.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <string_view>

namespace turbozarr {

using ByteView = std::span<const std::byte>;
using MutableByteView = std::span<std::byte>;

inline ByteView AsBytes(std::string_view s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}
inline std::string_view AsChars(ByteView b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// Buffers start on a 64-byte boundary. malloc promises only 16, and on some
// CPUs (measured on AMD EPYC) the kernel's copy into user memory, the copy
// of every read or pread, runs at a quarter of its speed when the
// destination is 16- but not 32-byte aligned.
inline constexpr size_t kBufferAlignment = 64;

namespace internal {
// The memory of Buffers. Blocks of kPooledBufferBytes and more come from,
// and go back to, a process-wide cache of freed blocks (at most
// kBufferCacheBytes in all), so that reading or writing chunk after chunk
// reuses memory that is already paged in instead of having the kernel zero
// fresh pages for every chunk, which costs as much as the read itself on
// some machines. Such blocks are rounded up to one of 8 sizes per power of
// two; `capacity` is updated to the size handed out. Under AddressSanitizer
// nothing is cached, so that every use after free is still caught.
// 256 KiB and up: a zstd-compressed inner chunk of 64^3 two-byte values
// (about 512 KiB) is one: without the cache, a round trip of 2 GiB in
// such chunks page-faulted 460 MB of glibc heap that came and went.
inline constexpr size_t kPooledBufferBytes = size_t{256} << 10;
inline constexpr size_t kBufferCacheBytes = size_t{256} << 20;
std::byte* AllocateBufferBytes(size_t& capacity);
void FreeBufferBytes(std::byte* p, size_t capacity) noexcept;
// Bytes held by the cache now (for tests).
size_t CachedBufferBytes();

// A Buffer's deleter: the block goes back with its size.
struct FreeBufferBlock {
  size_t capacity = 0;
  void operator()(std::byte* p) const { FreeBufferBytes(p, capacity); }
};
}  // namespace internal

class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t size) { Resize(size); }
  Buffer(ByteView bytes) { Assign(bytes); }  // NOLINT: copies the bytes
  static Buffer FromString(std::string_view s) { return Buffer(AsBytes(s)); }

  Buffer(Buffer&& other) noexcept { *this = std::move(other); }
  Buffer& operator=(Buffer&& other) noexcept {
    data_ = std::move(other.data_);
    size_ = other.size_;
    capacity_ = other.capacity_;
    other.size_ = other.capacity_ = 0;
    return *this;
  }
  Buffer(const Buffer& other) { Assign(other.view()); }
  Buffer& operator=(const Buffer& other) {
    if (this != &other) Assign(other.view());
    return *this;
  }

  std::byte* data() { return data_.get(); }
  const std::byte* data() const { return data_.get(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return capacity_; }

  ByteView view() const { return {data_.get(), size_}; }
  MutableByteView mutable_view() { return {data_.get(), size_}; }
  operator ByteView() const { return view(); }  // NOLINT
  std::string_view chars() const { return AsChars(view()); }

  // New bytes past the old size are uninitialised. Keeps old contents.
  void Resize(size_t new_size) {
    if (new_size > capacity_) Reserve(new_size);
    size_ = new_size;
  }
  void Reserve(size_t new_capacity) {
    if (new_capacity <= capacity_) return;
    std::byte* block = internal::AllocateBufferBytes(new_capacity);
    Bytes fresh(block, internal::FreeBufferBlock{new_capacity});
    if (size_ > 0) std::memcpy(fresh.get(), data_.get(), size_);
    data_ = std::move(fresh);
    capacity_ = new_capacity;
  }
  void Clear() { size_ = 0; }
  void Assign(ByteView bytes) {
    size_ = 0;
    Append(bytes);
  }
  void Append(ByteView bytes) {
    if (bytes.empty()) return;
    size_t old = size_;
    if (old + bytes.size() > capacity_) Reserve(std::max(old + bytes.size(), capacity_ * 2));
    std::memcpy(data_.get() + old, bytes.data(), bytes.size());
    size_ = old + bytes.size();
  }

  bool operator==(const Buffer& other) const {
    return size_ == other.size_ &&
           (size_ == 0 || std::memcmp(data(), other.data(), size_) == 0);
  }

 private:
  using Bytes = std::unique_ptr<std::byte[], internal::FreeBufferBlock>;
  Bytes data_;
  size_t size_ = 0;
  size_t capacity_ = 0;
};

}  // namespace turbozarr
