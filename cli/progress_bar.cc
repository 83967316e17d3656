#include "cli/progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace turbozarr::cli {
namespace {

constexpr int kBarWidth = 24;
constexpr auto kRedrawInterval = std::chrono::milliseconds(100);
constexpr auto kAutoDelay = std::chrono::seconds(1);

std::string FormatDuration(double seconds) {
  long s = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  return buf;
}

}  // namespace

std::string FormatByteSize(uint64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = static_cast<double>(bytes) / 1024;
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", value, kUnits[unit]);
  return buf;
}

ProgressBar::ProgressBar(std::string label, uint64_t total_bytes, Mode mode, std::string unit)
    : label_(std::move(label)),
      total_(total_bytes),
      mode_(mode == Mode::kAuto && !isatty(STDERR_FILENO) ? Mode::kNever : mode),
      unit_(std::move(unit)) {}

std::string ProgressBar::Amount(uint64_t n) const {
  return unit_.empty() ? FormatByteSize(n) : std::to_string(n);
}

ProgressBar::~ProgressBar() { Finish(); }

void ProgressBar::Update(uint64_t done_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  done_ = done_bytes;
  if (mode_ == Mode::kNever || finished_) return;
  Clock::time_point now = Clock::now();
  if (mode_ == Mode::kAuto && now - start_ < kAutoDelay) return;
  if (shown_ && now - last_draw_ < kRedrawInterval) return;
  Draw(now);
}

void ProgressBar::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  finished_ = true;
  if (shown_ || mode_ == Mode::kAlways) {
    Draw(Clock::now());
    std::fputc('\n', stderr);
    std::fflush(stderr);
  }
}

void ProgressBar::Draw(Clock::time_point now) {
  shown_ = true;
  last_draw_ = now;
  const double fraction =
      total_ == 0 ? 1.0 : static_cast<double>(done_) / static_cast<double>(total_);
  const int filled = static_cast<int>(fraction * kBarWidth);
  std::string bar(filled, '#');
  bar.append(kBarWidth - filled, '.');
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
  const uint64_t left = total_ > done_ ? total_ - done_ : 0;
  std::string eta = "ETA " + (rate > 0 ? FormatDuration(left / rate) : "?");
  if (finished_) eta = "in " + FormatDuration(elapsed);
  // "\r" returns to the start of the line and "\033[K" clears what a longer
  // previous line left behind.
  const std::string unit = unit_.empty() ? "" : " " + unit_;
  std::fprintf(stderr, "\r%s  [%s] %3d%%  %s/%s%s  %s%s/s  %s\033[K", label_.c_str(),
               bar.c_str(), static_cast<int>(fraction * 100), Amount(done_).c_str(),
               Amount(total_).c_str(), unit.c_str(),
               Amount(static_cast<uint64_t>(rate)).c_str(), unit.c_str(), eta.c_str());
  std::fflush(stderr);
}

}  // namespace turbozarr::cli
