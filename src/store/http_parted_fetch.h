// Fetching a whole value in parts: a value read with few other reads in
// flight (ReadHint) is asked for as several ranged GETs at once, of about
// equal size, whose bodies land side by side in one buffer
// (HttpRequest::into), so that a link of limited speed per connection (a
// distant server, an object store) carries it over several connections
// instead of one, with no copy to join them.
//
// The value's length is not known before the answers come, so the parts are
// cut from the reader's expectation (a shard's or chunk's decoded size):
// equal bounded ranges, the last one open-ended, so that a longer value is
// still fetched whole and a shorter one leaves the parts past its end
// answered 416. The answers must then make one value: all found or all
// absent, one ETag and Last-Modified, every part but the one the value ends
// in full. A
// server that ignored the Range sent the whole value in one of them, which
// is taken as it is. Answers that disagree (the value changed between the
// parts) are not joined: the value is fetched once more, whole.
//
// The HTTP and S3 stores serve each ReadPlanned window the same way:
// CutIntoParts, SendWindow, CollectWindow; they differ in how they make a
// request and word an error.
//
// Thread safety: pure functions but SendWindow and CollectWindow, which
// call the transport (itself safe from many threads).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "store/http_message.h"
#include "store/http_transport.h"
#include "store/read_plan.h"

namespace turbozarr::internal {

// Parts are at least this large: about a round trip's transfer at 150 MB/s
// per connection. Smaller parts gain less than their requests cost the
// client and the server (a 4 MiB shard in two parts read slower, not
// faster, from a throttled server on loopback that shares the client's
// cores).
inline constexpr uint64_t kMinPartBytes = uint64_t{8} << 20;

// Values expected larger than this are fetched whole: the parts' buffer is
// made at the expected size before any byte arrives, and a chunk's decoded
// size this large may be far from its stored one.
inline constexpr uint64_t kMaxPartedBytes = uint64_t{4} << 30;

// How many parts a whole-value fetch with `hint` is cut into when the store
// keeps at most `capacity` requests in flight to the server: its share of
// the capacity among the reads in flight with it, at most one part per
// kMinPartBytes expected. 1 (one fetch) when the hint tells too little.
uint32_t PartsFor(const ReadHint& hint, int capacity);

// The ranges of `parts` (>= 1) parts of a value expected to be `expected`
// bytes: equal bounded ranges, the last one open-ended.
std::vector<ByteRange> PartRanges(uint64_t expected, uint32_t parts);

// Where part `i` of `ranges` lands in a buffer of `joint` bytes (the
// expected size): its range's bytes, the last part up to the buffer's end.
MutableByteView PartTarget(std::span<const ByteRange> ranges, size_t i,
                           MutableByteView joint);

enum class JoinedParts {
  kValue,     // the value, in `out`
  kAbsent,    // every part answered 404 or 410
  kDisagree,  // the answers do not make one value: fetch it whole
};

// Joins the answers to the parts `ranges` (each a 2xx, 404, 410 or 416;
// the 206s checked by the transport against their ranges), whose placed
// bodies are in `joint` (PartTarget), into the whole value: `own`'s memory
// (then handed over as out.body), or, when `own` is null, the caller's
// (out.in_place: a value longer than `joint` is only measured).
JoinedParts JoinParts(std::span<const ByteRange> ranges, MutableByteView joint, Buffer* own,
                      std::span<HttpResponse> answers, FetchedBytes& out);

// A window of planned fetches as HTTP requests, whole values cut into parts:
// what the HTTP and S3 stores send for one ReadPlanned window.
struct PartedWindow {
  struct Parts {
    std::vector<ByteRange> ranges;
    // Where the parts' bodies land: the caller's memory of a read alone
    // (PlannedRead::into), or else `own`, of the expected size.
    MutableByteView joint;
    Buffer own;
  };
  std::vector<HttpRequest> requests;        // to send, in order
  std::vector<size_t> first;                // plan[p]'s: [first[p], first[p + 1])
  std::vector<std::optional<Parts>> parts;  // plan[p]'s parts, when cut

  // Whether an answer to a part brought the whole value (200): the server
  // ignores ranges.
  bool whole_answer_seen = false;
};

// The requests for `plan`, from each fetch's request as the store makes it
// (made[p]: method, URL, headers and the planned range, signed if need
// be; a Range header is not signed). A whole-value fetch whose hint gives
// it more than one part (PartsFor, when `split`) becomes as many copies
// with the parts' ranges and targets; one not cut that reads into the
// caller's memory (PlannedRead::into) is sent to land there.
PartedWindow CutIntoParts(std::span<const PlannedRead> plan, std::vector<HttpRequest> made,
                          bool split, int capacity);

// Sends w.requests through `transport` (one alone with Fetch, several at
// once with FetchMany); answers in the order sent.
std::vector<Result<HttpResponse>> SendWindow(HttpTransport& transport, const PartedWindow& w);

// How a store words an answer that a read of plan[p] cannot use: an error
// unless it is a 2xx, 404, 410 or 416 (or one the store reads otherwise,
// as S3's "NoSuchBucket" 404).
using CheckAnswer = std::function<Status(size_t p, const HttpRequest& request,
                                         const Result<HttpResponse>& answer)>;
// The request that fetches plan[p]'s value whole, as the store makes it.
using WholeRequest = std::function<HttpRequest(size_t p)>;

// What each planned fetch of `w` brought back, into out[p], from `answers`
// (SendWindow's): every answer is checked by `usable`; a 404 or 410 is
// absent; a cut fetch's parts are joined, and when they disagree its value
// is fetched once more, whole (`whole`). Sets w.whole_answer_seen.
Status CollectWindow(HttpTransport& transport, PartedWindow& w,
                     std::vector<Result<HttpResponse>>& answers, const CheckAnswer& usable,
                     const WholeRequest& whole, std::span<std::optional<FetchedBytes>> out);

}  // namespace turbozarr::internal
