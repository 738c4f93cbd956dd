#include "tools/render/charts/pareto_chart.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "tools/render/svg/axis.hpp"
#include "tools/render/svg/elements.hpp"
#include "tools/render/svg/legend.hpp"
#include "tools/render/svg/palette.hpp"

namespace clustersim::tools::charts {
namespace {

constexpr double pa_left = 100, pa_plot_w = 860, pa_plot_h = 440, pa_right = 30;
constexpr double pa_option_r = 5, pa_front_r = 7, pa_chosen_r = 12;
constexpr double pa_same_point = 1e-6;  // relative difference under which two options coincide

bool same(double a, double b) { return std::abs(a - b) <= pa_same_point * std::max(std::abs(a), std::abs(b)); }

constexpr svg::Swatch pa_shapes[] = {svg::Swatch::circle, svg::Swatch::square, svg::Swatch::triangle, svg::Swatch::diamond};

std::string slug(std::string_view text) {
  std::string out;
  for (const char c : text) {
    out += (std::isalnum(static_cast<unsigned char>(c)) != 0) ? static_cast<char>(std::tolower(static_cast<unsigned char>(c))) : '-';
  }
  return out;
}

std::size_t index_of(std::vector<std::string>& names, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
  names.push_back(name);
  return names.size() - 1;
}

std::string money_label(double usd) { return "$" + svg::number_label(usd); }

}  // namespace

std::vector<std::vector<std::size_t>> coinciding_groups(const std::vector<ParetoPoint>& points) {
  std::vector<std::vector<std::size_t>> groups;
  std::vector<bool> grouped(points.size(), false);
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (grouped[i]) continue;
    std::vector<std::size_t> group{i};
    for (std::size_t j = i + 1; j < points.size(); ++j) {
      if (!grouped[j] && same(points[i].days, points[j].days) && same(points[i].cost_usd, points[j].cost_usd)) {
        group.push_back(j);
        grouped[j] = true;
      }
    }
    if (group.size() > 1) groups.push_back(std::move(group));
  }
  return groups;
}

std::string pareto_svg(const std::vector<ParetoPoint>& points, double deadline_days, double budget_usd) {
  double min_days = std::numeric_limits<double>::infinity(), max_days = 0;
  double min_cost = std::numeric_limits<double>::infinity(), max_cost = 0;
  for (const auto& p : points) {
    min_days = std::min(min_days, p.days), max_days = std::max(max_days, p.days);
    min_cost = std::min(min_cost, p.cost_usd), max_cost = std::max(max_cost, p.cost_usd);
  }
  if (deadline_days > 0) min_days = std::min(min_days, deadline_days), max_days = std::max(max_days, deadline_days);
  if (budget_usd > 0) min_cost = std::min(min_cost, budget_usd), max_cost = std::max(max_cost, budget_usd);

  // Which points are drawn: a group of coinciding options once, by its first member on the front
  // (else its first).
  const auto groups = coinciding_groups(points);
  std::vector<std::size_t> group_of(points.size(), std::numeric_limits<std::size_t>::max());
  std::vector<bool> drawn(points.size(), true);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    std::size_t shown = groups[g].front();
    for (const std::size_t j : groups[g]) {
      group_of[j] = g;
      if (points[j].on_front && !points[shown].on_front) shown = j;
    }
    for (const std::size_t j : groups[g]) drawn[j] = j == shown;
  }
  // The legend first (its height places the plot), of what is drawn only.
  std::vector<std::string> gpus, topologies;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (drawn[i]) index_of(gpus, points[i].gpu), index_of(topologies, points[i].topology);
  }
  svg::Legend legend;
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    legend.use({"gpu-" + slug(gpus[g]), gpus[g].empty() ? "options" : gpus[g], std::string(svg::series_colour(g))});
  }
  if (!topologies.empty() && (topologies.size() > 1 || !topologies.front().empty())) {
    for (std::size_t t = 0; t < topologies.size(); ++t) {
      legend.use({"topology-" + slug(topologies[t]), topologies[t], "#ffffff", pa_shapes[t % std::size(pa_shapes)]});
    }
  }
  const bool any_front = std::any_of(points.begin(), points.end(), [](const auto& p) { return p.on_front; });
  if (any_front) legend.use({"front", "Pareto front (no option both faster and cheaper)", std::string(svg::black), svg::Swatch::line});
  if (deadline_days > 0) legend.use({"deadline", fmt::format("deadline ({:g} days)", deadline_days), std::string(svg::vermillion), svg::Swatch::dashed_line});
  if (budget_usd > 0) legend.use({"budget", "budget (" + money_label(budget_usd) + ")", std::string(svg::reddish_purple), svg::Swatch::dashed_line});
  const bool any_chosen = std::any_of(points.begin(), points.end(), [](const auto& p) { return p.chosen; });
  if (any_chosen) legend.use({"chosen", "chosen option", "none", svg::Swatch::circle});

  const double top = 12 + legend.height(pa_plot_w) + 12;
  const double height = top + pa_plot_h + 56;
  // Options differ by tens of percent, not from nothing: axes around the data, not from zero,
  // with a margin so that no marker sits on an axis.
  const auto pad = [](double& lo, double& hi) {
    if (!(hi > lo) || hi / lo > 20.0) return;  // a log axis ends on the next round value anyway
    const double margin = 0.05 * (hi - lo);
    lo = std::max(0.0, lo - margin), hi += margin;
  };
  pad(min_days, max_days);
  pad(min_cost, max_cost);
  const svg::Axis ax = svg::auto_axis(min_days, max_days, pa_left, pa_left + pa_plot_w, 20.0, false);
  const svg::Axis ay = svg::auto_axis(min_cost, max_cost, top + pa_plot_h, top, 20.0, false);
  std::string svg = svg::open("pareto", pa_left + pa_plot_w + pa_right, height,
                              "Pareto chart: time to train against cost of every sized option");
  svg += legend.render(pa_left, 12, pa_plot_w);
  svg += svg::x_axis(ax, top + pa_plot_h, top, "time to train (days)", [](double v) { return svg::number_label(v); });
  svg += svg::y_axis(ay, pa_left, pa_left + pa_plot_w, 22, "cost of the run (USD)", money_label);

  svg::Occupied taken;
  if (deadline_days > 0) {
    const double px = ax(deadline_days);
    svg += fmt::format("<line class=\"deadline\" data-kind=\"deadline\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" "
                       "y2=\"{2:.1f}\" stroke=\"{3}\" stroke-width=\"2\" stroke-dasharray=\"7 4\"/>",
                       px, top, top + pa_plot_h, svg::vermillion);
    taken.take({px - 2, top, px + 2, top + pa_plot_h});
  }
  if (budget_usd > 0) {
    const double py = ay(budget_usd);
    svg += fmt::format("<line class=\"budget\" data-kind=\"budget\" x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{2:.1f}\" "
                       "y2=\"{1:.1f}\" stroke=\"{3}\" stroke-width=\"2\" stroke-dasharray=\"7 4\"/>",
                       pa_left, py, pa_left + pa_plot_w, svg::reddish_purple);
    taken.take({pa_left, py - 2, pa_left + pa_plot_w, py + 2});
  }

  // Front line under the markers.
  std::vector<const ParetoPoint*> front;
  for (const auto& p : points) {
    if (p.on_front) front.push_back(&p);
  }
  std::sort(front.begin(), front.end(), [](const auto* a, const auto* b) { return a->days < b->days; });
  if (!front.empty()) {
    std::string path;
    for (const auto* p : front) path += fmt::format("{:.1f},{:.1f} ", ax(p->days), ay(p->cost_usd));
    svg += fmt::format("<polyline class=\"frontline\" data-kind=\"front\" points=\"{}\" fill=\"none\" stroke=\"#000\" "
                       "stroke-width=\"1.5\"/>",
                       path);
    for (std::size_t i = 1; i < front.size(); ++i) {
      // The segments' boxes, so that the chosen label avoids the line too.
      const double x0 = ax(front[i - 1]->days), y0 = ay(front[i - 1]->cost_usd), x1 = ax(front[i]->days),
                   y1 = ay(front[i]->cost_usd);
      const int pieces = 1 + static_cast<int>(std::hypot(x1 - x0, y1 - y0) / 20);
      for (int k = 0; k < pieces; ++k) {
        const double xa = x0 + (x1 - x0) * k / pieces, xb = x0 + (x1 - x0) * (k + 1) / pieces;
        const double ya = y0 + (y1 - y0) * k / pieces, yb = y0 + (y1 - y0) * (k + 1) / pieces;
        taken.take({std::min(xa, xb) - 1, std::min(ya, yb) - 1, std::max(xa, xb) + 1, std::max(ya, yb) + 1});
      }
    }
  }

  // Off-front options first, so the front's markers sit on top.
  std::vector<std::size_t> order(points.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return !points[a].on_front && points[b].on_front; });
  for (const std::size_t i : order) {
    const ParetoPoint& p = points[i];
    if (!drawn[i]) continue;
    std::string coincide, title = fmt::format("{}: {:.1f} days, {}", p.label, p.days, money_label(p.cost_usd));
    if (group_of[i] != std::numeric_limits<std::size_t>::max()) {
      const auto& group = groups[group_of[i]];
      coincide = fmt::format(" data-coincide=\"{}\"", group.size());
      title = fmt::format("{} options at {:.1f} days, {}:", group.size(), p.days, money_label(p.cost_usd));
      for (const std::size_t j : group) title += "\n" + points[j].label;
    }
    const double cx = ax(p.days), cy = ay(p.cost_usd), r = p.on_front ? pa_front_r : pa_option_r;
    const std::size_t g = index_of(gpus, p.gpu), t = index_of(topologies, p.topology);
    svg += fmt::format("<g class=\"{}\" data-kind=\"gpu-{}\"{} fill-opacity=\"{}\"><title>{}</title>",
                       p.on_front ? "front" : "option", slug(p.gpu), coincide, p.on_front ? 1.0 : 0.55,
                       svg::html_escape(title));
    svg += svg::marker(pa_shapes[t % std::size(pa_shapes)], cx, cy, r, svg::series_colour(g),
                       fmt::format("data-kind=\"topology-{}\"", slug(p.topology)));
    if (!coincide.empty()) {
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{:.1f}\" fill=\"none\" stroke=\"#000\" "
                         "stroke-width=\"1\" stroke-dasharray=\"2 2\"/>",
                         cx, cy, r + 3);
    }
    svg += "</g>";
    taken.take({cx - r - 3, cy - r - 3, cx + r + 3, cy + r + 3});
  }

  for (const auto& p : points) {
    if (!p.chosen) continue;
    const double cx = ax(p.days), cy = ay(p.cost_usd);
    svg += fmt::format("<circle class=\"chosen\" data-kind=\"chosen\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"none\" "
                       "stroke=\"#000\" stroke-width=\"2.5\"/>",
                       cx, cy, pa_chosen_r);
    taken.take({cx - pa_chosen_r - 2, cy - pa_chosen_r - 2, cx + pa_chosen_r + 2, cy + pa_chosen_r + 2});
    // Two short lines, "chosen option" over the cluster part of the label ("256 x b200
    // (rail_optimized)"), fit between nearby points and lines; the whole label is in the
    // marker's hover text and the page's heading.
    const std::string lines[] = {"chosen option", p.label.substr(0, p.label.find(", "))};
    constexpr double line_px = 17;
    const double w = std::max(svg::text_width(lines[0], svg::label_font_px), svg::text_width(lines[1], svg::label_font_px));
    // The box of both lines with the first baseline at ly.
    const auto box_at = [&](double lx, double ly) {
      return svg::Box{.x0 = lx, .y0 = ly - 0.8 * svg::label_font_px, .x1 = lx + w, .y1 = ly + line_px + 0.2 * svg::label_font_px};
    };
    // Candidate places around the point, nearest first; the first inside the plot that covers
    // nothing drawn (markers, the front, the deadline and budget lines) wins, joined to the point
    // by a leader line.
    std::optional<std::pair<double, double>> place;
    for (const double distance : {16.0, 30.0, 50.0, 80.0, 120.0, 180.0, 260.0, 360.0}) {
      for (const auto& [dx, dy] : std::initializer_list<std::pair<double, double>>{
               {1, -1}, {1, 1}, {-1, -1}, {-1, 1}, {0, -1}, {0, 1}, {1, 0}, {-1, 0}}) {
        const double lx = dx > 0 ? cx + distance : dx < 0 ? cx - distance - w : cx - w / 2;
        const double ly = dy < 0 ? cy - distance - line_px : dy > 0 ? cy + distance + 0.8 * svg::label_font_px : cy - line_px / 2 + 4;
        const svg::Box box = box_at(lx, ly);
        if (box.x0 < pa_left + 2 || box.x1 > pa_left + pa_plot_w - 2 || box.y0 < top + 2 || box.y1 > top + pa_plot_h - 2) continue;
        if (!taken.free(box)) continue;
        place = std::pair{lx, ly};
        break;
      }
      if (place) break;
    }
    if (!place) place = std::pair{pa_left + 8, top + 16};  // the plot's corner: still no overlap with text
    const auto [lx, ly] = *place;
    const svg::Box box = box_at(lx, ly);
    const double anchor_x = std::clamp(cx, box.x0, box.x1), anchor_y = std::clamp(cy, box.y0, box.y1);
    svg += fmt::format("<line class=\"leader\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#000\" "
                       "stroke-width=\"1\"/>",
                       cx, cy, anchor_x, anchor_y);
    for (int k = 0; k < 2; ++k) {
      svg += svg::text(lx, ly + k * line_px, "label chosen-label", lines[k], svg::Anchor::start,
                       "paint-order=\"stroke\" stroke=\"#ffffff\" stroke-width=\"3\"");
    }
    taken.take(box);
  }
  svg += svg::close();
  return svg;
}

std::string pareto_figure(const std::vector<ParetoPoint>& points, double deadline_days, double budget_usd) {
  std::string html = pareto_svg(points, deadline_days, budget_usd);
  const auto groups = coinciding_groups(points);
  if (groups.empty()) return html;
  std::size_t hidden = 0;
  for (const auto& g : groups) hidden += g.size() - 1;
  html += fmt::format("<p class=\"note\">{} options are drawn as {} points: {} groups of options give the same time "
                      "and cost (ringed with a dotted circle):</p><ul class=\"coinciding\">",
                      points.size(), points.size() - hidden, groups.size());
  for (const auto& g : groups) {
    html += fmt::format("<li>{:.1f} days, {}: ", points[g.front()].days, money_label(points[g.front()].cost_usd));
    for (std::size_t k = 0; k < g.size(); ++k) html += (k ? "; " : "") + svg::html_escape(points[g[k]].label);
    html += "</li>";
  }
  html += "</ul>";
  return html;
}

}  // namespace clustersim::tools::charts
