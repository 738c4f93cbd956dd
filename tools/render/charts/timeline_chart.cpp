#include "tools/render/charts/timeline_chart.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "models/step/step_labels.hpp"
#include "models/step/step_pieces.hpp"
#include "tools/render/charts/step_colours.hpp"
#include "tools/render/svg/axis.hpp"
#include "tools/render/svg/elements.hpp"
#include "tools/render/svg/legend.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::charts {
namespace {

constexpr double tl_left = 80, tl_plot_width = 880, tl_right = 40;
constexpr double tl_compute_h = 22, tl_lane_h = 7, tl_row_gap = 12;
constexpr double tl_min_comm_px = 2.0;  // narrower is invisible at 1x
// Hover titles make a large step's page heavy; beyond a few thousand tasks they are left out.
constexpr std::size_t tl_max_titled_tasks = 6000;

struct Interval {
  std::int64_t begin, end;
};

// The parts of [0, end) that no interval covers.
std::vector<Interval> gaps(std::vector<Interval> busy, std::int64_t end) {
  std::sort(busy.begin(), busy.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> result;
  std::int64_t covered = 0;
  for (const Interval& i : busy) {
    if (i.begin > covered) result.push_back({covered, i.begin});
    covered = std::max(covered, i.end);
  }
  if (covered < end) result.push_back({covered, end});
  return result;
}

// Intervals joined where the gap between them is under `join_ns`.
std::vector<std::pair<Interval, int>> joined(std::vector<Interval> pieces, std::int64_t join_ns) {
  std::sort(pieces.begin(), pieces.end(), [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<std::pair<Interval, int>> out;
  for (const Interval& p : pieces) {
    if (!out.empty() && p.begin <= out.back().first.end + join_ns) {
      out.back().first.end = std::max(out.back().first.end, p.end);
      ++out.back().second;
    } else {
      out.push_back({p, 1});
    }
  }
  return out;
}

constexpr std::array comm_kinds = {models::TaskKind::tp_comm, models::TaskKind::cp_comm, models::TaskKind::ep_comm,
                                   models::TaskKind::pp_comm, models::TaskKind::dp_comm};

}  // namespace

std::int64_t warm_up_end_ns(const models::StepGraph& step, const sim::Timeline& timeline) {
  // Stage 0 runs the backward of micro-batch k about pp + k passes in: by then every stage has
  // started and the steady state shows.
  const auto pp = static_cast<std::int32_t>(step.stages.size());
  std::int32_t last_micro_batch = 0;
  for (sim::TaskId t = 0; t < step.graph.size(); ++t) last_micro_batch = std::max(last_micro_batch, step.graph.label(t).micro_batch);
  const std::int32_t k = std::min(last_micro_batch, pp + 3);
  std::int64_t end = 0;
  models::for_each_piece(step, timeline, [&](const sim::TaskLabel& label, models::TaskKind kind, sim::ResourceId,
                                              std::int64_t, std::int64_t piece_end) {
    if (label.stage == 0 && label.micro_batch == k && label.layer == 0 &&
        static_cast<models::TaskPhase>(label.phase) == models::TaskPhase::backward && kind == models::TaskKind::compute)
      end = std::max(end, piece_end);
  });
  return end > 0 ? end : timeline.makespan.ns();
}

std::string timeline_svg(const models::StepGraph& step, const sim::Timeline& timeline, std::int64_t window_end_ns) {
  const std::size_t stages = step.stages.size();
  const std::int64_t makespan = std::max<std::int64_t>(1, timeline.makespan.ns());
  const bool window = window_end_ns > 0 && window_end_ns < makespan;
  const std::int64_t shown_ns = window ? window_end_ns : makespan;
  // Seconds on the axis for a step of a few seconds or more, else milliseconds.
  const bool in_seconds = static_cast<double>(shown_ns) * 1e-9 >= 2.0;
  const double unit_ns = in_seconds ? 1e9 : 1e6;
  const svg::Axis axis = svg::linear_axis(0.0, static_cast<double>(shown_ns) / unit_ns, tl_left, tl_left + tl_plot_width);
  const auto end_ns = static_cast<std::int64_t>(axis.hi * unit_ns);  // the axis's end, a round value
  const std::int64_t clip_ns = window ? end_ns : makespan;
  const auto x = [&](std::int64_t ns) { return axis(static_cast<double>(ns) / unit_ns); };
  const double px_per_ns = tl_plot_width / (axis.hi * unit_ns);
  const bool titles = step.graph.size() <= tl_max_titled_tasks;

  // Collect the pieces first: the lanes and the legend show only the kinds the step has.
  struct Box {
    std::size_t stage;
    models::TaskPhase phase;
    Interval time;
    std::int32_t micro_batch, chunk;
  };
  std::vector<Box> compute;
  std::map<std::pair<std::size_t, models::TaskKind>, std::vector<Interval>> comm;
  std::vector<std::vector<Interval>> busy(stages);
  bool has_phase[3] = {false, false, false};
  models::for_each_piece(step, timeline, [&](const sim::TaskLabel& label, models::TaskKind kind, sim::ResourceId,
                                              std::int64_t begin, std::int64_t piece_end) {
    const auto phase = static_cast<models::TaskPhase>(label.phase);
    if (label.stage < 0 || static_cast<std::size_t>(label.stage) >= stages || phase == models::TaskPhase::step_end) return;
    const std::int64_t end = std::min(piece_end, clip_ns);
    if (end <= begin) return;
    const auto stage = static_cast<std::size_t>(label.stage);
    busy[stage].push_back({begin, end});
    if (kind == models::TaskKind::compute) {
      compute.push_back({stage, phase, {begin, end}, label.micro_batch, label.layer});
      has_phase[static_cast<int>(phase)] = true;
    } else {
      comm[{stage, kind}].push_back({begin, end});
    }
  });
  std::vector<models::TaskKind> lanes;
  for (const models::TaskKind k : comm_kinds) {
    for (std::size_t s = 0; s < stages; ++s) {
      if (comm.count({s, k}) != 0) {
        lanes.push_back(k);
        break;
      }
    }
  }

  const std::string chart = window ? "timeline-warm-up" : "timeline";
  const std::string hatch = chart + "-hatch";
  const std::string hatch_fill = "url(#" + hatch + ")";
  svg::Legend legend;
  static constexpr std::string_view phase_kind[] = {"forward", "backward", "optimizer"};
  static constexpr std::string_view phase_colour[] = {forward_colour, backward_colour, optimizer_colour};
  for (int p = 0; p < 3; ++p) {
    if (has_phase[p]) legend.use({std::string(phase_kind[p]), std::string(phase_kind[p]), std::string(phase_colour[p])});
  }
  std::vector<std::vector<Interval>> idle(stages);
  bool any_idle = false;
  for (std::size_t s = 0; s < stages; ++s) {
    idle[s] = gaps(busy[s], clip_ns);
    any_idle = any_idle || !idle[s].empty();
  }
  if (any_idle) legend.use({"bubble", "idle (pipeline bubble)", hatch_fill, svg::Swatch::hatch});
  for (const models::TaskKind k : lanes) legend.use({comm_kind_id(k), comm_kind_label(k), std::string(comm_colour(k))});

  const double legend_h = legend.height(tl_plot_width);
  const double top = 10 + legend_h + 24;  // the legend, then room for the step-end label
  const double row_h = tl_compute_h + static_cast<double>(lanes.size()) * tl_lane_h + tl_row_gap;
  const double plot_bottom = top + static_cast<double>(stages) * row_h;
  const double height = plot_bottom + 52;
  std::string svg = svg::open(chart, tl_left + tl_plot_width + tl_right, height,
                              window ? "The first micro-batches of the step, a row per stage"
                                     : "Pipeline timeline of one training step, a row per stage");
  svg += bubble_pattern(hatch);
  svg += legend.render(tl_left, 10, tl_plot_width);
  svg += svg::x_axis(axis, plot_bottom, top, in_seconds ? "time in the step (s)" : "time in the step (ms)",
                     [](double v) { return fmt::format("{:g}", v); });

  for (std::size_t s = 0; s < stages; ++s) {
    const double row_y = top + static_cast<double>(s) * row_h;
    svg += svg::text(tl_left - 8, row_y + tl_compute_h / 2 + 5, "row-label", fmt::format("stage {}", s), svg::Anchor::end);
    for (const Interval& i : idle[s]) {
      svg += fmt::format(
          "<rect class=\"bubble\" data-kind=\"bubble\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" "
          "fill=\"{}\"/>",
          x(i.begin), row_y, x(i.end) - x(i.begin), tl_compute_h, hatch_fill);
    }
  }
  for (const Box& b : compute) {
    const double row_y = top + static_cast<double>(b.stage) * row_h;
    const double x0 = x(b.time.begin), width = std::max(0.5, x(b.time.end) - x0);
    const auto p = static_cast<int>(b.phase);
    std::string title;
    if (titles) {
      title = fmt::format("<title>stage {} {}{}: {} - {}</title>", b.stage, phase_kind[p],
                          b.micro_batch >= 0 ? fmt::format(" micro-batch {} chunk {}", b.micro_batch, b.chunk) : "",
                          seconds_text(static_cast<double>(b.time.begin) * 1e-9),
                          seconds_text(static_cast<double>(b.time.end) * 1e-9));
    }
    svg += fmt::format("<rect class=\"{0}\" data-kind=\"{0}\" x=\"{1:.2f}\" y=\"{2:.1f}\" width=\"{3:.2f}\" "
                       "height=\"{4:.0f}\" fill=\"{5}\">{6}</rect>",
                       phase_kind[p], x0, row_y, width, tl_compute_h, phase_colour[p], title);
    if (b.micro_batch >= 0) {
      const std::string number = std::to_string(b.micro_batch);
      if (width >= svg::text_width(number, svg::tick_font_px) + 4) {
        svg += svg::text(x0 + width / 2, row_y + tl_compute_h / 2 + 4.5, "mb", number, svg::Anchor::middle,
                         fmt::format("style=\"fill: {}\"", svg::text_colour_on(phase_colour[p])));
      }
    }
  }
  const auto join_ns = static_cast<std::int64_t>(1.0 / px_per_ns);
  for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
    const models::TaskKind k = lanes[lane];
    for (std::size_t s = 0; s < stages; ++s) {
      const auto found = comm.find({s, k});
      if (found == comm.end()) continue;
      const double y = top + static_cast<double>(s) * row_h + tl_compute_h + static_cast<double>(lane) * tl_lane_h + 0.5;
      for (const auto& [i, count] : joined(found->second, join_ns)) {
        const double x0 = x(i.begin), width = std::max(tl_min_comm_px, x(i.end) - x0);
        svg += fmt::format(
            "<rect class=\"comm\" data-kind=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" "
            "fill=\"{}\"><title>stage {} {}: {} transfer{}, {} - {}</title></rect>",
            comm_kind_id(k), x0, y, width, tl_lane_h - 1, comm_colour(k), s, comm_kind_label(k), count,
            count == 1 ? "" : "s", seconds_text(static_cast<double>(i.begin) * 1e-9),
            seconds_text(static_cast<double>(i.end) * 1e-9));
      }
    }
  }
  if (!window) {
    const double px = x(makespan);
    svg += fmt::format(
        "<line class=\"step-end\" data-kind=\"step-end\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" "
        "stroke=\"#000\" stroke-width=\"1.5\" stroke-dasharray=\"5 3\"/>",
        px, top - 6, plot_bottom);
    const std::string label = "step end " + seconds_text(static_cast<double>(makespan) * 1e-9);
    const bool fits_right = px + svg::text_width(label, svg::label_font_px) + 4 < tl_left + tl_plot_width + tl_right;
    svg += svg::text(fits_right ? px + 4 : px - 4, top - 10, "label", label,
                     fits_right ? svg::Anchor::start : svg::Anchor::end);
  }
  svg += svg::close();
  return svg;
}

}  // namespace clustersim::tools::charts
