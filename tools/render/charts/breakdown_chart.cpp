#include "tools/render/charts/breakdown_chart.hpp"

#include <fmt/format.h>

#include "tools/render/charts/bar_chart.hpp"
#include "tools/render/charts/step_colours.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::charts {
namespace {

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

// Seconds on the axis for steps of a few seconds, else milliseconds.
struct TimeUnit {
  double per_s;
  std::string_view name;
};
TimeUnit time_unit(double max_s) { return max_s >= 2.0 ? TimeUnit{1.0, "s"} : TimeUnit{1e3, "ms"}; }

BarRow time_row(std::string label, double step_s, double compute_s, double exposed_s, double bubble_s, TimeUnit unit,
                const std::string& hatch) {
  const auto part = [&](std::string_view what, double s) {
    return fmt::format("{}: {} ({:.1f} %)", what, seconds_text(s), step_s > 0 ? 100 * s / step_s : 0.0);
  };
  BarRow row{.label = std::move(label)};
  const auto pct = [&](double s) { return step_s > 0 ? 100 * s / step_s : 0.0; };
  const auto segment = [&](std::string kind, std::string what, std::string fill, double s) {
    return Segment{.kind = std::move(kind), .legend_label = what, .fill = std::move(fill), .value = s * unit.per_s,
                   .title = part(what, s), .inside_text = fmt::format("{} ({:.0f} %)", seconds_text(s), pct(s)),
                   .outside_text = fmt::format("{} {} ({:.0f} %)", what == "compute" ? "compute" : what == "pipeline bubble" ? "bubble" : "comm",
                                               seconds_text(s), pct(s))};
  };
  row.segments = {segment("compute", "compute", std::string(forward_colour), compute_s),
                  segment("exposed-comm", "exposed communication", std::string(exposed_comm_colour), exposed_s),
                  segment("bubble", "pipeline bubble", "url(#" + hatch + ")", bubble_s)};
  row.segments.back().inside_text.clear();  // text across the hatch's stripes would not read
  row.value_text = seconds_text(compute_s + exposed_s + bubble_s);
  return row;
}

}  // namespace

std::string breakdown_svg(const models::StepReport& report, std::string chart) {
  const auto& times = report.times;
  const double step = times.step_time_s;
  const TimeUnit unit = time_unit(step);
  const std::string hatch = chart + "-hatch";
  BarChart bars{.chart = chart,
                .description = "Step-time breakdown: compute, exposed communication and pipeline bubble, in seconds",
                .axis_title = fmt::format("time per step ({})", unit.name),
                .patterns = {bubble_pattern(hatch)}};
  bars.rows.push_back(time_row("step (mean of stages)", step, times.compute_fraction * step,
                               times.exposed_comm_fraction * step, times.bubble_fraction * step, unit, hatch));
  for (std::size_t s = 0; s < times.stages.size(); ++s) {
    const auto& st = times.stages[s];
    bars.rows.push_back(time_row(fmt::format("stage {}", s), step, st.compute_s, st.exposed_comm_s, st.bubble_s, unit, hatch));
  }
  return bar_chart_svg(bars);
}

std::string breakdown_compare_svg(const std::vector<BreakdownBar>& layouts) {
  double longest = 0;
  for (const BreakdownBar& b : layouts) longest = std::max(longest, b.step_s);
  const TimeUnit unit = time_unit(longest);
  BarChart bars{.chart = "breakdown-compare",
                .description = "Step-time breakdown of the best layouts side by side, in seconds",
                .axis_title = fmt::format("time per step ({})", unit.name),
                .patterns = {bubble_pattern("breakdown-compare-hatch")}};
  for (const BreakdownBar& b : layouts) {
    const double comm = b.exposed_comm_fraction * b.step_s, bubble = b.bubble_fraction * b.step_s;
    bars.rows.push_back(time_row(b.name, b.step_s, b.step_s - comm - bubble, comm, bubble, unit, "breakdown-compare-hatch"));
  }
  return bar_chart_svg(bars);
}

std::string memory_svg(const models::StepReport& report, double usable_hbm_bytes) {
  BarChart bars{.chart = "memory",
                .description = "Memory per GPU of each stage by part, against the usable HBM",
                .axis_title = "memory per GPU (GiB)"};
  for (std::size_t s = 0; s < report.memory_per_stage.size(); ++s) {
    const models::MemoryBreakdown& m = report.memory_per_stage[s];
    BarRow row{.label = fmt::format("stage {}", s)};
    const auto part = [&](std::string kind, std::string label, std::string_view fill, double bytes) {
      row.segments.push_back({std::move(kind), label, std::string(fill), bytes / gib,
                              fmt::format("{}: {:.2f} GiB", label, bytes / gib)});
    };
    part("weights", "weights", svg::blue, m.weights_bytes);
    part("gradients", "gradients", svg::sky_blue, m.gradients_bytes);
    part("optimizer", "optimizer state", svg::reddish_purple, m.optimizer_bytes);
    part("activations", "activations", svg::orange, m.activations_bytes);
    part("other", "other tensors", svg::yellow, m.other_bytes);
    part("runtime", "runtime (CUDA context, NCCL, workspaces, fragmentation)", svg::bluish_green, m.runtime_bytes());
    row.value_text = usable_hbm_bytes > 0
                         ? fmt::format("{:.1f} GiB ({:.0f} % of usable)", m.total_bytes / gib, 100 * m.total_bytes / usable_hbm_bytes)
                         : fmt::format("{:.1f} GiB", m.total_bytes / gib);
    bars.rows.push_back(std::move(row));
  }
  if (usable_hbm_bytes > 0) {
    bars.reference = ReferenceLine{.value = usable_hbm_bytes / gib, .kind = "usable-hbm",
                                   .label = fmt::format("usable HBM ({:.1f} GiB)", usable_hbm_bytes / gib)};
  }
  return bar_chart_svg(bars);
}

}  // namespace clustersim::tools::charts
