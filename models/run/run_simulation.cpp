#include "models/run/run_simulation.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <queue>

#include "models/run/busy_period.hpp"
#include "models/run/give_up_bounds.hpp"
#include "models/run/random.hpp"

namespace clustersim::models {
namespace {

constexpr double infinity = std::numeric_limits<double>::infinity();

std::size_t index(FailureKind kind) { return static_cast<std::size_t>(kind); }
std::size_t index(LossCause cause) { return static_cast<std::size_t>(cause); }

using MinHeap = std::priority_queue<double, std::vector<double>, std::greater<>>;

/// The state of one run and the event loop that drives it.
class Run {
 public:
  Run(const RunInputs& in, std::uint64_t seed)
      : in_(in),
        random_(seed),
        horizon_s_(run_horizon_s(in)),
        active_nodes_(in.nodes),
        free_spares_(in.spare_nodes),
        stragglers_(sim::mix64(seed ^ 0x5374726167676c65ULL), in.straggler_duration_s),
        degraded_links_(sim::mix64(seed ^ 0x4c696e6b52657274ULL), in.link_repair_s) {
    next_checkpoint_ = in_.interval_work_s;
    update_rate();
    next_arrival_ = random_.exponential(arrival_rate_);
    set_give_up_bounds();
  }

  RunOutcome run();

 private:
  // --- the job's rate and the arrival rate, both functions of the current state ---------------
  void update_rate();
  double usable_fraction() const;
  // The arrival rate of one failure kind now; summed in kind order everywhere, so that a draw
  // below the total always lands on a kind.
  double kind_rate(std::size_t k) const;

  // --- progress between events ----------------------------------------------------------------
  // Advances a running job to `target`; returns true (and sets t_ to the moment) if it finishes.
  bool advance(double target);
  void compute(double dt);  // dt of compute at the current rate
  void account_slowdowns(double dt);
  void trigger_checkpoint();
  void jump_cycles(double target);
  void commit_until(double time);

  // --- giving up a run that cannot finish (RunEnd) ---------------------------------------------
  void set_give_up_bounds();
  bool cannot_finish_by_failures() const;
  bool cannot_finish_by_nodes() const;

  // --- events ---------------------------------------------------------------------------------
  void on_arrival();
  void interrupt(FailureKind kind);
  void on_repair();
  void on_slowdown_change(SlowPeriods& periods, std::int64_t& arrivals);
  void begin_restart_if_ready();

  const RunInputs& in_;
  Random random_;
  RunOutcome out_{};
  double t_ = 0.0;
  double horizon_s_;
  RunEnd give_up_ = RunEnd::finished;  // set by an event that shows the run cannot finish
  double runnable_s_ = 0.0;             // wall time not spent waiting for nodes
  double lowest_running_rate_ = 0.0;    // interruptions per second, the fewest nodes a job runs on
  double shortest_restart_s_ = 0.0;

  // Job progress.
  bool running_ = true;
  double work_ = 0.0;
  double committed_ = 0.0;
  double next_checkpoint_ = 0.0;
  double blocked_until_ = 0.0;
  // Checkpoints taken but not committed, oldest first: (work saved, commit time). Back-pressure
  // keeps at most two (the previous one still committing, and the one waiting for it).
  std::array<std::pair<double, double>, 2> pending_{};
  std::size_t pending_count_ = 0;

  // Restart.
  double restart_end_ = infinity;
  double restart_duration_ = 0.0;
  double restart_load_ = 0.0;
  bool waiting_for_nodes_ = false;
  LossCause down_cause_ = LossCause::checkpoint;

  // Nodes.
  std::int64_t active_nodes_;
  std::int64_t free_spares_;
  std::int64_t missing_nodes_ = 0;
  MinHeap repairs_;

  // Slowdowns.
  // Stragglers and routed-around link failures come as busy periods (busy_period.hpp), each from
  // random numbers of its own so that they do not shift the failure times: while one lasts, the
  // job runs slowed.
  SlowPeriods stragglers_;
  SlowPeriods degraded_links_;
  double rate_ = 1.0;
  std::array<double, 4> log_factors_{};  // -ln factor: thermal, straggler, link, shrink
  double log_factor_sum_ = 0.0;

  // Poisson arrivals.
  double arrival_rate_ = 0.0;
  double next_arrival_ = infinity;
  // While the arrival rate is 0 (every node out), the unit-rate time left to the next arrival: it
  // resumes when nodes come back.
  double paused_gap_ = infinity;
};

double Run::usable_fraction() const {
  const auto gpus_per_replica = static_cast<double>(in_.gpus) / static_cast<double>(in_.replicas);
  const double usable = std::floor(static_cast<double>(active_nodes_ * in_.gpus_per_node) / gpus_per_replica);
  return std::min(1.0, usable / static_cast<double>(in_.replicas));
}

double Run::kind_rate(std::size_t k) const {
  const auto kind = static_cast<FailureKind>(k);
  if (kind == FailureKind::rack) {
    return in_.rack_rate_s * static_cast<double>((active_nodes_ + in_.nodes_per_rack - 1) / in_.nodes_per_rack);
  }
  if (kind == FailureKind::planned) return in_.planned_rate_s;
  // Link failures that are routed around are a stream of their own (degraded_links_).
  const double share = kind == FailureKind::link ? 1.0 - in_.link_reroute_fraction : 1.0;
  return in_.per_node_rate_s[k] * share * static_cast<double>(active_nodes_);
}

void Run::update_rate() {
  const double factors[4] = {in_.thermal_factor, stragglers_.active() ? in_.straggler_factor : 1.0,
                             degraded_links_.active() ? in_.degraded_link_factor : 1.0, usable_fraction()};
  rate_ = 1.0;
  log_factor_sum_ = 0.0;
  for (std::size_t i = 0; i < 4; ++i) {
    rate_ *= factors[i];
    // A factor of 1 (no slowdown, the common case) needs no logarithm: -ln 1 is 0.
    log_factors_[i] = factors[i] > 0 && factors[i] != 1.0 ? -std::log(factors[i]) : 0.0;
    log_factor_sum_ += log_factors_[i];
  }

  double rate = 0.0;
  for (std::size_t k = 0; k < failure_kind_count; ++k) rate += kind_rate(k);
  const auto nodes = static_cast<double>(active_nodes_);
  stragglers_.set_rate(t_, in_.straggler_rate_s * nodes);
  degraded_links_.set_rate(t_, in_.per_node_rate_s[index(FailureKind::link)] * in_.link_reroute_fraction * nodes);
  // Memoryless arrivals: when the rate changes, the time left to the next arrival scales by
  // old / new rate. That keeps the draws of every run in the same order whatever happens between.
  if (rate != arrival_rate_ && std::isfinite(next_arrival_) && arrival_rate_ > 0) {
    if (rate > 0) {
      next_arrival_ = t_ + (next_arrival_ - t_) * arrival_rate_ / rate;
    } else {
      paused_gap_ = (next_arrival_ - t_) * arrival_rate_;
      next_arrival_ = infinity;
    }
  } else if (arrival_rate_ == 0 && rate > 0 && std::isfinite(paused_gap_)) {
    next_arrival_ = t_ + paused_gap_ / rate;
    paused_gap_ = infinity;
  }
  arrival_rate_ = rate;
}

void Run::on_slowdown_change(SlowPeriods& periods, std::int64_t& arrivals) {
  arrivals += periods.change(t_);
  update_rate();
}

void Run::compute(double dt) {
  work_ += rate_ * dt;
  account_slowdowns(dt);
  t_ += dt;
}

void Run::account_slowdowns(double dt) {
  if (rate_ < 1.0 && log_factor_sum_ > 0) {
    // Split what the slowdowns cost in proportion to their share of the log rate.
    const double lost = (1.0 - rate_) * dt;
    constexpr LossCause causes[4] = {LossCause::thermal, LossCause::straggler, LossCause::degraded_link,
                                     LossCause::shrink};
    for (std::size_t i = 0; i < 4; ++i) out_.lost_s[index(causes[i])] += lost * log_factors_[i] / log_factor_sum_;
  }
}

void Run::commit_until(double time) {
  while (pending_count_ > 0 && pending_[0].second <= time) {
    committed_ = pending_[0].first;
    pending_[0] = pending_[1];
    --pending_count_;
  }
}

void Run::trigger_checkpoint() {
  commit_until(t_);
  // Back-pressure: the snapshot may not overwrite a checkpoint that is still being written.
  const double start = pending_count_ > 0 ? std::max(t_, pending_[pending_count_ - 1].second) : t_;
  blocked_until_ = start + in_.stall_s;
  pending_[pending_count_++] = {work_, blocked_until_ + in_.commit_after_stall_s};
  next_checkpoint_ = work_ + in_.interval_work_s;
  ++out_.checkpoints;
}

void Run::jump_cycles(double target) {
  // At the end of a stall, with only the just-taken checkpoint pending: every further cycle at
  // this rate lasts `period` and ends the same way.
  commit_until(t_);
  if (pending_count_ != 1 || t_ != blocked_until_) return;
  const double compute_wall = in_.interval_work_s / rate_;
  const double period = in_.stall_s + std::max(compute_wall, in_.commit_after_stall_s);
  if (!(period > 0)) return;
  const double by_time = std::floor((target - t_) / period);
  // Cycle k triggers at work_ + k interval; it must stay short of the end, which advance() handles.
  const double by_work = std::ceil((in_.work_s - work_) / in_.interval_work_s) - 1.0;
  const double cycles = std::min(by_time, by_work);
  if (!(cycles >= 1)) return;
  const double previous_work = work_ + (cycles - 1.0) * in_.interval_work_s;
  work_ += cycles * in_.interval_work_s;
  // What the skipped cycles lost: stalls and waits, and the slowdowns during their compute.
  out_.lost_s[index(LossCause::checkpoint)] += cycles * (period - compute_wall);
  account_slowdowns(cycles * compute_wall);
  t_ += cycles * period;
  blocked_until_ = t_;
  committed_ = previous_work;
  pending_[0] = {work_, t_ + in_.commit_after_stall_s};
  next_checkpoint_ = work_ + in_.interval_work_s;
  out_.checkpoints += static_cast<std::int64_t>(cycles);
}

bool Run::advance(double target) {
  while (t_ < target) {
    if (blocked_until_ > t_) {
      const double end = std::min(blocked_until_, target);
      out_.lost_s[index(LossCause::checkpoint)] += end - t_;
      t_ = end;
      if (t_ == blocked_until_) jump_cycles(target);
      continue;
    }
    const double to_end = (in_.work_s - work_) / rate_;
    if (in_.work_s <= next_checkpoint_) {
      if (t_ + to_end <= target) {
        compute(to_end);
        work_ = in_.work_s;
        return true;
      }
      compute(target - t_);
      return false;
    }
    const double to_checkpoint = (next_checkpoint_ - work_) / rate_;
    if (t_ + to_checkpoint > target) {
      compute(target - t_);
      return false;
    }
    compute(to_checkpoint);
    work_ = next_checkpoint_;
    trigger_checkpoint();
    if (blocked_until_ == t_) jump_cycles(target);  // a checkpoint without a stall
  }
  return false;
}

void Run::interrupt(FailureKind kind) {
  ++out_.interruptions[index(kind)];
  const bool planned = kind == FailureKind::planned;
  if (running_) {
    commit_until(t_);
    if (planned) {
      // Maintenance is announced: the job checkpoints, waits for the commit, then stops.
      out_.lost_s[index(LossCause::checkpoint)] += in_.stall_s + in_.commit_after_stall_s;
      committed_ = work_;
    } else {
      out_.lost_s[index(kind)] += work_ - committed_;
    }
    work_ = committed_;
    pending_count_ = 0;
    blocked_until_ = t_;
    next_checkpoint_ = committed_ + in_.interval_work_s;
    running_ = false;
    restart_load_ = 0.0;
  }
  down_cause_ = static_cast<LossCause>(kind);

  if (loses_nodes(kind)) {
    const std::int64_t lost = kind == FailureKind::rack ? std::min(in_.nodes_per_rack, active_nodes_) : 1;
    for (std::int64_t i = 0; i < lost; ++i) repairs_.push(t_ + in_.repair_s);
    active_nodes_ -= lost;
    missing_nodes_ += lost;
  }
  // Free spares (and, for a shrunk job, repaired nodes) join at every restart.
  const std::int64_t taken = std::min(free_spares_, missing_nodes_);
  free_spares_ -= taken;
  missing_nodes_ -= taken;
  active_nodes_ += taken;
  const double load = loses_nodes(kind) ? in_.load_after_node_loss_s : in_.load_s;
  restart_load_ = std::max(restart_load_, load);
  const double fixed = planned ? in_.restart_fixed_s - in_.detect_s : in_.restart_fixed_s;
  restart_duration_ = fixed + restart_load_;
  begin_restart_if_ready();
  update_rate();
  if (cannot_finish_by_failures()) give_up_ = RunEnd::too_many_failures;
}

void Run::begin_restart_if_ready() {
  const bool can_shrink = in_.no_spare == NoSparePolicy::shrink && usable_fraction() > 0;
  waiting_for_nodes_ = missing_nodes_ > 0 && !can_shrink;
  restart_end_ = waiting_for_nodes_ ? infinity : t_ + restart_duration_;
}

void Run::on_repair() {
  repairs_.pop();
  if (!running_ && missing_nodes_ > 0) {
    --missing_nodes_;
    ++active_nodes_;
    if (waiting_for_nodes_) {
      begin_restart_if_ready();
    }
    // A shrunk job restarting anyway takes the node along; its restart is not prolonged.
  } else {
    ++free_spares_;
  }
  update_rate();
}

void Run::on_arrival() {
  // Always three draws per arrival, so that the sequence does not depend on the job's state.
  const double pick = random_.uniform_open0() * arrival_rate_;
  // A draw no choice uses any more: it keeps every failure time where the three-draw sequence
  // puts it, so results saved from runs without stragglers or rerouted links still reproduce.
  random_.uniform_open0();
  const double gap = random_.exponential(1.0);

  double cumulative = 0.0;
  bool handled = false;
  for (std::size_t k = 0; k < failure_kind_count && !handled; ++k) {
    const double rate = kind_rate(k);
    cumulative += rate;
    if (rate == 0 || pick > cumulative) continue;
    const auto kind = static_cast<FailureKind>(k);
    handled = true;
    if (kind == FailureKind::planned && !running_) {
      // Maintenance waits for a job that is down anyway: nothing happens.
    } else {
      interrupt(kind);
    }
  }
  update_rate();
  if (arrival_rate_ > 0) {
    next_arrival_ = t_ + gap / arrival_rate_;
  } else {
    next_arrival_ = infinity;
    paused_gap_ = gap;
  }
}

void Run::set_give_up_bounds() {
  // Interruptions per node, racks spread over their nodes (a lower bound: racks round up).
  double per_node = in_.rack_rate_s / static_cast<double>(in_.nodes_per_rack);
  for (std::size_t k = 0; k < failure_kind_count; ++k) {
    const auto kind = static_cast<FailureKind>(k);
    if (kind == FailureKind::rack || kind == FailureKind::planned) continue;
    per_node += in_.per_node_rate_s[k] * (kind == FailureKind::link ? 1.0 - in_.link_reroute_fraction : 1.0);
  }
  // A waiting job runs only with every node; a shrinking one with as few as one replica's.
  const double replica_nodes =
      std::ceil(static_cast<double>(in_.gpus) / static_cast<double>(in_.replicas) / static_cast<double>(in_.gpus_per_node));
  const double fewest = in_.no_spare == NoSparePolicy::shrink ? std::min(replica_nodes, static_cast<double>(in_.nodes))
                                                              : static_cast<double>(in_.nodes);
  lowest_running_rate_ = fewest * per_node + in_.planned_rate_s;
  shortest_restart_s_ = std::max(0.0, in_.restart_fixed_s - in_.detect_s) + std::min(in_.load_s, in_.load_after_node_loss_s);
}

bool Run::cannot_finish_by_failures() const {
  const double remaining = in_.work_s - committed_;
  const double whole = std::floor(remaining / in_.interval_work_s);
  const double rest = remaining - whole * in_.interval_work_s;
  const double rate = lowest_running_rate_, restart = shortest_restart_s_;
  double total = rest > 0 ? expected_commit_s(rate, restart, rest, 0.0) : 0.0;
  if (whole > 0) total += whole * expected_commit_s(rate, restart, in_.interval_work_s, in_.stall_s);
  if (!(t_ + total > horizon_s_)) return false;
  return t_ + chernoff_fraction(whole + (rest > 0 ? 1.0 : 0.0)) * total > horizon_s_;
}

bool Run::cannot_finish_by_nodes() const {
  // Over at least a tenth of the horizon and ten repair times, so that one long wait for a repair
  // early in a run is not taken for a job that is always short of nodes.
  if (t_ < std::max(0.1 * horizon_s_, 10.0 * in_.repair_s)) return false;
  const double share = runnable_s_ / t_;
  return 10.0 * share * (horizon_s_ - t_) < in_.work_s - committed_;
}

RunOutcome Run::run() {
  std::int64_t events = 0;
  for (;;) {
    const double repair = repairs_.empty() ? infinity : repairs_.top();
    const double straggler_change = stragglers_.next_change();
    const double link_change = degraded_links_.next_change();
    const double restart = running_ ? infinity : restart_end_;
    const double next = std::min({next_arrival_, repair, straggler_change, link_change, restart, horizon_s_});

    const double before = t_;
    const bool waiting = !running_ && waiting_for_nodes_;
    if (running_) {
      if (advance(next)) break;
    } else {
      const LossCause cause = waiting ? LossCause::spare_wait : down_cause_;
      out_.lost_s[index(cause)] += next - t_;
      t_ = next;
    }
    if (!waiting) runnable_s_ += t_ - before;
    if (t_ >= horizon_s_) {
      out_.end = RunEnd::past_horizon;
      break;
    }
    if (++events > run_event_budget) {
      out_.end = RunEnd::event_budget;
      break;
    }
    // One event per iteration, in a fixed order when several fall on the same instant.
    if (next == restart) {
      running_ = true;
      blocked_until_ = t_;
      restart_end_ = infinity;
      update_rate();
    } else if (next == repair) {
      on_repair();
    } else if (next == straggler_change) {
      on_slowdown_change(stragglers_, out_.stragglers);
    } else if (next == link_change) {
      on_slowdown_change(degraded_links_, out_.degraded_links);
    } else {
      on_arrival();
    }
    if (give_up_ != RunEnd::finished) {
      out_.end = give_up_;
      break;
    }
    if (cannot_finish_by_nodes()) {
      out_.end = RunEnd::too_few_nodes;
      break;
    }
  }
  out_.wall_s = t_;
  out_.work_done_s = out_.finished() ? in_.work_s : work_;
  return out_;
}

}  // namespace

std::string_view loss_cause_name(std::size_t cause) {
  if (cause < failure_kind_count) return to_string(static_cast<FailureKind>(cause));
  switch (static_cast<LossCause>(cause)) {
    case LossCause::checkpoint: return "checkpoint";
    case LossCause::spare_wait: return "spare_wait";
    case LossCause::straggler: return "straggler";
    case LossCause::degraded_link: return "degraded_link";
    case LossCause::thermal: return "thermal";
    case LossCause::shrink: return "shrink";
  }
  return "?";
}

std::string_view to_string(RunEnd end) {
  switch (end) {
    case RunEnd::finished: return "finished";
    case RunEnd::past_horizon: return "past_horizon";
    case RunEnd::too_many_failures: return "too_many_failures";
    case RunEnd::too_few_nodes: return "too_few_nodes";
    case RunEnd::event_budget: return "event_budget";
  }
  return "?";
}

double run_horizon_s(const RunInputs& in) { return run_horizon_factor * in.work_s; }

std::int64_t RunOutcome::total_interruptions() const {
  return std::accumulate(interruptions.begin(), interruptions.end(), std::int64_t{0});
}

RunOutcome simulate_run(const RunInputs& in, std::uint64_t seed) { return Run(in, seed).run(); }

}  // namespace clustersim::models
