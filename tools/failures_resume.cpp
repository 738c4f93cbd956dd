#include "tools/failures_resume.hpp"

#include <vector>

#include "tools/bit_record.hpp"

namespace clustersim::tools {
namespace {

// Every field below is kept; a new field must be added to both functions, or a resumed study
// would print it as zero.
static_assert(sizeof(models::RunStatistics) ==
                  sizeof(double) * (15 + models::run_end_count + models::failure_kind_count + models::loss_cause_count),
              "RunStatistics changed: keep its new fields in write_statistics and read_statistics");
static_assert(sizeof(models::IntervalPoint) == 4 * sizeof(double), "IntervalPoint changed: keep its new fields");
static_assert(sizeof(models::IntervalSweep) == 8 * sizeof(double) + sizeof(std::vector<models::IntervalPoint>),
              "IntervalSweep changed: keep its new fields");

void write_statistics(BitRecordWriter& w, const models::RunStatistics& s) {
  w.count(s.runs);
  w.count(s.unfinished);
  for (const std::int64_t n : s.runs_by_end) w.count(n);
  for (const double x : {s.work_s, s.horizon_s, s.mean_wall_s, s.p50_wall_s, s.p90_wall_s, s.stddev_wall_s, s.mean_goodput}) w.number(x);
  for (const double x : s.mean_interruptions) w.number(x);
  for (const double x : {s.mean_total_interruptions, s.p10_interruptions, s.p90_interruptions, s.mean_degraded_links,
                         s.mean_stragglers, s.mean_checkpoints}) {
    w.number(x);
  }
  for (const double x : s.mean_lost_s) w.number(x);
}

models::RunStatistics read_statistics(BitRecordReader& r) {
  models::RunStatistics s;
  s.runs = r.count();
  s.unfinished = r.count();
  for (std::int64_t& n : s.runs_by_end) n = r.count();
  for (double* x : {&s.work_s, &s.horizon_s, &s.mean_wall_s, &s.p50_wall_s, &s.p90_wall_s, &s.stddev_wall_s, &s.mean_goodput}) {
    *x = r.number();
  }
  for (double& x : s.mean_interruptions) x = r.number();
  for (double* x : {&s.mean_total_interruptions, &s.p10_interruptions, &s.p90_interruptions, &s.mean_degraded_links,
                    &s.mean_stragglers, &s.mean_checkpoints}) {
    *x = r.number();
  }
  for (double& x : s.mean_lost_s) x = r.number();
  return s;
}

}  // namespace

std::string statistics_text(const models::RunStatistics& stats) {
  BitRecordWriter w;
  write_statistics(w, stats);
  return w.take();
}

models::RunStatistics statistics_from_text(std::string_view text, std::string_view what) {
  BitRecordReader r(text, what);
  models::RunStatistics stats = read_statistics(r);
  r.finish();
  return stats;
}

std::string interval_sweep_text(const models::IntervalSweep& sweep) {
  BitRecordWriter w;
  for (const double x : {sweep.mtti_s, sweep.delta_s, sweep.restart_s, sweep.young_s, sweep.daly_s}) w.number(x);
  w.count(static_cast<std::int64_t>(sweep.points.size()));
  for (const auto& p : sweep.points) {
    w.number(p.interval_s);
    w.number(p.mean_wall_s);
    w.number(p.mean_goodput);
    w.count(p.unfinished);
  }
  w.number(sweep.best_interval_s);
  w.number(sweep.best_goodput);
  w.flag(sweep.best_at_grid_edge);
  return w.take();
}

models::IntervalSweep interval_sweep_from_text(std::string_view text, std::string_view what) {
  BitRecordReader r(text, what);
  models::IntervalSweep sweep;
  for (double* x : {&sweep.mtti_s, &sweep.delta_s, &sweep.restart_s, &sweep.young_s, &sweep.daly_s}) *x = r.number();
  const std::size_t points = r.items();
  for (std::size_t i = 0; i < points; ++i) {
    models::IntervalPoint p;
    p.interval_s = r.number();
    p.mean_wall_s = r.number();
    p.mean_goodput = r.number();
    p.unfinished = r.count();
    sweep.points.push_back(p);
  }
  sweep.best_interval_s = r.number();
  sweep.best_goodput = r.number();
  sweep.best_at_grid_edge = r.flag();
  r.finish();
  return sweep;
}

}  // namespace clustersim::tools
