// Writing a seed input of the fuzzers whose first byte selects a case (the
// codec and shard fuzzers): the selector, then the case's bytes. Shared by
// the seed generators (make_fuzz_seeds, make_shard_seeds).
#pragma once

#include <fstream>
#include <string>

#include "turbozarr/buffer.h"

namespace turbozarr::fuzz {

// Writes `selector` then `body` to `path`; false if the file could not be
// written whole.
inline bool WriteSeed(const std::string& path, unsigned char selector, const Buffer& body) {
  std::ofstream out(path, std::ios::binary);
  out.put(static_cast<char>(selector));
  out.write(reinterpret_cast<const char*>(body.data()),
            static_cast<std::streamsize>(body.size()));
  return static_cast<bool>(out);
}

}  // namespace turbozarr::fuzz
