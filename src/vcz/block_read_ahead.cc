#include "vcz/block_read_ahead.h"

#include <algorithm>
#include <system_error>
#include <utility>

namespace turbozarr::vcz::internal {

BlockReadAhead::BlockReadAhead(size_t count, size_t ahead,
                               std::function<Result<Fields>(size_t)> read)
    : count_(count), ahead_(ahead), read_(std::move(read)) {
  const size_t lanes = std::min(ahead, count);
  try {
    for (size_t i = 0; i < lanes; ++i) lanes_.emplace_back([this] { Lane(); });
  } catch (const std::system_error&) {
    // Fewer lanes, or none: Next() then reads the blocks itself.
  }
}

BlockReadAhead::~BlockReadAhead() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  lane_cv_.notify_all();
  for (std::thread& t : lanes_) t.join();
}

void BlockReadAhead::Lane() {
  std::unique_lock lock(mu_);
  while (true) {
    ++lanes_waiting_;
    lane_cv_.wait(lock, [&] {
      return stopping_ || next_claim_ >= count_ || next_claim_ < next_hand_ + ahead_;
    });
    --lanes_waiting_;
    if (stopping_ || next_claim_ >= count_) return;
    const size_t i = next_claim_++;
    lock.unlock();
    Result<Fields> fields = read_(i);
    lock.lock();
    read_blocks_.emplace(i, std::move(fields));
    if (next_waiting_ && i == next_hand_) ready_cv_.notify_one();
  }
}

Result<BlockReadAhead::Fields> BlockReadAhead::Next() {
  std::unique_lock lock(mu_);
  const size_t i = next_hand_;
  if (lanes_.empty()) {
    ++next_hand_;
    lock.unlock();
    return read_(i);
  }
  next_waiting_ = true;
  ready_cv_.wait(lock, [&] { return read_blocks_.count(i) > 0; });
  next_waiting_ = false;
  auto node = read_blocks_.extract(i);
  ++next_hand_;
  // One more block may be claimed now.
  if (lanes_waiting_ > 0) lane_cv_.notify_one();
  return std::move(node.mapped());
}

}  // namespace turbozarr::vcz::internal
