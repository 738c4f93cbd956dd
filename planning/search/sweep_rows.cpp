#include "planning/search/sweep_rows.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "sim/hashing.hpp"

namespace clustersim::planning {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

int rank_class(const SweepRow& row) {
  // A pruned layout fits; its bound sorts it below every row it could not beat.
  if (row.status == RowStatus::simulated || row.status == RowStatus::pruned) return row.fits ? 0 : 1;
  return row.status == RowStatus::too_large ? 2 : 3;
}

SweepCounts count_rows(const std::vector<SweepRow>& rows) {
  SweepCounts c;
  for (const auto& row : rows) {
    if (row.status == RowStatus::pruned) ++c.pruned;
    switch (rank_class(row)) {
      case 0: ++c.fit; break;
      case 1: ++c.simulated_too_large; break;
      case 2: ++c.too_large; break;
      default: ++c.invalid; break;
    }
  }
  return c;
}

std::string fingerprint(std::string_view text) { return fmt::format("{:016x}", sim::fnv1a64(text)); }

std::string memory_reason(const models::MemoryBreakdown& m, std::int64_t stage, bool fits, const models::GpuSpec& gpu) {
  const double hbm = gpu.hbm_bytes / kGiB;
  if (fits) return fmt::format("{:.1f} of {:.1f} GiB", m.total_bytes / kGiB, hbm);
  // Name the largest part: it is what a user would shrink (activations: recompute, more pp or cp;
  // optimizer: ZeRO; weights: more tp or pp).
  const std::array<std::pair<std::string_view, double>, 6> parts{{{"weights", m.weights_bytes},
                                                                   {"gradients", m.gradients_bytes},
                                                                   {"optimizer", m.optimizer_bytes},
                                                                   {"activations", m.activations_bytes},
                                                                   {"other", m.other_bytes},
                                                                   {"runtime", m.runtime_bytes()}}};
  const auto largest = std::max_element(parts.begin(), parts.end(),
                                        [](const auto& a, const auto& b) { return a.second < b.second; });
  return fmt::format("needs {:.1f} GiB of {:.1f}: {} {:.1f} GiB on stage {}", m.total_bytes / kGiB, hbm,
                     largest->first, largest->second / kGiB, stage);
}

SweepRow row_from_report(std::size_t index, const planning::Layout& layout, const models::StepReport& report,
                         const models::GpuSpec& gpu) {
  const auto& peak = report.memory_per_stage.at(static_cast<std::size_t>(report.peak_memory_stage));
  return {.index = index,
          .layout = layout,
          .status = RowStatus::simulated,
          .step_time_s = report.times.step_time_s,
          .band = point_band(report.times.step_time_s),
          .tokens_per_s_per_gpu = report.tokens_per_s_per_gpu,
          .mfu = report.mfu,
          .bubble_fraction = report.times.bubble_fraction,
          .exposed_comm_fraction = report.times.exposed_comm_fraction,
          .memory_bytes = peak.total_bytes,
          .fits = report.fits_in_memory,
          .reason = memory_reason(peak, report.peak_memory_stage, report.fits_in_memory, gpu)};
}

SweepRow row_pruned(std::size_t index, const planning::Layout& layout, const planning::PeakMemory& memory, double bound_s,
                    const models::GpuSpec& gpu) {
  return {.index = index,
          .layout = layout,
          .status = RowStatus::pruned,
          .step_time_s = bound_s,
          .band = point_band(bound_s),
          .memory_bytes = memory.breakdown.total_bytes,
          .fits = memory.fits,
          .reason = memory_reason(memory.breakdown, memory.stage, memory.fits, gpu)};
}

SweepRow row_too_large(std::size_t index, const planning::Layout& layout, const planning::PeakMemory& memory,
                       const models::GpuSpec& gpu) {
  return {.index = index,
          .layout = layout,
          .status = RowStatus::too_large,
          .memory_bytes = memory.breakdown.total_bytes,
          .fits = false,
          .reason = memory_reason(memory.breakdown, memory.stage, false, gpu)};
}

void rank_rows(std::vector<SweepRow>& rows) {
  std::sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) {
    const int ca = rank_class(a), cb = rank_class(b);
    if (ca != cb) return ca < cb;
    if (ca <= 1 && a.band.slow_s != b.band.slow_s) return a.band.slow_s < b.band.slow_s;
    if (ca <= 1 && a.step_time_s != b.step_time_s) return a.step_time_s < b.step_time_s;
    if (ca == 2 && a.memory_bytes != b.memory_bytes) return a.memory_bytes < b.memory_bytes;
    return a.index < b.index;
  });
}

std::vector<std::vector<std::size_t>> band_ties(const std::vector<SweepRow>& rows, std::size_t shown) {
  shown = std::min(shown, rows.size());
  const auto comparable = [&](std::size_t i) {
    return rows[i].status == RowStatus::simulated && rows[i].fits;
  };
  std::vector<std::vector<std::size_t>> ties(shown);
  for (std::size_t i = 0; i < shown; ++i) {
    if (!comparable(i)) continue;
    for (std::size_t j = 0; j < shown; ++j) {
      if (j == i || !comparable(j)) continue;
      const StepBand& a = rows[i].band;
      const StepBand& b = rows[j].band;
      if (a.fast_s <= b.slow_s && b.fast_s <= a.slow_s) ties[i].push_back(j + 1);
    }
  }
  return ties;
}

std::string layout_label(const planning::Layout& layout) {
  const auto& p = layout.parallelism;
  std::string text = fmt::format("TP{} PP{} DP{}", p.tp, p.pp, p.dp);
  if (p.cp > 1) text += fmt::format(" CP{}", p.cp);
  if (p.ep > 1) text += fmt::format(" EP{}", p.ep);
  if (p.etp > 1) text += fmt::format(" ETP{}", p.etp);
  if (p.vp > 1) text += fmt::format(" vp{}", p.vp);
  text += fmt::format(" mb{}{} ZeRO-{} {}", layout.training.micro_batch, p.sp ? " SP" : "", p.zero,
                      models::recompute_name(layout.training.recompute));
  return text;
}

}  // namespace clustersim::planning
