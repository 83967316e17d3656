// Verify: reads every stored byte of an array, or of every array below a
// group, and reports what is damaged, without changing anything.
//
// The walk starts from the documents the store holds, not from a group's
// consolidated metadata: every node whose zarr.json, .zarray or .zgroup is
// stored below the path is parsed (a document that fails to parse is a
// finding, and the walk goes on with the other nodes), and a consolidated
// group's copies of its members' documents are compared with theirs. For
// each array every stored key is read: a chunk (or shard) is decoded in full
// through the array's codecs, so that checksums are checked and the decoded
// size must be the chunk's; a shard's index must decode (its crc32c hold),
// its inner chunks' byte ranges must lie inside the shard without
// overlapping, and every inner chunk must decode. A key under an array that
// is no chunk of its grid (coordinates out of range, a stray name) is a
// finding too. A chunk that is not stored is fine: it reads as the fill
// value.
//
// What decoding cannot see: an array whose codecs carry no checksum
// (HasChecksum, turbozarr/checksum.h) may hold damaged bytes that still
// decode, so its arrays are reported "decoded, unchecked" rather than
// "verified"; and two chunks of one array swapped, or a chunk replaced by
// another valid one, decode cleanly. docs/guarantees.md says more, and how
// this differs from `fsck` (which repairs what interrupted writes left).
//
// The layers above the engine (OME-Zarr, sparse counts, VCF Zarr) check
// their own layouts through VerifyOptions::layout_checks, called for every
// group the walk opens.
//
// Thread safety: Verify may run on many threads at once, each with its own
// options. It calls `progress` and the layout checks from its threads, one
// call at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "turbozarr/status.h"
#include "turbozarr/store.h"

namespace turbozarr {

class Group;

// One thing found wrong: where (a store key: a chunk, a shard, a metadata
// document; or a node's path) and what.
struct VerifyFinding {
  std::string key;
  std::string message;
  bool operator==(const VerifyFinding&) const = default;
};

// What became of one array.
enum class ArrayVerdict {
  kVerified,          // every stored chunk decoded and passed its checksum
  kDecodedUnchecked,  // every stored chunk decoded; no checksum to check
  kDamaged,           // something was found
};
// "verified", "decoded, unchecked", "damaged".
std::string_view ArrayVerdictName(ArrayVerdict verdict);

struct ArrayVerifyReport {
  std::string path;
  int zarr_format = 0;  // 0 when its metadata did not parse
  bool has_checksum = false;
  uint64_t chunks_checked = 0;  // stored chunks (shards) read and decoded
  uint64_t stored_bytes = 0;    // their bytes as stored
  uint64_t decoded_bytes = 0;   // and decoded
  std::vector<VerifyFinding> findings;
  ArrayVerdict verdict() const;
};

// What a domain layer's check found in one group of its layout.
struct LayoutReport {
  std::string layout;  // "ome-zarr", "sparse", "vcf-zarr"
  std::string path;    // the group
  std::vector<VerifyFinding> findings;
};

// A domain layer's check of one group: nullopt when the group is not of its
// layout. Problems are findings, never errors.
using LayoutCheck =
    std::function<std::optional<LayoutReport>(const std::shared_ptr<Group>& group)>;

struct VerifyProgress {
  uint64_t chunks_done = 0;
  uint64_t chunks_total = 0;  // stored chunks of every array, known after the walk
  uint64_t bytes_done = 0;    // stored bytes read so far
};

struct VerifyOptions {
  // Threads that decode (the calling one included); 0: the engine's
  // (turbozarr/config.h). More than kMaxThreads is InvalidArgument.
  int jobs = 0;
  // Called about ten times a second while chunks are checked, and once when
  // all are; returning false stops the walk (Verify answers Cancelled).
  std::function<bool(const VerifyProgress&)> progress;
  // Stop at the first finding (the report then says stopped_early).
  bool stop_at_first_finding = false;
  std::vector<LayoutCheck> layout_checks;
};

// The version of VerifyReport::ToJson's schema (docs/cli.md, "verify").
inline constexpr int kVerifyReportVersion = 1;

struct VerifyReport {
  std::string store;  // the store's Describe()
  std::string path;   // the node verified
  std::vector<ArrayVerifyReport> arrays;  // sorted by path
  // Findings outside any array's chunks: documents of nodes that did not
  // parse, groups, consolidated metadata that disagrees with the stored.
  std::vector<VerifyFinding> findings;
  std::vector<LayoutReport> layouts;
  // What could not be checked, such as the keys of a store that cannot list.
  std::vector<std::string> notes;
  bool stopped_early = false;

  bool damaged() const;
  size_t finding_count() const;
  // {"version", "store", "path", "damaged", "stopped_early", "totals",
  //  "arrays", "findings", "layouts", "notes"}; docs/cli.md has the fields.
  nlohmann::ordered_json ToJson() const;
};

// Verifies the array or group at `path` ("" the root) and everything below
// it. Damage is in the report; the answer is an error only when the walk
// itself cannot go on: NotFound when nothing is at `path`, InvalidArgument
// for bad options, IOError when the store fails (a remote store after its
// retries; a local read error of one chunk is a finding), Cancelled when
// `progress` asked to stop.
Result<VerifyReport> Verify(std::shared_ptr<Store> store, std::string_view path,
                            const VerifyOptions& options = {});

}  // namespace turbozarr
