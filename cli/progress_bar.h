// ProgressBar: a one-line progress display on stderr for long operations,
//   raw  [###########.........]  55%  110.0/200.0 MiB  412.3 MiB/s  ETA 0:00:01
// redrawn in place at most ten times a second. It counts bytes, or items of
// a named unit ("chunks": 110/200 chunks  41.5 chunks/s).
//
// In kAuto mode it shows only when stderr is a terminal and the operation
// has run for more than a second, so that short copies and scripts that
// capture stderr see nothing.
//
// Thread safety: Update may be called from any thread; Finish from one.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace turbozarr::cli {

// "1.5 KiB", "200.0 MiB", "17 B".
std::string FormatByteSize(uint64_t bytes);

class ProgressBar {
 public:
  enum class Mode { kAuto, kAlways, kNever };

  // `unit` empty: the amounts are bytes; else a count of `unit`.
  ProgressBar(std::string label, uint64_t total_bytes, Mode mode, std::string unit = "");
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Records that `done_bytes` (or items) of the total are finished.
  void Update(uint64_t done_bytes);
  // Draws the final state (if the bar was shown) and ends its line.
  void Finish();

 private:
  using Clock = std::chrono::steady_clock;
  void Draw(Clock::time_point now);
  // "110.0 MiB", or "110" of a unit.
  std::string Amount(uint64_t n) const;

  std::mutex mu_;
  const std::string label_;
  const uint64_t total_;
  const Mode mode_;
  const std::string unit_;
  const Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  uint64_t done_ = 0;
  bool shown_ = false;
  bool finished_ = false;
};

}  // namespace turbozarr::cli
