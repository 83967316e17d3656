// Byte-exact encodings written by numcodecs 0.16.6 / zarr-python 3.1.6 (and
// the zstd command-line tool), for the compressor tests to decode. Unless
// said otherwise the decoded data is int32 arange(64), little-endian (256
// bytes).
#pragma once

#include <cstdint>
#include <cstring>

#include "turbozarr/buffer.h"

namespace turbozarr::testing {

inline Buffer Arange32(int n) {
  Buffer b(static_cast<size_t>(n) * 4);
  for (int32_t i = 0; i < n; ++i) std::memcpy(b.data() + 4 * i, &i, 4);
  return b;
}

// numcodecs.Blosc(cname="lz4", clevel=5, shuffle=SHUFFLE)
inline constexpr const char* kBloscLz4Shuffle =
    "020131040001000000010000680000001400000050000000ff36000102030405060708090a0b0c0d0e0f"
    "101112131415161718191a1b1c1d1e1f202122232425262728292a2b2c2d2e2f30313233343536373839"
    "3a3b3c3d3e3f00000000000500a3500000000000";
// numcodecs.Blosc(cname="zstd", clevel=3, shuffle=BITSHUFFLE)
inline constexpr const char* kBloscZstdBitshuffle =
    "0201940400010000000100003e000000140000002600000028b52ffd600000e5000038aaccf000ff00ff"
    "0820a082f74950d80311c066dc8c64360b99bf02";
// The 16-byte header of numcodecs.Blosc(cname="blosclz", clevel=9,
// shuffle=NOSHUFFLE), which stores this input raw after it.
inline constexpr const char* kBloscBlosclzHeader = "02011204000100000001000010010000";
// zarr-python, v3 array int32 arange(16) with numcodecs.Blosc(cname="lz4",
// shuffle=-1): typesize 1, bitshuffle, stored raw.
inline constexpr const char* kNumcodecsV3Blosc =
    "020136014000000040000000500000000000000001000000020000000300000004000000050000000600"
    "00000700000008000000090000000a0000000b0000000c0000000d0000000e0000000f000000";
// zarr-python, v2 array <i4 arange(16), Blosc(cname="zstd", clevel=1,
// shuffle=-1): typesize 4, byte shuffle, stored raw.
inline constexpr const char* kV2Blosc =
    "020193044000000040000000500000000000000001000000020000000300000004000000050000000600"
    "00000700000008000000090000000a0000000b0000000c0000000d0000000e0000000f000000";

// numcodecs.Zstd(level=1)
inline constexpr const char* kZstdL1 =
    "28b52ffd6000003503000690180810f86c061fab4c011400150015006f9cf1c5154f1cf1c30d2f9cf0c1"
    "050f1cf0ef03ef9cf3cd35cf1cf3cb2daf9cf2c9258f1cf2c71d016f9df5d5554f1df5d34d2f9df4d145"
    "0f1df4cf3d01ef9df7dd75cf1df7db6daf9df6d9658f1df6d75d0100";
// numcodecs.Zstd(level=3, checksum=True)
inline constexpr const char* kZstdChecksum =
    "28b52ffd6400003503000690180810f86c061fab4c011400150015006f9cf1c5154f1cf1c30d2f9cf0c1"
    "050f1cf0ef03ef9cf3cd35cf1cf3cb2daf9cf2c9258f1cf2c71d016f9df5d5554f1df5d34d2f9df4d145"
    "0f1df4cf3d01ef9df7dd75cf1df7db6daf9df6d9658f1df6d75d0100c58db2fb";
// `zstd -1` reading a pipe: no content size in the frame.
inline constexpr const char* kZstdNoSize =
    "28b52ffd04483503000690180810f86c061fab4c011400150015006f9cf1c5154f1cf1c30d2f9cf0c105"
    "0f1cf0ef03ef9cf3cd35cf1cf3cb2daf9cf2c9258f1cf2c71d016f9df5d5554f1df5d34d2f9df4d1450f"
    "1df4cf3d01ef9df7dd75cf1df7db6daf9df6d9658f1df6d75d0100c58db2fb";
// zarr-python 3.1.6 default compressor (zstd level 0), float64
// linspace(0, 1, 8).
inline constexpr const char* kZarrDefaultF8 =
    "28b52ffd20406d0100e00000922449922449c23fd23fdbb66de23fe6eb3f000000000000f03f06003bb3"
    "90397066069dd52b830f000b";

// numcodecs.GZip(level=1)
inline constexpr const char* kGzipL1 =
    "1f8b080008210d6b04ff0dc3055202400000c003a5a43ba441a5bb24ffff2b76673684102246fdf0d398"
    "7113264df965da8c5973e62d58b464d98a556bd66dd8b4e5b76d3b76edd977e0d091637ffcf5cf895367"
    "ce5db874e5da8d5b77ee3d78f4e4d98bff5ebd79f7e1d3976f47918ec900010000";
// GZip(1).encode(data[:100]) + GZip(9).encode(data[100:]): two members.
inline constexpr const char* kGzipTwoMembers =
    "1f8b080008210d6b04ff0dc3870d80300c00b0b0cb2c65ff7f29b6e48888cadac6d6cedec1e4e8e4ece2"
    "ea6676b778787a79fbf8faf903f2ac3177640000001f8b080008210d6b02ff0dc30b1281500000c0770d"
    "49d14785121251baffadecceec268410b935766762eade8399b985a5472b6b1b4f9ebdd8da79b5f7e6dd"
    "87834f475fbe9dfcf87576f1e7ea1f03557b859c000000";
// numcodecs.Zlib(level=1)
inline constexpr const char* kZlibL1 =
    "78010dc3055202400000c003a5a43ba441a5bb24ffff2b76673684102246fdf0d3987113264df965da8c"
    "5973e62d58b464d98a556bd66dd8b4e5b76d3b76edd977e0d091637ffcf5cf895367ce5db874e5da8d5b"
    "77ee3d78f4e4d98bff5ebd79f7e1d3976fab9e07e1";
// numcodecs.BZ2(level=1)
inline constexpr const char* kBz2L1 =
    "425a6831314159265359e392b767000001f8007fffffffffffffffa0005456a02602304c0134c9a604c9"
    "84c4c0398002600026000000007807df808418828c390494599f8d38f41149351559761969bfee3af3f0"
    "4314724b34f453557659f6dbafc3f63967ff4d76df8dc0400002e45dc914e142438e4add9c";
// numcodecs.LZ4(): uint32 LE size, then an LZ4 block.
inline constexpr const char* kLz4 =
    "00010000f0f1000000000100000002000000030000000400000005000000060000000700000008000000"
    "090000000a0000000b0000000c0000000d0000000e0000000f0000001000000011000000120000001300"
    "00001400000015000000160000001700000018000000190000001a0000001b0000001c0000001d000000"
    "1e0000001f00000020000000210000002200000023000000240000002500000026000000270000002800"
    "0000290000002a0000002b0000002c0000002d0000002e0000002f000000300000003100000032000000"
    "330000003400000035000000360000003700000038000000390000003a0000003b0000003c0000003d00"
    "00003e0000003f000000";

// zarr-python v3 arrays of int32 arange(16) with zarr.codecs.numcodecs
// compressors (configuration in the comment).
// numcodecs.lz4 {}
inline constexpr const char* kNumcodecsV3Lz4 =
    "40000000f031000000000100000002000000030000000400000005000000060000000700000008000000"
    "090000000a0000000b0000000c0000000d0000000e0000000f000000";
// numcodecs.zlib {"level": 1}
inline constexpr const char* kNumcodecsV3Zlib =
    "78010dc30912c0101000b075548be2ffbf95cc242222992d561f9baf9fdde1f477b93d5e0ae00079";
// numcodecs.bz2 {"level": 1}
inline constexpr const char* kNumcodecsV3Bz2 =
    "425a6831314159265359ffa2b9da000001c0007fffa000219432308c8530004d2f046748bbe33c4f7d57"
    "44123e2ee48a70a121ff4573b4";
// numcodecs.zstd {"level": 1}
inline constexpr const char* kNumcodecsV3Zstd =
    "28b52ffd2040ed00000244068e52111111111111106f675f574f473f372f271f170f07bf0f00";
// numcodecs.gzip {"level": 1}
inline constexpr const char* kNumcodecsV3Gzip =
    "1f8b080001210d6b04ff0dc30912c0101000b075548be2ffbf95cc242222992d561f9baf9fdde1f477b9"
    "3d5ec97c89e140000000";

}  // namespace turbozarr::testing
