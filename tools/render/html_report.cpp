#include "tools/render/html_report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

#include <fmt/format.h>

#include "models/step/step_labels.hpp"
#include "models/step/step_pieces.hpp"
#include "tools/render/step_report.hpp"

namespace clustersim::tools {
namespace {

// Tableau 10: distinct to most colour-blind readers and in print.
constexpr std::string_view kForward = "#4e79a7";
constexpr std::string_view kBackward = "#59a14f";
constexpr std::string_view kOptimizer = "#b07aa1";
constexpr std::string_view kTpComm = "#f28e2b";
constexpr std::string_view kPpComm = "#e15759";
constexpr std::string_view kDpComm = "#9c755f";
constexpr std::string_view kCpComm = "#edc948";
constexpr std::string_view kEpComm = "#b07aa1";
constexpr std::string_view kBad = "#e15759";
constexpr std::string_view kGood = "#59a14f";

// The hatch of idle pipeline time; defined once per chart, as an id inside each SVG.
std::string bubble_pattern(std::string_view id) {
  return fmt::format(
      "<defs><pattern id=\"{}\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#eeeeee\"/>"
      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#aaaaaa\" stroke-width=\"2\"/></pattern></defs>",
      id);
}

std::string svg_open(std::string_view chart, double width, double height, std::string_view description) {
  return fmt::format(
      "<svg class=\"chart\" data-chart=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0f}\" "
      "height=\"{:.0f}\" viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\"><desc>{}</desc>",
      chart, width, height, width, height, html_escape(description));
}

std::string legend_item(double x, double y, std::string_view fill, std::string_view text) {
  return fmt::format(
      "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"12\" height=\"12\" fill=\"{}\" stroke=\"#666\" stroke-width=\"0.5\"/>"
      "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"legend\">{}</text>",
      x, y, fill, x + 16, y + 10, html_escape(text));
}

std::string seconds_text(double s) {
  if (s == 0.0) return "0";
  if (s >= 1.0) return fmt::format("{:.3g} s", s);
  if (s >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  return fmt::format("{:.3g} us", s * 1e6);
}

// Round tick step for a linear axis over [0, max]: 1, 2 or 5 x 10^k, about 6 ticks.
double tick_step(double max) {
  if (!(max > 0)) return 1.0;
  const double raw = max / 6.0;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (const double m : {1.0, 2.0, 5.0}) {
    if (m * power >= raw) return m * power;
  }
  return 10.0 * power;
}

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

std::string_view comm_colour(models::TaskKind kind) {
  switch (kind) {
    case models::TaskKind::tp_comm: return kTpComm;
    case models::TaskKind::pp_comm: return kPpComm;
    case models::TaskKind::dp_comm: return kDpComm;
    case models::TaskKind::cp_comm: return kCpComm;
    case models::TaskKind::ep_comm: return kEpComm;
    case models::TaskKind::compute:
    case models::TaskKind::compute_then_tp: break;
  }
  return kForward;
}

// A log or linear axis mapping [lo, hi] onto [a, b] pixels.
struct Axis {
  double lo, hi, a, b;
  bool log;
  double operator()(double v) const {
    const double f = log ? (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo)) : (v - lo) / (hi - lo);
    return a + f * (b - a);
  }
  std::vector<double> ticks() const {
    std::vector<double> result;
    if (log) {
      for (double decade = std::pow(10.0, std::floor(std::log10(lo))); decade <= hi; decade *= 10.0) {
        for (const double m : {1.0, 2.0, 5.0}) {
          if (m * decade >= lo && m * decade <= hi) result.push_back(m * decade);
        }
      }
    } else {
      const double step = tick_step(hi - lo);
      for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) result.push_back(v);
    }
    return result;
  }
};

Axis make_axis(double min, double max, double a, double b) {
  if (!(max > 0)) max = 1.0;
  if (min > 0 && max / min > 20.0) {
    return {.lo = std::pow(10.0, std::floor(std::log10(min))), .hi = std::pow(10.0, std::ceil(std::log10(max))), .a = a,
            .b = b, .log = true};
  }
  const double hi = tick_step(max) * std::ceil(max * 1.05 / tick_step(max));
  return {.lo = 0.0, .hi = hi, .a = a, .b = b, .log = false};
}

std::string number_text(double v) {
  if (v >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (v >= 1e3) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.3g}", v);
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

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
  const std::int64_t makespan =
      std::max<std::int64_t>(1, window_end_ns > 0 ? std::min(window_end_ns, timeline.makespan.ns()) : timeline.makespan.ns());
  constexpr double left = 70, plot_width = 1100, top = 44, compute_h = 22, comm_h = 9, row_gap = 10;
  constexpr double row_h = compute_h + comm_h + row_gap;
  const double height = top + static_cast<double>(stages) * row_h + 30;
  const double scale = plot_width / static_cast<double>(makespan);
  const auto x = [&](std::int64_t ns) { return left + static_cast<double>(ns) * scale; };
  // Hover titles make a large step's page heavy; beyond a few thousand tasks they are left out.
  const bool titles = step.graph.size() <= 6000;

  const std::string chart = window_end_ns > 0 ? "timeline-warm-up" : "timeline";
  const std::string hatch = chart + "-hatch";
  const std::string hatch_fill = "url(#" + hatch + ")";
  std::string svg = svg_open(chart, left + plot_width + 20, height,
                             "Pipeline timeline of one training step, a row per stage");
  svg += bubble_pattern(hatch);
  // Time axis.
  const double seconds = static_cast<double>(makespan) * 1e-9;
  const double step_s = tick_step(seconds);
  for (double t = 0; t <= seconds * (1 + 1e-9); t += step_s) {
    const double px = left + t / seconds * plot_width;
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#dddddd\"/>"
        "<text x=\"{0:.1f}\" y=\"{3:.1f}\" class=\"tick\" text-anchor=\"middle\">{4}</text>",
        px, top - 4, height - 30, top - 8, seconds_text(t));
  }

  std::vector<std::vector<Interval>> busy(stages);
  std::string boxes;
  models::for_each_piece(step, timeline, [&](const sim::TaskLabel& label, models::TaskKind kind, sim::ResourceId,
                                              std::int64_t begin, std::int64_t piece_end) {
    const auto phase = static_cast<models::TaskPhase>(label.phase);
    if (label.stage < 0 || static_cast<std::size_t>(label.stage) >= stages || phase == models::TaskPhase::step_end) return;
    const std::int64_t end = std::min(piece_end, makespan);
    if (end <= begin) return;
    const auto stage = static_cast<std::size_t>(label.stage);
    busy[stage].push_back({begin, end});
    const double row_y = top + static_cast<double>(stage) * row_h;
    const double x0 = x(begin), width = std::max(0.3, x(end) - x0);
    std::string title;
    if (titles) {
      title = fmt::format("<title>stage {} {} {}{}: {} - {}</title>", stage, models::phase_name(phase),
                          models::kind_name(kind),
                          label.micro_batch >= 0 ? fmt::format(" micro-batch {} chunk {}", label.micro_batch, label.layer)
                                                 : std::string(),
                          seconds_text(static_cast<double>(begin) * 1e-9), seconds_text(static_cast<double>(end) * 1e-9));
    }
    if (kind == models::TaskKind::compute) {
      const std::string_view fill = phase == models::TaskPhase::forward    ? kForward
                                    : phase == models::TaskPhase::backward ? kBackward
                                                                           : kOptimizer;
      boxes += fmt::format("<rect class=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" fill=\"{}\">{}</rect>",
                           models::phase_name(phase), x0, row_y, width, compute_h, fill, title);
      if (label.micro_batch >= 0 && width >= 8.0 * static_cast<double>(std::to_string(label.micro_batch).size()) + 2) {
        boxes += fmt::format("<text x=\"{:.2f}\" y=\"{:.1f}\" class=\"mb\" text-anchor=\"middle\">{}</text>",
                             x0 + width / 2, row_y + compute_h / 2 + 4, label.micro_batch);
      }
    } else {
      boxes += fmt::format(
          "<rect class=\"comm\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" fill=\"{}\" "
          "fill-opacity=\"0.85\">{}</rect>",
          x0, row_y + compute_h + 1, width, comm_h, comm_colour(kind), title);
    }
  });
  for (std::size_t s = 0; s < stages; ++s) {
    const double row_y = top + static_cast<double>(s) * row_h;
    svg += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"rowlabel\" text-anchor=\"end\">stage {}</text>", left - 8,
                       row_y + compute_h / 2 + 4, s);
    for (const Interval& idle : gaps(busy[s], makespan)) {
      svg += fmt::format(
          "<rect class=\"bubble\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" fill=\"{}\"/>",
          x(idle.begin), row_y, x(idle.end) - x(idle.begin), compute_h, hatch_fill);
    }
  }
  svg += boxes;
  double lx = left;
  const double ly = 6;
  for (const auto& [fill, text] : std::initializer_list<std::pair<std::string_view, std::string_view>>{
           {kForward, "forward"}, {kBackward, "backward"}, {kOptimizer, "optimizer"},
           {hatch_fill, "idle (bubble)"}, {kTpComm, "TP comm"}, {kPpComm, "PP comm"},
           {kDpComm, "DP comm"}, {kCpComm, "CP comm"}, {kEpComm, "EP comm"}}) {
    svg += legend_item(lx, ly, fill, text);
    lx += 40 + 6.5 * static_cast<double>(text.size());
  }
  svg += "</svg>";
  return svg;
}

std::string timeline_figures(const models::StepGraph& step, const sim::Timeline& timeline) {
  std::string html = timeline_svg(step, timeline);
  const std::int64_t warm_up = warm_up_end_ns(step, timeline);
  if (warm_up < timeline.makespan.ns() * 6 / 10) {
    html += "<p>The first micro-batches, numbered:</p>" + timeline_svg(step, timeline, warm_up);
  }
  return html;
}

std::string breakdown_svg(const models::StepReport& report) {
  const auto& times = report.times;
  const double step = std::max(times.step_time_s, 1e-12);
  constexpr double left = 110, plot_width = 900, top = 30, bar_h = 18, gap = 6;
  const std::size_t rows = times.stages.size() + 1;
  const double height = top + static_cast<double>(rows) * (bar_h + gap) + 10;
  std::string svg = svg_open("breakdown", left + plot_width + 160, height,
                             "Step-time breakdown: compute, exposed communication and pipeline bubble");
  svg += bubble_pattern("breakdown-hatch");
  svg += legend_item(left, 4, kForward, "compute") + legend_item(left + 90, 4, kTpComm, "exposed communication") +
         legend_item(left + 270, 4, "url(#breakdown-hatch)", "pipeline bubble");
  const auto bar = [&](std::size_t row, std::string_view name, double compute, double exposed, double bubble) {
    const double y = top + static_cast<double>(row) * (bar_h + gap);
    std::string out = fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"rowlabel\" text-anchor=\"end\">{}</text>",
                                  left - 8, y + bar_h / 2 + 4, html_escape(name));
    double x0 = left;
    for (const auto& [value, fill, what] : {std::tuple{compute, kForward, "compute"},
                                            std::tuple{exposed, kTpComm, "exposed communication"},
                                            std::tuple{bubble, std::string_view("url(#breakdown-hatch)"), "bubble"}}) {
      const double width = value / step * plot_width;
      out += fmt::format(
          "<rect class=\"segment\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" fill=\"{}\">"
          "<title>{}: {} ({:.1f} %)</title></rect>",
          x0, y, std::max(0.0, width), bar_h, fill, what, seconds_text(value), 100 * value / step);
      x0 += width;
    }
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"value\">{:.1f} / {:.1f} / {:.1f} %</text>", x0 + 6,
                       y + bar_h / 2 + 4, 100 * compute / step, 100 * exposed / step, 100 * bubble / step);
    return out;
  };
  svg += bar(0, "step (mean)", times.compute_fraction * step, times.exposed_comm_fraction * step,
             times.bubble_fraction * step);
  for (std::size_t s = 0; s < times.stages.size(); ++s) {
    const auto& st = times.stages[s];
    svg += bar(s + 1, fmt::format("stage {}", s), st.compute_s, st.exposed_comm_s, st.bubble_s);
  }
  svg += "</svg>";
  return svg;
}

std::string ranking_svg(const std::vector<planning::SweepRow>& rows, std::size_t top) {
  std::vector<const planning::SweepRow*> shown;
  for (const planning::SweepRow& row : rows) {
    if (shown.size() == top) break;
    if (row.status == planning::RowStatus::simulated) shown.push_back(&row);
  }
  double best = 0.0;
  for (const planning::SweepRow* row : shown) best = std::max(best, row->tokens_per_s_per_gpu);
  if (!(best > 0)) best = 1.0;
  constexpr double left = 330, plot_width = 640, top_margin = 28, bar_h = 16, gap = 5;
  const double height = top_margin + static_cast<double>(shown.size()) * (bar_h + gap) + 10;
  std::string svg =
      svg_open("ranking", left + plot_width + 90, height,
               "Sweep ranking: tokens per second per GPU of each layout, in rank order (the slow end of its band)");
  svg += legend_item(left, 4, kGood, "fits in memory") + legend_item(left + 130, 4, kBad, "does not fit");
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const planning::SweepRow& row = *shown[i];
    const double y = top_margin + static_cast<double>(i) * (bar_h + gap);
    const std::string name = row.name.empty() ? planning::layout_label(row.layout) : row.name;
    const double width = row.tokens_per_s_per_gpu / best * plot_width;
    svg += fmt::format(
        "<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"rowlabel\" text-anchor=\"end\">{}. {}</text>"
        "<rect class=\"bar\" x=\"{:.0f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{:.0f}\" fill=\"{}\">"
        "<title>{}: step {:.3f} s (band {:.3f}-{:.3f} s), MFU {:.1f} %, bubble {:.1f} %, {}</title></rect>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"value\">{:.0f} tok/s/GPU</text>",
        left - 8, y + bar_h / 2 + 4, i + 1, html_escape(name), left, y, std::max(1.0, width), bar_h,
        row.fits ? kGood : kBad, html_escape(name), row.step_time_s, row.band.fast_s, row.band.slow_s, 100 * row.mfu,
        100 * row.bubble_fraction,
        html_escape(row.reason), left + width + 6, y + bar_h / 2 + 4, row.tokens_per_s_per_gpu);
  }
  svg += "</svg>";
  return svg;
}

std::string pareto_svg(const std::vector<ParetoPoint>& points, double deadline_days, double budget_usd) {
  constexpr double left = 90, right = 30, top = 30, bottom = 50, plot_w = 860, plot_h = 440;
  double min_days = std::numeric_limits<double>::infinity(), max_days = 0;
  double min_cost = std::numeric_limits<double>::infinity(), max_cost = 0;
  for (const auto& p : points) {
    min_days = std::min(min_days, p.days);
    max_days = std::max(max_days, p.days);
    min_cost = std::min(min_cost, p.cost_usd);
    max_cost = std::max(max_cost, p.cost_usd);
  }
  if (deadline_days > 0) max_days = std::max(max_days, deadline_days);
  if (budget_usd > 0) max_cost = std::max(max_cost, budget_usd);
  const Axis ax = make_axis(min_days, max_days, left, left + plot_w);
  const Axis ay = make_axis(min_cost, max_cost, top + plot_h, top);
  std::string svg = svg_open("pareto", left + plot_w + right, top + plot_h + bottom,
                             "Pareto chart: time to train against cost of every sized option");
  svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/>", left, top,
                     plot_w, plot_h);
  for (const double v : ax.ticks()) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#eee\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" class=\"tick\" text-anchor=\"middle\">{4}</text>",
        ax(v), top, top + plot_h, top + plot_h + 16, number_text(v));
  }
  for (const double v : ay.ticks()) {
    svg += fmt::format(
        "<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#eee\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" class=\"tick\" text-anchor=\"end\">${5}</text>",
        left, ay(v), left + plot_w, left - 6, ay(v) + 4, number_text(v));
  }
  svg += fmt::format(
      "<text x=\"{:.0f}\" y=\"{:.0f}\" class=\"axis\" text-anchor=\"middle\">time to train (days{})</text>"
      "<text x=\"16\" y=\"{:.0f}\" class=\"axis\" text-anchor=\"middle\" transform=\"rotate(-90 16 {:.0f})\">"
      "cost (USD{})</text>",
      left + plot_w / 2, top + plot_h + 40, ax.log ? ", log scale" : "", top + plot_h / 2, top + plot_h / 2,
      ay.log ? ", log scale" : "");
  if (deadline_days > 0) {
    svg += fmt::format(
        "<line class=\"deadline\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#e15759\" "
        "stroke-dasharray=\"6 4\"/><text x=\"{3:.1f}\" y=\"{4}\" class=\"tick\">deadline</text>",
        ax(deadline_days), top, top + plot_h, ax(deadline_days) + 4, top + 12);
  }
  if (budget_usd > 0) {
    svg += fmt::format(
        "<line class=\"budget\" x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#e15759\" "
        "stroke-dasharray=\"6 4\"/><text x=\"{3}\" y=\"{4:.1f}\" class=\"tick\">budget</text>",
        left, ay(budget_usd), left + plot_w, left + 4, ay(budget_usd) - 4);
  }
  std::vector<const ParetoPoint*> front;
  for (const auto& p : points) {
    if (p.on_front) front.push_back(&p);
    svg += fmt::format("<circle class=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\" fill-opacity=\"{}\">"
                       "<title>{}: {:.1f} days, ${}</title></circle>",
                       p.on_front ? "front" : "option", ax(p.days), ay(p.cost_usd), p.on_front ? 5 : 3,
                       p.on_front ? kForward : std::string_view("#bbbbbb"), p.on_front ? 1.0 : 0.7,
                       html_escape(p.label), p.days, number_text(p.cost_usd));
  }
  std::sort(front.begin(), front.end(), [](const auto* a, const auto* b) { return a->days < b->days; });
  if (front.size() > 1) {
    std::string path;
    for (const auto* p : front) path += fmt::format("{:.1f},{:.1f} ", ax(p->days), ay(p->cost_usd));
    svg += fmt::format("<polyline class=\"frontline\" points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"/>",
                       path, kForward);
  }
  for (const auto& p : points) {
    if (!p.chosen) continue;
    svg += fmt::format(
        "<circle class=\"chosen\" cx=\"{0:.1f}\" cy=\"{1:.1f}\" r=\"10\" fill=\"none\" stroke=\"#e15759\" "
        "stroke-width=\"2.5\"/><text x=\"{2:.1f}\" y=\"{3:.1f}\" class=\"value\">{4}</text>",
        ax(p.days), ay(p.cost_usd), ax(p.days) + 14, ay(p.cost_usd) - 10, html_escape(p.label));
  }
  svg += legend_item(left + 10, top + plot_h - 40, kForward, "Pareto front (no option is both faster and cheaper)");
  svg += legend_item(left + 10, top + plot_h - 22, "#bbbbbb", "other options");
  svg += "</svg>";
  return svg;
}

std::string run_report_html(const scenarios::Scenario& scenario, const models::StepSimulation& sim) {
  HtmlPage page("clustersim run: " + scenario.name);
  page.step(sim);
  page.heading("Report");
  page.preformatted(step_report_text(scenario, sim.report));
  return page.render();
}

void HtmlPage::heading(std::string_view text) { body_ += "<h2>" + html_escape(text) + "</h2>\n"; }
void HtmlPage::paragraph(std::string_view text) { body_ += "<p>" + html_escape(text) + "</p>\n"; }
void HtmlPage::preformatted(std::string_view text) { body_ += "<pre>" + html_escape(text) + "</pre>\n"; }
void HtmlPage::step(const models::StepSimulation& sim) {
  heading("Pipeline timeline of one step");
  raw(timeline_figures(sim.step, sim.timeline));
  heading("Step-time breakdown");
  raw(breakdown_svg(sim.report));
}
void HtmlPage::raw(std::string html) {
  body_ += "<div class=\"figure\">" + std::move(html) + "</div>\n";
}

std::string HtmlPage::render() const {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_escape(title_) +
         "</title>\n<style>\n"
         "body { font-family: sans-serif; margin: 24px; color: #222; }\n"
         "h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 28px; }\n"
         "pre { background: #f6f6f6; padding: 10px; overflow-x: auto; font-size: 12px; }\n"
         ".figure { overflow-x: auto; }\n"
         "svg text { font-family: sans-serif; font-size: 11px; fill: #222; }\n"
         "svg text.mb { font-size: 10px; fill: #ffffff; }\n"
         "svg text.tick { fill: #666; font-size: 10px; }\n"
         "svg text.axis { font-size: 12px; }\n"
         "</style>\n</head>\n<body>\n<h1>" +
         html_escape(title_) + "</h1>\n" + body_ + "<p><small>Written by clustersim.</small></p>\n</body>\n</html>\n";
}

}  // namespace clustersim::tools
