#pragma once
// KNOWN BREACHES, TO BE REMOVED AT THE MERGE OF THE NEW CHARTS (issue 21, branch i21-charts).
//
// The charts on main break some of the browser check's rules; the check found exactly these
// (chart, rule) pairs on the run, sweep and plan reports. Listed here, they are reported as
// messages instead of failures, so that the suite stays green until the new charts land. An entry
// that no report breaks any more fails the check ("remove it"), so the list cannot go stale: the
// lead empties it when merging the charts, and every rule is then a hard requirement.

#include <string>
#include <vector>

#include "tests/tools/render/browser_rules.hpp"

namespace clustersim::test {

struct KnownBreach {
  std::string chart;
  std::string rule;
};

inline const std::vector<KnownBreach>& known_breaches_until_new_charts() {
  static const std::vector<KnownBreach> list{
      // Tick labels 10 px, row labels, values and legends 11 px, micro-batch numbers 10 px.
      {"timeline", rule::font_size},
      {"timeline-warm-up", rule::font_size},
      {"breakdown", rule::font_size},
      {"ranking", rule::font_size},
      {"pareto", rule::font_size},
      // White micro-batch numbers (drawn on the bars; the rule measures against the page's white).
      {"timeline-warm-up", rule::contrast},
      // Fixed widths (1,190, 1,170, 1,060 and 980 px) inside a 985 px viewport: the figures scroll.
      {"timeline", rule::right_edge},
      {"timeline-warm-up", rule::right_edge},
      {"breakdown", rule::right_edge},
      {"ranking", rule::right_edge},
      {"pareto", rule::right_edge},
      // ... and so their .figure boxes scroll them sideways (the timeline's box holds the warm-up
      // window too); the text report's <pre> scrolls its long lines (sweep, plan).
      {"timeline", rule::scroll_inside},
      {"breakdown", rule::scroll_inside},
      {"ranking", rule::scroll_inside},
      {"pareto", rule::scroll_inside},
      {"(page)", rule::scroll_inside},
      // The timeline legends list every kind (CP comm, EP comm, optimizer in the warm-up window)
      // whether drawn or not; the ranking's lists "does not fit" when every layout fits.
      {"timeline", rule::legend_drawn},
      {"timeline-warm-up", rule::legend_drawn},
      {"ranking", rule::legend_drawn},
      // No legend entry carries data-legend yet.
      {"timeline", rule::legend_marked},
      {"timeline-warm-up", rule::legend_marked},
      {"breakdown", rule::legend_marked},
      {"ranking", rule::legend_marked},
      {"pareto", rule::legend_marked},
  };
  return list;
}

}  // namespace clustersim::test
