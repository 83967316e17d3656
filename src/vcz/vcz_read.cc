// ReadFields and VariantBlockReader: the values of chosen fields for the
// selected variants and samples, gathered block by block (the engine of
// turbozarr.vcz.read and turbozarr.vcz.iter_blocks).
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "turbozarr/fork_safety.h"
#include "turbozarr/vcz.h"
#include "vcz/samples.h"
#include "vcz/variant_scan.h"

namespace turbozarr::vcz {
namespace {

constexpr const char* kVariantIndex = "variant_index";

// Copies the kept rows of each scan block into FieldValues: for call fields
// the selected samples only.
class Gatherer {
 public:
  static Result<Gatherer> Make(const VczDataset& dataset, internal::VariantScan& scan,
                               const std::vector<std::string>& names) {
    Gatherer g;
    // The selected samples matter to call fields alone.
    const bool call = std::any_of(names.begin(), names.end(), [](const std::string& n) {
      return n.rfind("call_", 0) == 0;
    });
    if (call) {
      TZ_ASSIGN_OR_RETURN(const std::vector<int64_t>* columns, scan.Columns());
      g.columns_ = *columns;
    }
    g.columns_consecutive_ = internal::Consecutive(g.columns_);
    if (!g.columns_.empty()) g.first_column_ = {g.columns_[0]};
    for (const std::string& name : names) {
      FieldValues& f = g.empty_.emplace_back();
      f.name = name;
      if (name == kVariantIndex && !dataset.Has(name)) {
        f.dtype = DataType(DataTypeId::kInt64);
        f.shape = {0};
        g.slots_.push_back(std::nullopt);
        continue;
      }
      TZ_ASSIGN_OR_RETURN(g.slots_.emplace_back(), scan.Need(name));
      TZ_ASSIGN_OR_RETURN(std::shared_ptr<Array> array, dataset.OpenArray(name));
      f.dtype = array->dtype();
      const bool text = f.dtype.is_variable_length() ||
                        f.dtype.id() == DataTypeId::kFixedBytes ||
                        f.dtype.id() == DataTypeId::kFixedUnicode;
      if (text) f.dtype = DataType(DataTypeId::kString);
      f.shape = array->shape();
      f.shape[0] = 0;
      if (name.rfind("call_", 0) == 0) f.shape[1] = static_cast<int64_t>(g.columns_.size());
    }
    for (const std::optional<size_t>& slot : g.slots_) {
      g.sole_use_.push_back(slot && std::count(g.slots_.begin(), g.slots_.end(), slot) == 1);
    }
    return g;
  }

  // The fields with no rows yet.
  const std::vector<FieldValues>& empty() const { return empty_; }

  // Appends the kept rows of `block` to `out` (as empty() made them).
  void Append(const internal::ScanBlock& block, std::vector<FieldValues>& out) const {
    static const std::vector<int64_t> kWholeRow = {0};  // a variant field's one unit per row
    for (size_t i = 0; i < out.size(); ++i) {
      FieldValues& f = out[i];
      f.shape[0] += static_cast<int64_t>(block.rows.size());
      if (!slots_[i]) {
        for (int64_t r : block.rows) {
          const int64_t index = block.first + r;
          f.bytes.Append({reinterpret_cast<const std::byte*>(&index), sizeof index});
        }
        continue;
      }
      const internal::FieldBlock& b = (*block.fields)[*slots_[i]];
      const bool call = f.name.rfind("call_", 0) == 0;
      // Elements per kept unit: a sample's values for a call field, a
      // variant's otherwise; the units of a row: the selected samples, or
      // the row itself. Consecutive samples are copied as one run.
      const int64_t per_unit = call ? b.per_row_of(1) : b.per_variant();
      const size_t item = b.is_string() ? 0 : b.dtype().size();
      const bool run = !call || columns_consecutive_;
      const int64_t per_copy =
          call && run ? per_unit * static_cast<int64_t>(columns_.size()) : per_unit;
      const std::vector<int64_t>& units = !call ? kWholeRow : run ? first_column_ : columns_;
      // Every row kept, each exactly as read: the block's values are the
      // field's, handed over rather than copied (the usual bulk read).
      if (!b.is_string() && sole_use_[i] && f.bytes.empty() &&
          static_cast<int64_t>(block.rows.size()) == block.count && run &&
          b.ReadExactly(units[0] * per_unit, per_copy)) {
        f.bytes = (*block.fields)[*slots_[i]].TakeNumbers();
        continue;
      }
      // Room for the block, growing geometrically (read gathers every block
      // into one vector: an exact reserve each time would copy it again).
      auto room = [](auto& v, size_t more) {
        if (v.capacity() < v.size() + more) v.reserve(std::max(v.size() + more, 2 * v.capacity()));
      };
      const size_t more = block.rows.size() * units.size() * static_cast<size_t>(per_copy);
      if (b.is_string()) {
        room(f.strings, more);
      } else {
        const size_t need = f.bytes.size() + more * item;
        if (f.bytes.capacity() < need) f.bytes.Reserve(std::max(need, 2 * f.bytes.capacity()));
      }
      for (int64_t r : block.rows) {
        for (int64_t u : units) {
          if (b.is_string()) {
            const std::string* from = b.StringAt(r, u * per_unit);
            f.strings.insert(f.strings.end(), from, from + per_copy);
          } else {
            const auto* from = reinterpret_cast<const std::byte*>(b.NumberAt(r, u * per_unit));
            f.bytes.Append({from, static_cast<size_t>(per_copy) * item});
          }
        }
      }
    }
  }

 private:
  std::vector<FieldValues> empty_;
  std::vector<std::optional<size_t>> slots_;  // none: variant_index
  std::vector<bool> sole_use_;  // whether no other field reads the slot
  std::vector<int64_t> columns_;
  // Whether the columns are consecutive samples (copied as one run from the
  // first, first_column_).
  bool columns_consecutive_ = true;
  std::vector<int64_t> first_column_;
};

int64_t BytesOf(const std::vector<FieldValues>& fields) {
  int64_t n = 0;
  for (const FieldValues& f : fields) {
    n += static_cast<int64_t>(f.bytes.size());
    for (const std::string& s : f.strings) n += static_cast<int64_t>(s.size() + sizeof s);
  }
  return n;
}

}  // namespace

Result<std::vector<FieldValues>> ReadFields(const VczDataset& dataset,
                                            const SubsetOptions& options,
                                            const std::vector<std::string>& names) {
  TZ_ASSIGN_OR_RETURN(internal::VariantScan scan,
                      internal::VariantScan::Make(
                          dataset, options, internal::VariantScan::FilterSamples::kSelected));
  TZ_ASSIGN_OR_RETURN(const Gatherer gatherer, Gatherer::Make(dataset, scan, names));
  std::vector<FieldValues> out = gatherer.empty();
  TZ_RETURN_NOT_OK(scan.ForEachBlock([&](const internal::ScanBlock& block) {
    gatherer.Append(block, out);
    return Status::OK();
  }));
  return out;
}

// The queue between the read-ahead thread and the consumer. Its mutex is
// one that fork() never copies locked (turbozarr/fork_safety.h), so a fork child
// finds the queue whole: it keeps the blocks read before the fork and reads
// on from the first variant not yet queued, on a thread of its own (the
// parent's thread is not in the child).
struct VariantBlockReader::State {
  State(internal::VariantScan s, Gatherer g) : scan(std::move(s)), gatherer(std::move(g)) {}

  std::shared_ptr<const VczDataset> dataset;
  internal::VariantScan scan;
  Gatherer gatherer;
  turbozarr::internal::ForkSafeMutex mutex;
  std::condition_variable changed;
  // Read, not yet taken, with their sizes in bytes.
  std::deque<std::pair<std::vector<FieldValues>, int64_t>> blocks;
  int64_t waiting_bytes = 0, peak_waiting_bytes = 0, budget = 0;
  int64_t next_variant = 0;  // where the next block read starts, at the latest
  bool done = false, stop = false;
  // Who sleeps on `changed`: small blocks make thousands of hand-overs, and
  // a wake-up nobody waits for still costs a system call.
  bool reader_waits = false, consumer_waits = false;
  Status status;  // why the reading ended early
  std::thread thread;
  turbozarr::internal::ForkEpoch epoch;

  // Runs on the thread: reads the blocks from next_variant on.
  void ReadBlocks() {
    int64_t from;
    {
      std::lock_guard lock(mutex);
      from = next_variant;
    }
    Status read = scan.ForEachBlock(
        [&](const internal::ScanBlock& block) -> Status {
          std::vector<FieldValues> fields = gatherer.empty();
          gatherer.Append(block, fields);
          const int64_t bytes = BytesOf(fields);
          std::unique_lock lock(mutex.native());
          // Wait while the budget is spent; a block always goes when none waits.
          reader_waits = true;
          changed.wait(lock, [&] {
            return stop || blocks.empty() || waiting_bytes + bytes <= budget;
          });
          reader_waits = false;
          if (stop) return Status::Cancelled("the block reader was closed");
          blocks.emplace_back(std::move(fields), bytes);
          next_variant = block.first + block.count;
          waiting_bytes += bytes;
          peak_waiting_bytes = std::max(peak_waiting_bytes, waiting_bytes);
          if (consumer_waits) changed.notify_all();
          return Status::OK();
        },
        from);
    std::lock_guard lock(mutex);
    status = std::move(read);
    done = true;
    changed.notify_all();
  }

  void Start() {
    thread = std::thread([this] { ReadBlocks(); });
  }

  // In a fork child: forgets the parent's thread (which can be neither
  // joined nor destroyed) and the condition variable it may wait on.
  void AbandonParentThread() {
    turbozarr::internal::ReplaceWithoutDestroying(thread);
    turbozarr::internal::ReplaceWithoutDestroying(changed);
  }

  void RenewAfterFork() {
    AbandonParentThread();
    std::lock_guard lock(mutex);
    if (done || stop) return;
    try {
      Start();
    } catch (const std::system_error& e) {
      status = Status::IOError(std::string("cannot read blocks on after fork: ") + e.what());
      done = true;
    }
  }
};

Result<std::unique_ptr<VariantBlockReader>> VariantBlockReader::Open(
    std::shared_ptr<const VczDataset> dataset, const SubsetOptions& options,
    const std::vector<std::string>& names, int64_t readahead_bytes) {
  if (readahead_bytes < 0) {
    return Status::InvalidArgument("readahead_bytes must not be negative (got " +
                                   std::to_string(readahead_bytes) + ")");
  }
  // The selection, the filter and the fields are checked here, so that a
  // bad option fails the call rather than the first block.
  TZ_ASSIGN_OR_RETURN(internal::VariantScan scan,
                      internal::VariantScan::Make(
                          *dataset, options, internal::VariantScan::FilterSamples::kSelected));
  TZ_ASSIGN_OR_RETURN(Gatherer gatherer, Gatherer::Make(*dataset, scan, names));
  auto state = std::make_unique<State>(std::move(scan), std::move(gatherer));
  state->dataset = std::move(dataset);
  state->budget = readahead_bytes;
  state->Start();
  return std::unique_ptr<VariantBlockReader>(new VariantBlockReader(std::move(state)));
}

VariantBlockReader::VariantBlockReader(std::unique_ptr<State> state) : state_(std::move(state)) {}

VariantBlockReader::~VariantBlockReader() {
  if (state_->epoch.Forked()) {  // in a fork child that never read
    state_->AbandonParentThread();
    return;
  }
  {
    std::lock_guard lock(state_->mutex);
    state_->stop = true;
    state_->changed.notify_all();
  }
  state_->thread.join();
}

Result<std::optional<std::vector<FieldValues>>> VariantBlockReader::Next() {
  state_->epoch.RenewIfForked([this] { state_->RenewAfterFork(); });
  std::unique_lock lock(state_->mutex.native());
  state_->consumer_waits = true;
  state_->changed.wait(lock, [&] { return !state_->blocks.empty() || state_->done; });
  state_->consumer_waits = false;
  if (state_->blocks.empty()) {
    if (!state_->status.ok()) return state_->status;
    return std::optional<std::vector<FieldValues>>();
  }
  auto [fields, bytes] = std::move(state_->blocks.front());
  state_->blocks.pop_front();
  state_->waiting_bytes -= bytes;
  if (state_->reader_waits) state_->changed.notify_all();
  return std::optional<std::vector<FieldValues>>(std::move(fields));
}

int64_t VariantBlockReader::peak_waiting_bytes() const {
  std::lock_guard lock(state_->mutex);
  return state_->peak_waiting_bytes;
}

}  // namespace turbozarr::vcz
