// HttpStore: a read-only Store over an HTTP(S) server; key "a/b" is the
// resource <base URL>/a/b.
//
// A read is a GET (with a Range header for a byte range) through an
// HttpTransport; 404 and 410 mean the key is absent, 416 a range past the end
// of a present value, and a server that ignores Range (200 with the whole
// value) is answered by slicing. A batch is planned first (ReadPlanned,
// read_plan.h): ranges of one key lying at most HttpOptions::coalesce_gap
// apart become one request, every request goes out at once (up to
// max_concurrency in flight) and the answers are cut back into the reads
// asked for. Size is a HEAD. Listing is not
// part of HTTP, so List and ListDirectory answer Unsupported: groups are
// opened through consolidated metadata and arrays by path. Set and Erase
// answer InvalidArgument (the store is read-only).
//
// Thread safety: safe from many threads; all state is in the transport.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "store/http_transport.h"
#include "turbozarr/remote_store.h"
#include "turbozarr/store.h"

namespace turbozarr {

class HttpStore final : public Store {
 public:
  // REQUIRES: `base` is an http(s) URL without a trailing '/', query or
  // fragment; `query` is "" or starts with '?' (MakeHttpStore splits them).
  HttpStore(std::string base, std::string query, HttpOptions options);

  Status Read(std::span<const ReadRequest> requests,
              std::span<ReadAnswer> answers) override;
  Result<std::optional<uint64_t>> Size(std::string_view key) override;
  Status Set(std::string_view key, ByteView value) override;
  Status Erase(std::string_view key) override;
  Status ErasePrefix(std::string_view prefix) override;
  Result<std::vector<std::string>> List(std::string_view prefix) override;
  Result<DirectoryListing> ListDirectory(std::string_view prefix) override;
  // Read-only; readers batch their reads into Read calls of max_concurrency.
  StoreCapabilities Capabilities() const override;
  // The base URL, without its query string (which may hold credentials).
  std::string Describe() const override { return base_; }

 private:
  // Read, for requests that go to the server.
  Status Fetch(std::span<const ReadRequest> requests, std::span<ReadAnswer> answers);
  // The URL to request for `key`, query string included.
  std::string Url(std::string_view key) const;
  Status ReadOnly(std::string_view what) const;
  Status NoListing() const;
  // Metadata documents the server said it does not have (404 or 410): the
  // store is read-only, so they are absent for its life and are not asked
  // for again. Opening an array probes for the other format's documents
  // (zarr.json beside .zarray), and a program that opens the arrays of a
  // group one by one, or the same array in several tasks, asked each time.
  // Chunks are not remembered: a missing chunk is read once per read anyway,
  // and there may be millions.
  bool KnownAbsent(std::string_view key) const;
  void NoteAbsent(std::string_view key);

  std::string base_;
  std::string query_;
  std::unique_ptr<HttpTransport> transport_;
  mutable std::mutex absent_mutex_;
  std::set<std::string, std::less<>> absent_;  // guarded by absent_mutex_
  // What the server has shown of ranges (http_parted_fetch.h): once it
  // answers them, whole values are fetched in parts when the reader's hint
  // allows; once it answered a ranged part with the whole value, never.
  enum Ranges : int { kRangesUnknown, kRangesAnswered, kRangesIgnored };
  std::atomic<int> ranges_{kRangesUnknown};
};

}  // namespace turbozarr
