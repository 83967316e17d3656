// The readahead machinery behind BlockIterator (see
// turbozarr/block_iterator.h): lanes claim blocks in order while the budget
// allows, read each with Array::Read into a fresh buffer, and park it in a
// window of slots that Next() drains from the front. In a fork child the
// lanes are gone: the first Next() there keeps the blocks they had read,
// forgets those being read, and starts new lanes.
#include "turbozarr/block_iterator.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "array/block_plan.h"
#include "turbozarr/config.h"
#include "turbozarr/fork_safety.h"
#include "util/thread_pool.h"

namespace turbozarr {
namespace {

// Background threads that read blocks; see the header for why two.
constexpr int kLanes = 2;

// Blocks of at least this size ask for transparent huge pages, as numpy
// does for its arrays: a fresh block is written once, and faulting it in
// 4 KiB pages costs about as much CPU as decoding it.
constexpr size_t kHugePageMinBytes = size_t{4} << 20;

void AdviseHugePages(Buffer& buffer) {
#ifdef MADV_HUGEPAGE
  if (buffer.size() < kHugePageMinBytes) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(buffer.data());
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t aligned = (begin + page - 1) & ~(page - 1);
  // Only advice: where the kernel has no huge pages this fails harmlessly.
  madvise(reinterpret_cast<void*>(aligned), buffer.size() - (aligned - begin),
          MADV_HUGEPAGE);
#endif
}

// A block claimed by a lane: being read (done false) or read.
struct Slot {
  uint64_t bytes = 0;
  bool done = false;
  Block block;
  Status status;
};

}  // namespace

struct BlockIterator::Impl {
  std::shared_ptr<const Array> array;
  internal::BlockPlan plan;
  uint64_t budget = 0;
  ReadOptions read;  // each block's read: the pool it runs on
  int num_lanes = 0;

  // Fork-safe (turbozarr/fork_safety.h), so that a fork child finds the window
  // whole. Condition variables wait on mu.native().
  internal::ForkSafeMutex mu;
  std::condition_variable lane_cv;   // budget freed, or stopping
  std::condition_variable ready_cv;  // a block finished reading
  // Slots of blocks [next_hand, next_claim), in order.
  std::deque<Slot> window;
  int64_t next_hand = 0;
  int64_t next_claim = 0;
  uint64_t window_bytes = 0;  // bytes of the slots in `window`
  uint64_t held_bytes = 0;    // bytes of the block handed out last
  bool stopping = false;      // destroying, or an error ended the reads
  Status failure;             // returned by every Next() once set
  std::vector<std::thread> lanes;
  internal::ForkEpoch epoch;

  ~Impl() {
    if (epoch.Forked()) {
      AbandonParentLanes();
      return;
    }
    {
      std::lock_guard<internal::ForkSafeMutex> lock(mu);
      stopping = true;
    }
    lane_cv.notify_all();
    for (std::thread& t : lanes) t.join();
  }

  // Throws std::system_error as std::thread does; the lanes started run.
  void StartLanes() {
    for (int i = 0; i < num_lanes; ++i) lanes.emplace_back([this] { LaneLoop(); });
  }

  // In a fork child: forgets the parent's lanes, which can be neither
  // joined nor destroyed, and the condition variables they wait on (whose
  // destructors would wait for them).
  void AbandonParentLanes() {
    internal::ReplaceWithoutDestroying(lanes);
    internal::ReplaceWithoutDestroying(lane_cv);
    internal::ReplaceWithoutDestroying(ready_cv);
  }

  // In a fork child: the blocks being read went with the lanes reading
  // them, so the window keeps the blocks read up to the first of those, and
  // new lanes claim the rest again.
  void RenewAfterFork() {
    AbandonParentLanes();
    std::lock_guard<internal::ForkSafeMutex> lock(mu);
    size_t kept = 0;
    while (kept < window.size() && window[kept].done) ++kept;
    window.erase(window.begin() + static_cast<std::ptrdiff_t>(kept), window.end());
    next_claim = next_hand + static_cast<int64_t>(kept);
    window_bytes = 0;
    stopping = false;
    for (const Slot& slot : window) {
      window_bytes += slot.bytes;
      // A failure read before the fork still ends the reads.
      if (!slot.status.ok()) stopping = true;
    }
    try {
      StartLanes();
    } catch (const std::system_error& e) {
      if (lanes.empty()) {
        failure = Status::IOError(std::string("cannot start block reads after fork: ") +
                                  e.what());
      }
    }
  }

  // Whether a lane may start reading block next_claim.
  bool CanClaim() const {
    if (next_claim >= plan.num_blocks()) return false;
    // Plan guarantees one block fits the budget, so an empty pipeline can
    // always take one and nothing waits forever.
    return window_bytes + held_bytes + plan.BlockBytes(next_claim) <= budget;
  }

  void LaneLoop() {
    std::unique_lock<std::mutex> lock(mu.native());
    for (;;) {
      lane_cv.wait(lock, [&] {
        return stopping || next_claim >= plan.num_blocks() || CanClaim();
      });
      if (stopping || next_claim >= plan.num_blocks()) return;
      const int64_t index = next_claim++;
      const uint64_t bytes = plan.BlockBytes(index);
      window_bytes += bytes;
      window.push_back(Slot{bytes, false, {}, {}});
      lock.unlock();

      Block block;
      block.index = index;
      plan.BlockAt(index, &block.selection, &block.origin);
      block.data.Resize(bytes);
      AdviseHugePages(block.data);
      Status status = array->Read(
          block.selection,
          ElementSpan(block.data.data(), array->dtype(), block.selection.num_elements()),
          read);
      if (!status.ok()) {
        status = status.WithContext("block " + std::to_string(index) + " " +
                                    block.selection.ToString());
      }

      lock.lock();
      Slot& slot = window[static_cast<size_t>(index - next_hand)];
      slot.block = std::move(block);
      slot.status = std::move(status);
      slot.done = true;
      // Reading on past a failure would only waste work: Next() stops there.
      if (!slot.status.ok()) stopping = true;
      ready_cv.notify_one();
      if (stopping) {
        lane_cv.notify_all();
        return;
      }
    }
  }

  Result<std::optional<Block>> Next() {
    epoch.RenewIfForked([this] { RenewAfterFork(); });
    std::unique_lock<std::mutex> lock(mu.native());
    if (!failure.ok()) return failure;
    // The caller is done with the block handed out last.
    held_bytes = 0;
    lane_cv.notify_all();
    if (next_hand >= plan.num_blocks()) return std::optional<Block>();
    ready_cv.wait(lock, [&] { return !window.empty() && window.front().done; });
    Slot slot = std::move(window.front());
    window.pop_front();
    ++next_hand;
    window_bytes -= slot.bytes;
    if (!slot.status.ok()) {
      failure = std::move(slot.status);
      return failure;
    }
    held_bytes = slot.bytes;
    return std::optional<Block>(std::move(slot.block));
  }
};

Result<BlockIterator> BlockIterator::Make(std::shared_ptr<const Array> array,
                                          Selection selection, IterateOptions options) {
  if (array == nullptr) return Status::InvalidArgument("BlockIterator needs an array");
  const std::string where = array->Describe();
  TZ_RETURN_NOT_OK(selection.Validate(array->shape()).WithContext(where));
  if (array->dtype().is_variable_length()) {
    return Status::Unsupported(where +
                               ": block iteration needs a fixed-size data type, not " +
                               array->dtype().ToString() +
                               " (a byte budget cannot bound strings of unknown length)");
  }
  TZ_ASSIGN_OR_RETURN(
      internal::BlockPlan plan,
      internal::MakeBlockPlan(array->metadata(), selection, options, where));
  auto impl = std::make_unique<Impl>();
  impl->array = std::move(array);
  impl->plan = std::move(plan);
  impl->budget = options.readahead_bytes;
  impl->read.pool = options.pool;
  // One lane when the pool is one thread: a second would decode beside it.
  const int threads = ThreadPool::OrDefault(options.pool)->concurrency();
  impl->num_lanes =
      static_cast<int>(std::min<int64_t>({kLanes, threads, impl->plan.num_blocks()}));
  impl->StartLanes();
  return BlockIterator(std::move(impl));
}

BlockIterator::BlockIterator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
BlockIterator::BlockIterator(BlockIterator&&) noexcept = default;
BlockIterator& BlockIterator::operator=(BlockIterator&&) noexcept = default;
BlockIterator::~BlockIterator() = default;

Result<std::optional<Block>> BlockIterator::Next() { return impl_->Next(); }
int64_t BlockIterator::num_blocks() const { return impl_->plan.num_blocks(); }
const std::vector<int64_t>& BlockIterator::block_shape() const {
  return impl_->plan.cell_shape();
}
uint64_t BlockIterator::max_block_bytes() const { return impl_->plan.max_block_bytes(); }

}  // namespace turbozarr
