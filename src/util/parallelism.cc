#include "util/parallelism.h"

#include <algorithm>

namespace turbozarr {
namespace {

thread_local int tls_codec_threads = 1;

}  // namespace

int CodecThreads() { return tls_codec_threads; }

int CodecThreadsPerItem(int64_t items, int concurrency) {
  if (items <= 0 || concurrency <= 1) return 1;
  return static_cast<int>(std::max<int64_t>(1, concurrency / items));
}

ScopedCodecThreads::ScopedCodecThreads(int threads) : saved_(tls_codec_threads) {
  tls_codec_threads = std::max(1, threads);
}

ScopedCodecThreads::~ScopedCodecThreads() { tls_codec_threads = saved_; }

}  // namespace turbozarr
