#include "planning/search/flow_rerank.hpp"

#include <algorithm>
#include <iterator>

#include "models/spec/layout_rules.hpp"
#include "planning/parallel_for.hpp"

namespace clustersim::planning {

std::size_t flow_rerank(std::vector<SweepRow>& rows, const models::StepInputs& base, const PredictionBands& bands,
                        std::size_t first, unsigned jobs) {
  std::size_t n = 0;  // the first rows that were simulated and fit
  while (n < rows.size() && n < first && rows[n].status == RowStatus::simulated && rows[n].fits) ++n;
  std::vector<char> flowed(n, 0);
  parallel_for(n, jobs, [&](std::size_t i) {
    SweepRow& row = rows[i];
    if (models::flow_graph_violation(row.layout.parallelism, row.layout.training)) return;
    models::StepInputs in = with_layout(base, row.layout);
    in.fidelity = models::CommFidelity::flow;
    SweepRow flow = row_from_report(row.index, row.layout, models::step_report(in), base.cluster.gpu);
    flow.name = row.name;
    flow.band = bands.band(flow.step_time_s, row.layout);
    flow.analytic_step_s = row.step_time_s;
    row = std::move(flow);
    flowed[i] = 1;
  });
  // Among themselves, in rank_rows' order.
  const auto head_end = rows.begin() + static_cast<std::ptrdiff_t>(n);
  std::vector<SweepRow> head(std::make_move_iterator(rows.begin()), std::make_move_iterator(head_end));
  rank_rows(head);
  std::move(head.begin(), head.end(), rows.begin());
  return static_cast<std::size_t>(std::count(flowed.begin(), flowed.end(), 1));
}

}  // namespace clustersim::planning
