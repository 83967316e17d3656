# Every third-party library turbozarr links, found from the system (Debian's
# packages, installed by scripts/setup.sh).
find_package(Threads REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(ZLIB REQUIRED)
find_package(BZip2 REQUIRED)
find_package(LibLZMA REQUIRED)  # numcodecs' lzma codec
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED IMPORTED_TARGET libzstd)
pkg_check_modules(LZ4 REQUIRED IMPORTED_TARGET liblz4)
# c-blosc: the 1.21.7 that scripts/build_blosc.sh builds into .deps/c-blosc
# when it is there (Debian's 1.21.3 decodes bitshuffled chunks about 25%
# slower), else the system's. Either way the installed package config links
# the system's (the interface is the same); only this tree's binaries, the
# Python modules and wheels carry the faster one.
set(TURBOZARR_BLOSC_ROOT "${PROJECT_SOURCE_DIR}/.deps/c-blosc" CACHE PATH
  "Prefix of a static c-blosc to prefer to the system's")
if(EXISTS "${TURBOZARR_BLOSC_ROOT}/lib/libblosc.a")
  add_library(tz_blosc STATIC IMPORTED)
  # Built over Debian's snappy (scripts/build_blosc.sh), which it links.
  find_library(TURBOZARR_SNAPPY_LIBRARY snappy REQUIRED)
  set_target_properties(tz_blosc PROPERTIES
    IMPORTED_LOCATION "${TURBOZARR_BLOSC_ROOT}/lib/libblosc.a"
    INTERFACE_INCLUDE_DIRECTORIES "${TURBOZARR_BLOSC_ROOT}/include"
    INTERFACE_LINK_LIBRARIES "${TURBOZARR_SNAPPY_LIBRARY}")
  set(TURBOZARR_BLOSC tz_blosc)
  message(STATUS "turbozarr: c-blosc from ${TURBOZARR_BLOSC_ROOT}")
else()
  pkg_check_modules(BLOSC REQUIRED IMPORTED_TARGET blosc)
  set(TURBOZARR_BLOSC PkgConfig::BLOSC)
endif()
pkg_check_modules(DEFLATE REQUIRED IMPORTED_TARGET libdeflate)
# libzfp (numcodecs' zfpy codec), found by hand: its CMake package asks for
# OpenMP in C, which a C++-only consumer of turbozarr's package has not.
find_path(TURBOZARR_ZFP_INCLUDE_DIR zfp.h REQUIRED)
find_library(TURBOZARR_ZFP_LIBRARY zfp REQUIRED)
add_library(tz_zfp UNKNOWN IMPORTED)
set_target_properties(tz_zfp PROPERTIES IMPORTED_LOCATION "${TURBOZARR_ZFP_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${TURBOZARR_ZFP_INCLUDE_DIR}")
find_package(CURL 7.85 REQUIRED)  # the HTTP transport (multi interface)
find_package(OpenSSL 1.1 REQUIRED COMPONENTS Crypto)  # SHA-256, HMAC, MD5 for S3 signing
find_package(SQLite3 REQUIRED)  # the bgenix index that `vcz view-bgen` writes
# CMake 4.3 renamed SQLite's target (the old name warns there).
if(TARGET SQLite3::SQLite3)
  set(TURBOZARR_SQLITE SQLite3::SQLite3)
else()
  set(TURBOZARR_SQLITE SQLite::SQLite3)
endif()

# The codec libraries, as one interface target for layers and the final link;
# blosc first: a static one needs zstd, lz4 and zlib after it on the line.
add_library(tz_codec_deps INTERFACE)
target_link_libraries(tz_codec_deps INTERFACE
  ${TURBOZARR_BLOSC} PkgConfig::ZSTD PkgConfig::LZ4 PkgConfig::DEFLATE
  ZLIB::ZLIB BZip2::BZip2 LibLZMA::LibLZMA tz_zfp Threads::Threads)

if(TURBOZARR_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()

# Warnings for the project's own code. GCC 12 reports -Wrestrict false
# positives inside std::string concatenation at -O2 and above (GCC bug 105329).
set(TURBOZARR_WARNINGS -Wall -Wextra -Wno-unused-parameter)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND TURBOZARR_WARNINGS -Wno-restrict)
endif()
