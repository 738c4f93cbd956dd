#include <doctest/doctest.h>

#include <cmath>

#include "models/run/checkpoint_interval.hpp"
#include "models/run/failure_model.hpp"
#include "models/run/interval_sweep.hpp"
#include "models/run/run_inputs.hpp"
#include "models/run/monte_carlo.hpp"
#include "tests/models/model_fixtures.hpp"

namespace clustersim::models {
namespace {

constexpr double hour = 3600.0;
constexpr double day = 86400.0;

std::size_t at(FailureKind kind) { return static_cast<std::size_t>(kind); }
std::size_t at(LossCause cause) { return static_cast<std::size_t>(cause); }

// One node failing by software only (no node loss, no spares involved) with job MTTI `mtti_s`.
RunInputs exponential_job(double work_s, double mtti_s, double interval_s, double stall_s, double restart_s) {
  RunInputs in;
  in.work_s = work_s;
  in.interval_work_s = interval_s;
  in.stall_s = stall_s;
  in.restart_fixed_s = restart_s;
  in.per_node_rate_s[at(FailureKind::software)] = 1.0 / mtti_s;
  return in;
}

TEST_CASE("run simulation: mean waste matches the first-order expectation within 3 %") {
  // Exponential failures (M = 12 h), sync checkpoint of 30 s every hour, restart 10 min, 30 days of
  // work. First order: each failure loses tau/2 of work plus R, the checkpoints cost delta/tau of
  // the work, failures arrive over the whole wall time W: W = work (1 + delta/tau) / (1 - (tau/2 + R)/M).
  // 2000 runs x ~64 failures make the mean's noise about 0.3 %.
  const double work = 30 * day, mtti = 12 * hour, tau = hour, delta = 30.0, restart = 600.0;
  const RunStatistics s = simulate_runs(exponential_job(work, mtti, tau, delta, restart), 2000, 11);
  const double expected_wall = work * (1.0 + delta / tau) / (1.0 - (tau / 2 + restart) / mtti);
  const double simulated_waste = s.mean_wall_s - work;
  const double expected_waste = expected_wall - work;
  CAPTURE(simulated_waste / hour);
  CAPTURE(expected_waste / hour);
  CHECK(std::abs(simulated_waste / expected_waste - 1.0) < 0.03);
  // Failures arrive at 1/M over the wall time.
  CHECK(s.mean_total_interruptions == doctest::Approx(s.mean_wall_s / mtti).epsilon(0.02));
  CHECK(s.unfinished == 0);
}

TEST_CASE("run simulation: the best simulated interval is within 10 % of Daly's") {
  // Daly's own example (delta = 5 min, R = 10 min, M = 6 h): tau_opt = 57 min, Young 60 min.
  // Exponential failures, fixed delta and R, failures also during checkpoints and restarts: the
  // assumptions of his formula. The sweep uses the same failure times for every interval.
  const RunInputs in = exponential_job(20 * day, 6 * hour, hour, 300.0, 600.0);
  const IntervalSweep sweep = sweep_intervals(in, 1.0, 600, 5);
  CHECK(sweep.daly_s / 60.0 == doctest::Approx(56.7).epsilon(0.01));
  CHECK(sweep.young_s / 60.0 == doctest::Approx(60.0).epsilon(0.001));
  CAPTURE(sweep.best_interval_s / 60.0);
  CHECK_FALSE(sweep.best_at_grid_edge);
  CHECK(std::abs(sweep.best_interval_s / sweep.daly_s - 1.0) < 0.10);
}

TEST_CASE("run simulation: Llama 3 rates on 16,384 GPUs give about 419 interruptions in 54 days") {
  // Llama 3 405B: 419 unexpected interruptions on 2,048 nodes in 54 days (Table 5). The default
  // failure spec holds those rates; a Poisson count of mean 419 spreads by +-2 sqrt(419) = +-41
  // (95 %). The simulated count per 54 days of wall time must sit inside that band.
  RunSetup setup{.model = test::llama3_405b(),
                 .cluster = {.gpu = test::h100(), .num_gpus = 16384},
                 .parallelism = {.tp = 8, .pp = 16, .dp = 128},
                 .training = {.seq_len = 8192, .global_batch = 2048},
                 .step_time_s = 10.0};
  setup.training.tokens = 54 * day * 0.9 / setup.step_time_s * 8192.0 * 2048.0;
  const RunStatistics s = simulate_runs(make_run_inputs(setup), 300, 3);
  const double per_54_days = s.mean_total_interruptions * 54 * day / s.mean_wall_s;
  CAPTURE(per_54_days);
  CHECK(std::abs(per_54_days - 419.0) < 2.0 * std::sqrt(419.0));
  // The hardware share: Llama 3 attributes ~78 % of the 419 to hardware.
  const double software = s.mean_interruptions[at(FailureKind::software)] / s.mean_total_interruptions;
  CHECK(software == doctest::Approx(63.0 / 419.0).epsilon(0.1));
}

TEST_CASE("run simulation: without failures the wall time is work plus stalls, checkpoint cycles skipped in closed form") {
  // 100 h of work, a 20 s stall every 10 min: 599 checkpoints (none at the very end).
  RunInputs in = exponential_job(100 * hour, 1.0, 600.0, 20.0, 0.0);
  in.per_node_rate_s = {};
  const RunOutcome o = simulate_run(in, 1);
  CHECK(o.checkpoints == 599);
  CHECK(o.wall_s == doctest::Approx(100 * hour + 599 * 20.0).epsilon(1e-12));
  CHECK(o.lost_s[at(LossCause::checkpoint)] == doctest::Approx(599 * 20.0).epsilon(1e-9));

  // Asynchronous write slower than the interval: each later checkpoint waits for the previous
  // commit (back-pressure): 598 waits of 100 - 60 s on top of the 1 s snapshots.
  in.interval_work_s = 60.0 * 10;
  in.stall_s = 1.0;
  in.commit_after_stall_s = 1000.0;
  const RunOutcome bp = simulate_run(in, 1);
  CHECK(bp.wall_s == doctest::Approx(100 * hour + 599 * 1.0 + 598 * 400.0).epsilon(1e-12));
}

TEST_CASE("run simulation: the same seed gives the same statistics on any number of threads") {
  const RunInputs in = exponential_job(10 * day, 8 * hour, hour, 60.0, 600.0);
  const RunStatistics one = simulate_runs(in, 100, 42, 1);
  const RunStatistics four = simulate_runs(in, 100, 42, 4);
  CHECK(one.mean_wall_s == four.mean_wall_s);
  CHECK(one.p90_wall_s == four.p90_wall_s);
  CHECK(one.mean_lost_s == four.mean_lost_s);
  CHECK(simulate_runs(in, 100, 43, 2).mean_wall_s != one.mean_wall_s);
}

TEST_CASE("run simulation: without a free spare the job waits for a repair, or shrinks") {
  // 16 nodes of 8 GPUs as 16 replicas, GPU failures every ~2 days per job, repairs take 2 days.
  RunInputs in = exponential_job(30 * day, 1.0, hour, 10.0, 600.0);
  in.per_node_rate_s = {};
  in.nodes = 16;
  in.gpus = 128;
  in.replicas = 16;
  in.per_node_rate_s[at(FailureKind::gpu)] = 1.0 / (32 * day);
  in.repair_s = 2 * day;

  in.spare_nodes = 100;
  const RunStatistics spares = simulate_runs(in, 200, 9);
  CHECK(spares.mean_lost_s[at(LossCause::spare_wait)] == 0.0);

  in.spare_nodes = 0;
  const RunStatistics wait = simulate_runs(in, 200, 9);
  // A failure waits for its repair (2 days); failures during a wait share it, so about 1.3 days each.
  CHECK(wait.mean_lost_s[at(LossCause::spare_wait)] / wait.mean_total_interruptions > 1.0 * day);

  in.no_spare = NoSparePolicy::shrink;
  const RunStatistics shrink = simulate_runs(in, 200, 9);
  CHECK(shrink.mean_lost_s[at(LossCause::spare_wait)] == 0.0);
  CHECK(shrink.mean_lost_s[at(LossCause::shrink)] > 0.0);
  CHECK(shrink.mean_wall_s < wait.mean_wall_s);
}

TEST_CASE("run simulation: stragglers and thermal throttling cost their slowdown while they last") {
  // No failures; 1 % thermal slowdown all the time, and stragglers (5 % slower, 30 min each)
  // arriving once a day on average, rarely overlapping: straggler loss ~ 1/day x 30 min x 0.05/1.05.
  RunInputs in = exponential_job(100 * day, 1.0, hour, 0.0, 0.0);
  in.per_node_rate_s = {};
  in.thermal_factor = 1.0 / 1.01;
  in.straggler_rate_s = 1.0 / day;
  in.straggler_factor = 1.0 / 1.05;
  in.straggler_duration_s = 1800.0;
  const RunStatistics s = simulate_runs(in, 200, 4);
  CHECK(s.mean_stragglers == doctest::Approx(s.mean_wall_s / day).epsilon(0.02));
  const double per_straggler = s.mean_lost_s[at(LossCause::straggler)] / s.mean_stragglers;
  // While a straggler is active the rate is 1/(1.01 x 1.05); its share of the loss is split by log.
  const double both = 1.0 - 1.0 / (1.01 * 1.05);
  const double expected = 1800.0 * both * std::log(1.05) / (std::log(1.05) + std::log(1.01));
  CHECK(per_straggler == doctest::Approx(expected).epsilon(0.03));
  CHECK(s.mean_lost_s[at(LossCause::thermal)] == doctest::Approx(0.01 * 100 * day).epsilon(0.01));
}

TEST_CASE("run inputs: an interval longer than the run names the field") {
  RunSetup setup{.model = test::llama3_8b(),
                 .cluster = {.gpu = test::h100(), .num_gpus = 8},
                 .parallelism = {.tp = 8},
                 .training = {.tokens = 1e9},
                 .step_time_s = 1.0};
  setup.checkpoint.interval_s = 1e9;
  CHECK_THROWS_WITH_AS(make_run_inputs(setup), doctest::Contains("checkpoint.interval_minutes"), RunSetupError);
  setup.checkpoint.interval_s = 0;
  setup.checkpoint.interval_steps = 1'000'000;
  CHECK_THROWS_WITH_AS(make_run_inputs(setup), doctest::Contains("checkpoint.interval_steps"), RunSetupError);
  setup.checkpoint.interval_steps = 10;
  setup.checkpoint.target = StorageKind::local_nvme;
  CHECK_THROWS_WITH_AS(make_run_inputs(setup), doctest::Contains("checkpoint.second_target"), RunSetupError);
}

}  // namespace
}  // namespace clustersim::models
