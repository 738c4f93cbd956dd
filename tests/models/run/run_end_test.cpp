// How a Monte Carlo run ends when failures are frequent: failures resume when lost nodes come
// back, goodput never rises with the failure rate, and a run that cannot finish is given up early
// (RunEnd) instead of being followed for years of simulated time.

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

#include "models/run/give_up_bounds.hpp"
#include "models/run/monte_carlo.hpp"
#include "models/run/run_simulation.hpp"

namespace clustersim::models::run_end_test {
namespace {

constexpr double hour = 3600.0;
constexpr double day = 86400.0;

std::size_t kind_index(FailureKind kind) { return static_cast<std::size_t>(kind); }

// Four nodes of 8 GPUs, one data-parallel replica each, one spare, failures that take a node
// (GPU), 30 days of work, a checkpoint every 30 min with a 30 s stall, a 10 min restart, repairs
// in `repair_s`.
RunInputs four_node_job(double gpu_mtbf_s, double repair_s) {
  RunInputs in;
  in.work_s = 30 * day;
  in.interval_work_s = 1800.0;
  in.stall_s = 30.0;
  in.load_s = in.load_after_node_loss_s = 60.0;
  in.detect_s = 300.0;
  in.restart_fixed_s = 600.0;
  in.nodes = 4;
  in.gpus = 32;
  in.gpus_per_node = 8;
  in.replicas = 4;
  in.spare_nodes = 1;
  in.repair_s = repair_s;
  in.per_node_rate_s[kind_index(FailureKind::gpu)] = 1.0 / gpu_mtbf_s;
  return in;
}

TEST_CASE("run end: the give-up bounds' arithmetic") {
  // Daly with L = 1/h, R = 0.5 h, 1 h of compute, no stall: e^0.5 (e - 1) h = 2.833 h.
  CHECK(expected_commit_s(1.0 / hour, 0.5 * hour, hour, 0.0) / hour == doctest::Approx(2.8329).epsilon(1e-4));
  CHECK(expected_commit_s(0.0, 600.0, hour, 30.0) == hour + 30.0);
  // (a e^(1-a))^m = 1e-9: m = 1 needs a tiny a; many intervals concentrate near the mean.
  for (const double m : {1.0, 32.0, 1e4}) {
    const double a = chernoff_fraction(m);
    CAPTURE(m);
    CHECK(m * (std::log(a) + 1.0 - a) == doctest::Approx(std::log(1e-9)).epsilon(1e-6));
  }
  CHECK(chernoff_fraction(1e4) > 0.9);
}

TEST_CASE("run end: a job whose every node failed fails again once nodes are repaired") {
  // One node, no spare: each failure leaves no node up, so the arrival rate is 0 until the repair.
  // The node is up for an exponential 10 h, then down for the 1 h repair (plus the restart), so
  // failures arrive about once every 11 h over the whole run, not just once.
  RunInputs in = four_node_job(10 * hour, hour);
  in.nodes = 1;
  in.gpus = 8;
  in.replicas = 1;
  in.spare_nodes = 0;
  const RunStatistics s = simulate_runs(in, 200, 3, 1);
  CHECK(s.unfinished == 0);
  CAPTURE(s.mean_total_interruptions);
  const double cycles = s.mean_wall_s / (10 * hour + hour);
  CHECK(s.mean_total_interruptions == doctest::Approx(cycles).epsilon(0.05));
}

TEST_CASE("run end: goodput never rises as failures get more frequent") {
  // GPU MTBF per node from 10,000 h down to 1 h (the 100 h, 24 h and 1 h among them),
  // repairs in a day. Common seeds, so the comparison is not noise.
  double previous = 1.0;
  for (const double mtbf_h : {10000.0, 1000.0, 100.0, 24.0, 10.0, 3.0, 1.0}) {
    const RunStatistics s = simulate_runs(four_node_job(mtbf_h * hour, day), 100, 7, 1);
    CAPTURE(mtbf_h);
    CAPTURE(s.mean_goodput);
    CHECK(s.mean_goodput <= previous);
    previous = s.mean_goodput;
  }
  CHECK(previous < 0.01);
}

TEST_CASE("run end: a restart longer than the time between failures is given up at once") {
  // MTTI 6 min (software, no node loss) against a 10 min restart: the job cannot get through a
  // restart, let alone a checkpoint interval; each run stops at its first interruption.
  RunInputs in = four_node_job(day, day);
  in.per_node_rate_s = {};
  in.per_node_rate_s[kind_index(FailureKind::software)] = 1.0 / (4 * 6 * 60.0);
  const RunStatistics s = simulate_runs(in, 50, 1, 1);
  CHECK(s.runs_by_end[static_cast<std::size_t>(RunEnd::too_many_failures)] == 50);
  CHECK(s.mean_total_interruptions == doctest::Approx(1.0));
  // Only the few runs that committed a checkpoint before their failure (e^-5 of them) did work.
  CHECK(s.mean_goodput < 0.05);
  CHECK(std::isinf(s.p50_wall_s));
  CHECK(s.mean_wall_s == s.horizon_s);  // unfinished runs count at the horizon
}

TEST_CASE("run end: a job that waits for repaired nodes is given up once it cannot make it") {
  // Node MTBF 24 h, repairs in 5 days: the job is short of nodes most of the time.
  const RunStatistics s = simulate_runs(four_node_job(24 * hour, 5 * day), 50, 1, 1);
  CHECK(s.unfinished == 50);
  CHECK(s.runs_by_end[static_cast<std::size_t>(RunEnd::event_budget)] == 0);
  CHECK(s.mean_goodput < 0.05);
}

TEST_CASE("run end: a slow job that can finish within the horizon is followed to the end") {
  // MTTI 2 h (software, no node loss), a 1.5 h restart and 1.5 h between checkpoints: an interval
  // is committed only after 3 h without a failure (22 %). Daly's expected time per interval,
  // e^(R/M) (e^((tau + delta)/M) - 1) M = 4.8 h for 1.5 h of work, about 3.2x the work: slow, but
  // inside the horizon, and no bound may give it up.
  RunInputs in = four_node_job(day, day);
  in.per_node_rate_s = {};
  in.per_node_rate_s[kind_index(FailureKind::software)] = 1.0 / (4 * 2 * hour);
  in.restart_fixed_s = 1.5 * hour;
  in.interval_work_s = 1.5 * hour;
  const RunStatistics s = simulate_runs(in, 20, 1, 1);
  CHECK(s.unfinished == 0);
  CAPTURE(s.mean_wall_s / in.work_s);
  CHECK(s.mean_wall_s > 2.7 * in.work_s);
  CHECK(s.mean_wall_s < 3.8 * in.work_s);
}

TEST_CASE("run end: the same seed gives the same runs, also when they are given up") {
  const RunInputs in = four_node_job(3 * hour, day);
  const RunStatistics a = simulate_runs(in, 40, 9, 1);
  const RunStatistics b = simulate_runs(in, 40, 9, 3);
  CHECK(a.mean_goodput == b.mean_goodput);
  CHECK(a.mean_wall_s == b.mean_wall_s);
  CHECK(a.runs_by_end == b.runs_by_end);
  CHECK(a.mean_total_interruptions == b.mean_total_interruptions);
}

}  // namespace
}  // namespace clustersim::models::run_end_test
