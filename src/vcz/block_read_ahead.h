// BlockReadAhead: the blocks of a scan read (and decoded) on a few threads
// of its own, the lanes, ahead of the thread that visits them, and handed
// over in order.
//
// The lanes live as long as the scan: a thread started per block would
// cost its start-up each time, and each new thread takes its memory from a
// fresh arena, so the codecs' scratch space would be faulted in anew for
// every block.
//
// Thread safety: one thread calls Next(); the lanes are internal.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "turbozarr/status.h"
#include "vcz/variant_block.h"

namespace turbozarr::vcz::internal {

class BlockReadAhead {
 public:
  using Fields = std::vector<FieldBlock>;
  // Blocks 0 .. count-1, block i read by read(i) on a lane; at most
  // `ahead` blocks are read or being read past the last one handed over.
  // With no lane (ahead 0, or none could start) Next() reads in turn.
  BlockReadAhead(size_t count, size_t ahead, std::function<Result<Fields>(size_t)> read);
  // Stops the lanes, waiting for the reads under way.
  ~BlockReadAhead();
  BlockReadAhead(const BlockReadAhead&) = delete;
  BlockReadAhead& operator=(const BlockReadAhead&) = delete;

  // The next block in order (there must be one left).
  Result<Fields> Next();

 private:
  void Lane();

  const size_t count_;
  const size_t ahead_;
  const std::function<Result<Fields>(size_t)> read_;
  std::mutex mu_;
  std::condition_variable lane_cv_;   // a block handed over, or stopping
  std::condition_variable ready_cv_;  // a block read
  std::map<size_t, Result<Fields>> read_blocks_;  // read, not yet handed over
  size_t next_claim_ = 0;  // the next block a lane reads
  size_t next_hand_ = 0;   // the next block Next() hands over
  // Who sleeps: a wake-up costs a system call, and small blocks make
  // thousands of them, so each side wakes the other only when it waits.
  size_t lanes_waiting_ = 0;
  bool next_waiting_ = false;
  bool stopping_ = false;
  std::vector<std::thread> lanes_;
};

}  // namespace turbozarr::vcz::internal
