#include "tools/render/charts/ranking_chart.hpp"

#include <fmt/format.h>

#include "tools/render/charts/bar_chart.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::charts {

std::vector<const planning::SweepRow*> ranked_bars(const std::vector<planning::SweepRow>& rows, std::size_t top) {
  std::vector<const planning::SweepRow*> shown;
  for (const planning::SweepRow& row : rows) {
    if (shown.size() == top) break;
    if (row.status == planning::RowStatus::simulated && row.fits) shown.push_back(&row);
  }
  return shown;
}

std::vector<const planning::SweepRow*> rows_apart(const std::vector<planning::SweepRow>& rows, std::size_t top) {
  std::vector<const planning::SweepRow*> apart;
  for (const planning::SweepRow& row : rows) {
    if (apart.size() == top) break;
    const bool drawn_elsewhere = row.status == planning::RowStatus::pruned ||
                                 (row.status == planning::RowStatus::simulated && row.fits);
    if (!drawn_elsewhere) apart.push_back(&row);
  }
  return apart;
}

std::string ranking_svg(const std::vector<planning::SweepRow>& rows, std::size_t top) {
  BarChart bars{.chart = "ranking",
                .description = "Sweep ranking: tokens per second per GPU of each layout that fits, in rank order, "
                               "with its step-time band",
                .axis_title = "throughput (tokens/s per GPU)",
                .band_label = "step-time band (slow to fast end)"};
  std::size_t rank = 0;
  for (const planning::SweepRow* row : ranked_bars(rows, top)) {
    ++rank;
    const std::string name = row->name.empty() ? planning::layout_label(row->layout) : row->name;
    BarRow bar{.label = fmt::format("{}. {}", rank, name)};
    bar.segments.push_back({"fits", "layout that fits (tokens/s per GPU)", std::string(svg::bluish_green),
                            row->tokens_per_s_per_gpu,
                            fmt::format("{}: step {:.3f} s (band {:.3f}-{:.3f} s), MFU {:.1f} %, bubble {:.1f} %, {}", name,
                                        row->step_time_s, row->band.fast_s, row->band.slow_s, 100 * row->mfu,
                                        100 * row->bubble_fraction, row->reason)});
    bar.value_text = fmt::format("{:.0f}", row->tokens_per_s_per_gpu);
    if (row->band.fast_s > 0 && row->band.slow_s > 0 && row->band.slow_s > row->band.fast_s) {
      // tokens/s is inversely proportional to the step time.
      const double tokens_s = row->tokens_per_s_per_gpu * row->step_time_s;
      bar.band = std::pair{tokens_s / row->band.slow_s, tokens_s / row->band.fast_s};
      bar.value_text = fmt::format("{:.0f} ({:.0f}-{:.0f})", row->tokens_per_s_per_gpu, bar.band->first, bar.band->second);
    }
    bars.rows.push_back(std::move(bar));
  }
  return bar_chart_svg(bars);
}

}  // namespace clustersim::tools::charts
