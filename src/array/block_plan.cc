#include "array/block_plan.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

namespace turbozarr::internal {
namespace {

constexpr uint64_t kMaxBytes = std::numeric_limits<uint64_t>::max();

uint64_t SatMul(uint64_t a, uint64_t b) {
  if (a != 0 && b > kMaxBytes / a) return kMaxBytes;
  return a * b;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t d = 0; d < shape.size(); ++d) {
    if (d > 0) s += ", ";
    s += std::to_string(shape[d]);
  }
  return s + "]";
}

// The most selected elements of `r` that a cell of `cell` indices can hold.
int64_t CellCountBound(const DimRange& r, int64_t cell) {
  const int64_t per_cell = r.step > cell ? 1 : (cell + r.step - 1) / r.step;
  return std::min(r.count(), per_cell);
}

// Bytes of a block of one `unit` along dimensions 0..s and the whole
// selection along the others (an upper bound: edge cells hold fewer).
uint64_t SlabBytes(const Selection& sel, size_t item, const std::vector<int64_t>& unit,
                   size_t s) {
  uint64_t bytes = item;
  for (size_t d = 0; d < sel.rank(); ++d) {
    const DimRange& r = sel.dims()[d];
    const int64_t n = d <= s ? CellCountBound(r, unit[d]) : r.count();
    bytes = SatMul(bytes, static_cast<uint64_t>(n));
  }
  return bytes;
}

// The cell shape by the policy in turbozarr/block_iterator.h, or nullopt
// when not even one unit fits the budget.
std::optional<std::vector<int64_t>> ChooseCellShape(const ArrayMetadata& m,
                                                    const Selection& sel,
                                                    uint64_t budget) {
  const size_t rank = sel.rank();
  if (rank == 0) {
    if (m.dtype.size() > budget) return std::nullopt;
    return std::vector<int64_t>{};
  }
  // Whole shards (or chunks) first, then inner chunks of shards.
  std::vector<std::vector<int64_t>> units = {m.chunk_shape};
  if (std::optional<std::vector<int64_t>> inner = m.InnerChunkShape();
      inner && *inner != m.chunk_shape) {
    units.push_back(*inner);
  }
  const size_t item = m.dtype.size();
  const uint64_t quarter = budget / 4;

  auto make_cell = [&](const std::vector<int64_t>& unit, size_t s, uint64_t slab,
                       bool grow) {
    std::vector<int64_t> cell(rank);
    for (size_t d = 0; d < rank; ++d) {
      cell[d] = d < s ? unit[d] : std::max<int64_t>(1, m.shape[d]);
    }
    uint64_t k = grow && slab > 0 ? std::max<uint64_t>(1, quarter / slab) : 1;
    // k units reach past the array's end: the whole extent is one cell.
    const uint64_t whole = static_cast<uint64_t>(std::max<int64_t>(1, m.shape[s]));
    const uint64_t span = SatMul(k, static_cast<uint64_t>(unit[s]));
    cell[s] = static_cast<int64_t>(std::min(span, whole));
    return cell;
  };

  // Contiguous first (smallest s), then room for one block in flight while
  // the caller holds another (half the budget).
  for (size_t s = 0; s < rank; ++s) {
    std::optional<size_t> half_fit;
    for (size_t u = 0; u < units.size(); ++u) {
      const uint64_t slab = SlabBytes(sel, item, units[u], s);
      if (slab <= quarter) return make_cell(units[u], s, slab, /*grow=*/true);
      if (slab <= budget / 2 && !half_fit) half_fit = u;
    }
    if (half_fit) {
      const std::vector<int64_t>& unit = units[*half_fit];
      return make_cell(unit, s, SlabBytes(sel, item, unit, s), /*grow=*/false);
    }
  }
  // No overlap possible; still within the budget.
  for (size_t s = 0; s < rank; ++s) {
    for (const std::vector<int64_t>& unit : units) {
      const uint64_t slab = SlabBytes(sel, item, unit, s);
      if (slab <= budget) return make_cell(unit, s, slab, /*grow=*/false);
    }
  }
  return std::nullopt;
}

}  // namespace

DimRange BlockPlan::PieceAt(size_t d, int64_t j, int64_t* out_start) const {
  const DimRange& r = selection_.dims()[d];
  const int64_t c = cell_shape_[d];
  if (r.step > c) {  // one selected element per cell
    const int64_t e = r.start + j * r.step;
    *out_start = j;
    return {e, e + 1, 1};
  }
  const int64_t last = r.start + (r.count() - 1) * r.step;
  const int64_t cell_begin = (r.start / c + j) * c;
  const int64_t lo = std::max(r.start, cell_begin);
  const int64_t first = r.start + (lo - r.start + r.step - 1) / r.step * r.step;
  const int64_t hi = std::min(last, cell_begin + (c - 1));
  const int64_t count = (hi - first) / r.step + 1;
  *out_start = (first - r.start) / r.step;
  return {first, first + (count - 1) * r.step + 1, count == 1 ? 1 : r.step};
}

void BlockPlan::Unravel(int64_t i, std::vector<int64_t>* pieces) const {
  const size_t rank = pieces_.size();
  pieces->resize(rank);
  for (size_t d = rank; d-- > 0;) {
    (*pieces)[d] = i % pieces_[d];
    i /= pieces_[d];
  }
}

void BlockPlan::BlockAt(int64_t i, Selection* selection,
                        std::vector<int64_t>* origin) const {
  std::vector<int64_t> at;
  Unravel(i, &at);
  std::vector<DimRange> dims(at.size());
  origin->resize(at.size());
  for (size_t d = 0; d < at.size(); ++d) dims[d] = PieceAt(d, at[d], &(*origin)[d]);
  *selection = Selection(std::move(dims));
}

uint64_t BlockPlan::BlockBytes(int64_t i) const {
  std::vector<int64_t> at;
  Unravel(i, &at);
  uint64_t bytes = item_size_;
  for (size_t d = 0; d < at.size(); ++d) {
    int64_t unused;
    bytes *= static_cast<uint64_t>(PieceAt(d, at[d], &unused).count());
  }
  return bytes;
}

Result<BlockPlan> MakeBlockPlan(const ArrayMetadata& m, const Selection& selection,
                                const IterateOptions& options, std::string_view where) {
  const size_t rank = selection.rank();
  const uint64_t budget = options.readahead_bytes;
  BlockPlan plan;
  plan.selection_ = selection;
  plan.item_size_ = m.dtype.size();

  if (!options.block_shape.empty()) {
    if (options.block_shape.size() != rank) {
      return Status::InvalidArgument(
          std::string(where) + ": block_shape " + ShapeString(options.block_shape) +
          " has " + std::to_string(options.block_shape.size()) +
          " dimensions; the array has " + std::to_string(rank));
    }
    for (int64_t e : options.block_shape) {
      if (e < 1) {
        return Status::InvalidArgument(std::string(where) + ": block_shape " +
                                       ShapeString(options.block_shape) +
                                       " must be at least 1 in every dimension");
      }
    }
    plan.cell_shape_ = options.block_shape;
  } else if (selection.num_elements() == 0) {
    plan.cell_shape_.assign(rank, 1);
  } else {
    std::optional<std::vector<int64_t>> cell = ChooseCellShape(m, selection, budget);
    if (!cell) {
      std::vector<int64_t> unit = m.InnerChunkShape().value_or(m.chunk_shape);
      return Status::InvalidArgument(
          std::string(where) + ": readahead_bytes of " + std::to_string(budget) +
          " is less than one chunk's share of the selection " + selection.ToString() +
          " (" + std::to_string(SlabBytes(selection, plan.item_size_, unit, rank - 1)) +
          " bytes); raise readahead_bytes or give a block_shape");
    }
    plan.cell_shape_ = std::move(*cell);
  }

  plan.num_blocks_ = selection.num_elements() == 0 ? 0 : 1;
  plan.max_block_bytes_ = plan.num_blocks_ == 0 ? 0 : plan.item_size_;
  plan.pieces_.resize(rank);
  for (size_t d = 0; d < rank && plan.num_blocks_ > 0; ++d) {
    const DimRange& r = selection.dims()[d];
    const int64_t c = plan.cell_shape_[d];
    const int64_t last = r.start + (r.count() - 1) * r.step;
    plan.pieces_[d] = r.step > c ? r.count() : last / c - r.start / c + 1;
    // Edge pieces are exact; an interior one holds at most the bound.
    int64_t unused;
    int64_t widest = std::max(plan.PieceAt(d, 0, &unused).count(),
                              plan.PieceAt(d, plan.pieces_[d] - 1, &unused).count());
    if (plan.pieces_[d] > 2) widest = std::max(widest, CellCountBound(r, c));
    plan.max_block_bytes_ = SatMul(plan.max_block_bytes_, static_cast<uint64_t>(widest));
    if (plan.num_blocks_ > std::numeric_limits<int64_t>::max() / plan.pieces_[d]) {
      return Status::InvalidArgument(std::string(where) + ": block_shape " +
                                     ShapeString(plan.cell_shape_) + " makes more than " +
                                     "2^63 blocks of selection " + selection.ToString());
    }
    plan.num_blocks_ *= plan.pieces_[d];
  }
  if (plan.max_block_bytes_ > budget) {
    return Status::InvalidArgument(
        std::string(where) + ": block_shape " + ShapeString(plan.cell_shape_) +
        " makes blocks of up to " + std::to_string(plan.max_block_bytes_) +
        " bytes of selection " + selection.ToString() + ", more than readahead_bytes (" +
        std::to_string(budget) + ")");
  }
  return plan;
}

}  // namespace turbozarr::internal
