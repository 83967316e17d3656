// BlockPlan: how a BlockIterator cuts a selection into blocks: the cell
// shape (chosen by the policy in turbozarr/block_iterator.h, or given), and
// block i's selection, place in the result and size, computed on demand.
//
// Along each dimension the cells that hold selected elements are numbered
// 0..pieces-1; a block is one piece per dimension, blocks in C order of those
// numbers. Pieces are computed, not stored, so that a fine grid over a large
// array costs no memory: when the step is at most the cell size every cell
// between the first and the last selected element holds some (any run of
// `step` indices holds one), and when it is larger every selected element
// sits in a cell of its own.
//
// Thread safety: immutable after MakeBlockPlan; safe to share.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "turbozarr/block_iterator.h"
#include "turbozarr/metadata.h"
#include "turbozarr/selection.h"
#include "turbozarr/status.h"

namespace turbozarr::internal {

class BlockPlan {
 public:
  const std::vector<int64_t>& cell_shape() const { return cell_shape_; }
  int64_t num_blocks() const { return num_blocks_; }
  uint64_t max_block_bytes() const { return max_block_bytes_; }

  // Block i's selection (array coordinates, stop one past the last element)
  // and its first element's place in the selection's result.
  // REQUIRES: 0 <= i < num_blocks()
  void BlockAt(int64_t i, Selection* selection, std::vector<int64_t>* origin) const;
  uint64_t BlockBytes(int64_t i) const;

 private:
  friend Result<BlockPlan> MakeBlockPlan(const ArrayMetadata&, const Selection&,
                                         const IterateOptions&, std::string_view);
  // Piece j of dimension d and its offset in the result.
  DimRange PieceAt(size_t d, int64_t j, int64_t* out_start) const;
  // Piece coordinates of block i, C order.
  void Unravel(int64_t i, std::vector<int64_t>* pieces) const;

  Selection selection_;
  std::vector<int64_t> cell_shape_;
  std::vector<int64_t> pieces_;  // per dimension
  size_t item_size_ = 0;
  int64_t num_blocks_ = 0;
  uint64_t max_block_bytes_ = 0;
};

// The plan for iterating `selection` of an array with metadata `m`. Errors
// (InvalidArgument: bad block_shape, budget below one block) name `where`.
// REQUIRES: selection.Validate(m.shape).ok(); m.dtype is fixed-size.
Result<BlockPlan> MakeBlockPlan(const ArrayMetadata& m, const Selection& selection,
                                const IterateOptions& options, std::string_view where);

}  // namespace turbozarr::internal
