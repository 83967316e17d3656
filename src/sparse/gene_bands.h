// Gene bands: version 2's order of a tile's gene steps.
//
// A row's genes are ranks in ascending order; as positions (rank + 1, from
// 0 before the row's first) each entry is the step from the previous
// position. How large a step is depends on where it starts: among the
// popular genes nearly every rank is present (steps of 1), far down the
// order steps of hundreds are usual. One zstd stream of all steps codes
// them with one Huffman table per block, the mix of both; grouping the steps
// by where they start gives each group its own table: 7% fewer bytes.
//
// A step's band is bit_width(the previous position): 0 for a row's first
// step, b for a step from a position in [2^(b-1), 2^b). Within a row the
// bands only grow, so a row is its band-0 steps, then its band-1 steps, and
// so on. The tile stores the steps band after band (within a band by row),
// and how many steps each row has in each band (gene_bands); a reader
// copies each row's pieces back together, one copy per band.
//
// A step too large for the stored type is stored as 0 and its value kept in
// the escapes, in the order of the zeros (no step is 0: positions grow).
//
// Thread safety: pure functions over caller memory.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace turbozarr::sparse::internal {

// The bands of a matrix of `genes` genes: bit_width(genes) + 1.
int64_t GeneBands(int64_t genes);

// Groups the steps of rows [0, rows) (ptr: rows + 1 offsets; `ranks_steps`
// the row-order steps between ranks, each row's first its rank) by band:
// `counts` gets [bands][rows] steps per row and band, `steps` the position
// steps band after band. Counts the steps beyond uint8 and uint16.
void BandSteps(const int64_t* ptr, int64_t rows, const uint32_t* rank_steps, int64_t bands,
               uint32_t* counts, uint32_t* steps, int64_t (&beyond)[2]);

// Where rows begin in each band of the stored steps and in the escapes.
struct BandCursor {
  std::vector<int64_t> step;    // per band: the next stored step
  std::vector<int64_t> escape;  // per band: the next escape
};

// Checks a tile's band counts against its row pointers and its zeros
// against its escapes, and places a cursor at each of `cut`'s row
// boundaries (cut.size() - 1 parts). `row_counts` gets the counts row by
// row ([cells][bands]). Returns an empty string, or what is wrong.
template <typename Count, typename Delta>
std::string PlaceBandCursors(const Count* counts, int64_t bands, int64_t cells,
                             const uint32_t* ptr, const Delta* steps, int64_t escapes,
                             const std::vector<int64_t>& cut, std::vector<uint32_t>& row_counts,
                             std::vector<BandCursor>& cursors);

// Puts rows [r0, r1) back in row order as version 1 holds them (each row's
// first step its rank) into `out` (the rows' nonzeros, from ptr[r0]), with
// the escaped steps as version 1's exceptions: stored 0, the step at
// (position, value) in `exc_pos`/`exc_val` (cleared first; positions in
// the tile). Returns false for an escape of 0.
template <typename Delta>
bool UnbandRows(const uint32_t* row_counts, int64_t bands, const uint32_t* ptr, int64_t r0,
                int64_t r1, const Delta* steps, const uint32_t* escapes, BandCursor& cursor,
                Delta* out, std::vector<uint32_t>& exc_pos, std::vector<uint32_t>& exc_val);

}  // namespace turbozarr::sparse::internal
