#include "tools/progress.hpp"

#include <unistd.h>

#include <cmath>

#include <fmt/format.h>

namespace clustersim::tools {
namespace {

std::string duration_text(double seconds) {
  const auto s = static_cast<long long>(std::llround(seconds));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

}  // namespace

std::string progress_line(std::string_view label, std::string_view unit, std::size_t done,
                          std::size_t total, double elapsed_s) {
  std::string line = fmt::format("{}: {}/{} {}", label, done, total, unit);
  if (elapsed_s <= 0.0 || done == 0) return line + "  starting";
  const double rate = static_cast<double>(done) / elapsed_s;
  line += rate < 10.0 ? fmt::format("  {:.1f}/s", rate) : fmt::format("  {:.0f}/s", rate);
  const double left = static_cast<double>(total - std::min(done, total)) / rate;
  return line + "  " + duration_text(left) + " left";
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

Progress::Progress(std::string label, std::string unit, std::size_t total, bool enabled,
                   std::ostream& err, double delay_s)
    : label_(std::move(label)),
      unit_(std::move(unit)),
      total_(total),
      enabled_(enabled),
      err_(err),
      delay_s_(delay_s),
      start_(Clock::now()) {}

Progress::~Progress() { finish(); }

void Progress::advance(std::size_t n) {
  const std::size_t done = done_.fetch_add(n) + n;
  if (enabled_) draw(done);
}

void Progress::draw(std::size_t done) {
  // A worker that finds another one drawing skips its turn instead of waiting.
  std::unique_lock lock(draw_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return;
  const auto now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < delay_s_) return;
  // Four redraws a second are enough to read and cost nothing next to the work.
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(250) && done < total_) return;
  const std::string line = progress_line(label_, unit_, done, total_, elapsed);
  const std::size_t pad = width_ > line.size() ? width_ - line.size() : 0;
  err_ << '\r' << line << std::string(pad, ' ') << std::flush;
  width_ = line.size();
  drawn_ = true;
  last_draw_ = now;
}

void Progress::finish() {
  std::lock_guard lock(draw_mutex_);
  if (!drawn_) return;
  err_ << '\r' << std::string(width_, ' ') << '\r' << std::flush;
  drawn_ = false;
}

}  // namespace clustersim::tools
