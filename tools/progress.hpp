#pragma once
/// Progress of a long command on stderr, redrawn in place on one line:
///   "sweep: 1234/5000 layouts  310/s  12 s left"
/// It appears only when enabled (stderr is a terminal and the user did not pass --quiet) and only
/// after the work has run for `delay_s` (about two seconds), so short runs and pipelines, CI logs
/// and redirected output never see it; the line is erased when the work finishes. advance() may
/// be called from any thread.

#include <atomic>
#include <chrono>
#include <cstddef>
#include <mutex>
#include <ostream>
#include <string>
#include <string_view>

namespace clustersim::tools {

/// The progress line for `done` of `total` items after `elapsed_s` seconds (no newline).
std::string progress_line(std::string_view label, std::string_view unit, std::size_t done,
                          std::size_t total, double elapsed_s);

/// Whether stderr is a terminal (where a redrawn line makes sense).
bool stderr_is_terminal();

class Progress {
 public:
  /// `enabled`: usually stderr_is_terminal() && !quiet.
  Progress(std::string label, std::string unit, std::size_t total, bool enabled, std::ostream& err,
           double delay_s = 2.0);
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  ~Progress();

  void advance(std::size_t n = 1);
  /// Erases the line if one was drawn. Called by the destructor too.
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  void draw(std::size_t done);

  std::string label_;
  std::string unit_;
  std::size_t total_;
  bool enabled_;
  std::ostream& err_;
  double delay_s_;
  Clock::time_point start_;
  std::atomic<std::size_t> done_{0};
  std::mutex draw_mutex_;
  Clock::time_point last_draw_{};
  bool drawn_ = false;
  std::size_t width_ = 0;  // of the last line, to blank it out
};

}  // namespace clustersim::tools
