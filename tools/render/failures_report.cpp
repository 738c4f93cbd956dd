#include "tools/render/failures_report.hpp"

#include <cmath>

#include <fmt/format.h>

#include "tools/render/charts/failures_charts.hpp"
#include "tools/render/html_report.hpp"

namespace clustersim::tools {
namespace {

using nlohmann::ordered_json;

constexpr double day = 86400.0;

double gpu_hours(const FailuresStudy& study, double seconds) {
  return seconds * static_cast<double>(study.run.inputs.gpus) / 3600.0;
}

// JSON has no infinity: a formula that does not apply is null.
ordered_json number_or_null(double value) { return std::isfinite(value) ? ordered_json(value) : ordered_json(); }

ordered_json statistics_json(const FailuresStudy& study, const models::RunStatistics& s) {
  ordered_json interruptions = ordered_json::object();
  for (std::size_t k = 0; k < models::failure_kind_count; ++k) {
    interruptions[std::string(models::to_string(static_cast<models::FailureKind>(k)))] = s.mean_interruptions[k];
  }
  ordered_json lost = ordered_json::object();
  for (std::size_t c = 0; c < models::loss_cause_count; ++c) {
    lost[std::string(models::loss_cause_name(c))] = gpu_hours(study, s.mean_lost_s[c]);
  }
  ordered_json ends = ordered_json::object();
  for (std::size_t e = 1; e < models::run_end_count; ++e) {
    ends[std::string(models::to_string(static_cast<models::RunEnd>(e)))] = s.runs_by_end[e];
  }
  // A run that does not finish has no time-to-train: statistics over it are null.
  const bool all_finished = s.unfinished == 0;
  return {{"runs", s.runs},
          {"unfinished_runs", s.unfinished},
          {"unfinished_by_reason", ends},
          {"horizon_days", s.horizon_s / day},
          {"goodput", s.mean_goodput},
          {"time_to_train_days", {{"mean", all_finished ? ordered_json(s.mean_wall_s / day) : ordered_json()},
                                  {"p50", number_or_null(s.p50_wall_s / day)},
                                  {"p90", number_or_null(s.p90_wall_s / day)},
                                  {"stddev", all_finished ? ordered_json(s.stddev_wall_s / day) : ordered_json()}}},
          {"interruptions_per_run", {{"mean", s.mean_total_interruptions},
                                     {"p10", s.p10_interruptions},
                                     {"p90", s.p90_interruptions},
                                     {"by_cause", interruptions}}},
          {"degraded_links_per_run", s.mean_degraded_links},
          {"stragglers_per_run", s.mean_stragglers},
          {"checkpoints_per_run", s.mean_checkpoints},
          {"lost_gpu_hours_per_run", lost}};
}

// "12.34 d", or "-" for a percentile that falls on runs that do not finish.
std::string days_or_dash(double seconds) {
  return std::isfinite(seconds) ? fmt::format("{:.2f} d", seconds / day) : std::string("-");
}

// Why runs did not finish, the non-zero reasons only.
std::string unfinished_reasons(const models::RunStatistics& s) {
  std::string text;
  const auto add = [&](models::RunEnd end, const std::string& what) {
    const std::int64_t count = s.runs_by_end[static_cast<std::size_t>(end)];
    if (count > 0) text += fmt::format("{}{} {}", text.empty() ? "" : "; ", count, what);
  };
  add(models::RunEnd::past_horizon, "ran past it");
  add(models::RunEnd::too_many_failures,
      "were given up at an interruption: at their failure rate the rest cannot finish in it (P < 1e-9)");
  add(models::RunEnd::too_few_nodes, "were given up waiting for nodes: too few spares for the repairs to keep up");
  add(models::RunEnd::event_budget, fmt::format("were stopped after {} events", models::run_event_budget));
  return text;
}

std::string minutes(double seconds) { return fmt::format("{:.1f} min", seconds / 60.0); }

std::string duration(double seconds) {
  if (seconds < 120.0) return fmt::format("{:.1f} s", seconds);
  if (seconds < 2.0 * 3600.0) return minutes(seconds);
  if (seconds < 2.0 * day) return fmt::format("{:.1f} h", seconds / 3600.0);
  return fmt::format("{:.1f} d", seconds / day);
}

}  // namespace

ordered_json failures_report_json(const scenarios::Scenario& scenario, const FailuresStudy& study) {
  const auto& in = study.run.inputs;
  const auto& ck = study.run.checkpoint;
  const auto& sweep = study.sweep;
  ordered_json sweep_points = ordered_json::array();
  for (const auto& p : sweep.points) {
    sweep_points.push_back({{"interval_minutes", p.interval_s / 60.0},
                            {"goodput", p.mean_goodput},
                            {"time_to_train_days", p.unfinished == 0 ? ordered_json(p.mean_wall_s / day) : ordered_json()},
                            {"unfinished_runs", p.unfinished}});
  }
  ordered_json storage = ordered_json::array();
  for (const auto& option : study.storage) {
    storage.push_back({{"target", option.target},
                       {"interval_minutes", option.interval_s / 60.0},
                       {"stall_s", option.stall_s},
                       {"commit_after_stall_s", option.commit_after_stall_s},
                       {"restart_after_node_loss_s", option.restart_s},
                       {"goodput", option.stats.mean_goodput},
                       {"time_to_train_days",
                        option.stats.unfinished == 0 ? ordered_json(option.stats.mean_wall_s / day) : ordered_json()},
                       {"unfinished_runs", option.stats.unfinished},
                       {"lost_gpu_hours_checkpoint",
                        gpu_hours(study, option.stats.mean_lost_s[static_cast<std::size_t>(models::LossCause::checkpoint)])}});
  }
  return {
      {"scenario", scenario.name},
      {"runs", study.runs},
      {"seed", study.seed},
      {"run", {{"steps", study.run.steps},
               {"step_time_s", study.run.setup.step_time_s},
               {"degraded_step_time_s", study.run.setup.degraded_step_time_s},
               {"failure_free_days", in.work_s / day},
               {"gpus", in.gpus},
               {"nodes", in.nodes},
               {"spare_nodes", in.spare_nodes},
               {"mtti_hours", sweep.mtti_s / 3600.0}}},
      {"checkpoint", {{"bytes", ck.bytes},
                      {"interval_minutes", in.interval_work_s / 60.0},
                      {"writer_nodes", ck.writer_nodes},
                      {"stall_s", ck.stall_s},
                      {"primary_write_s", ck.primary_write_s},
                      {"secondary_write_s", ck.secondary_write_s},
                      {"commit_after_stall_s", ck.commit_after_stall_s},
                      {"load_s", ck.load_s},
                      {"load_after_node_loss_s", ck.load_after_node_loss_s},
                      {"restart_fixed_s", ck.restart_fixed_s}}},
      {"result", statistics_json(study, study.stats)},
      {"interval", {{"delta_s", sweep.delta_s},
                    {"mtti_hours", sweep.mtti_s / 3600.0},
                    {"restart_s", sweep.restart_s},
                    {"young_minutes", number_or_null(sweep.young_s / 60.0)},
                    {"daly_minutes", number_or_null(sweep.daly_s / 60.0)},
                    {"best_simulated_minutes", sweep.best_interval_s / 60.0},
                    {"best_at_grid_edge", sweep.best_at_grid_edge},
                    {"best_goodput", sweep.best_goodput},
                    {"sweep", sweep_points}}},
      {"storage", storage},
  };
}

std::string failures_report_text(const scenarios::Scenario& scenario, const FailuresStudy& study) {
  const auto& in = study.run.inputs;
  const auto& ck = study.run.checkpoint;
  const auto& s = study.stats;
  const auto& sweep = study.sweep;
  std::string text = fmt::format("failures: {} ({} runs, seed {})\n\n", scenario.name, study.runs, study.seed);
  text += fmt::format("Run          {} steps x {:.3f} s = {:.1f} days failure-free on {} GPUs ({} nodes, {} spare)\n",
                      study.run.steps, study.run.setup.step_time_s, in.work_s / day, in.gpus, in.nodes, in.spare_nodes);
  text += std::isfinite(sweep.mtti_s)
              ? fmt::format("Failures     job MTTI {} ({:.2f} interruptions a day)\n",
                            sweep.mtti_s < 360.0 ? minutes(sweep.mtti_s) : fmt::format("{:.1f} h", sweep.mtti_s / 3600.0),
                            day / sweep.mtti_s)
              : std::string("Failures     none that interrupt the job\n");
  const auto& spec = scenario.checkpoint;
  std::string target(models::to_string(spec.target));
  if (spec.second_target != models::SecondTarget::none) {
    target += "+" + std::string(models::to_string(models::second_kind(spec.second_target)));
  }
  text += fmt::format("Checkpoint   {:.3g} TB every {} to {}, {}: stall {} each, committed {} later\n",
                      ck.bytes / 1e12, minutes(in.interval_work_s), target,
                      spec.mode == models::CheckpointMode::sync ? "sync" : "async", duration(ck.stall_s),
                      duration(ck.commit_after_stall_s));
  text += fmt::format("Restart      {} (detect, reschedule, warm-up) + load {} ({} after a node loss)\n\n",
                      duration(ck.restart_fixed_s), duration(ck.load_s), duration(ck.load_after_node_loss_s));

  text += fmt::format("Goodput      {:.3f}\n", s.mean_goodput);
  if (s.unfinished == 0) {
    text += fmt::format("Time-to-train  mean {:.2f} d   P50 {:.2f} d   P90 {:.2f} d   (failure-free {:.2f} d)\n",
                        s.mean_wall_s / day, s.p50_wall_s / day, s.p90_wall_s / day, in.work_s / day);
  } else {
    text += fmt::format("Time-to-train  mean > {:.2f} d   P50 {}   P90 {}   (failure-free {:.2f} d)\n", s.mean_wall_s / day,
                        days_or_dash(s.p50_wall_s), days_or_dash(s.p90_wall_s), in.work_s / day);
    text += fmt::format("WARNING: {} of {} runs do not finish within the horizon of {:.0f}x the failure-free time "
                        "({:.1f} d): {}\n",
                        s.unfinished, s.runs, models::run_horizon_factor, s.horizon_s / day, unfinished_reasons(s));
  }
  text += fmt::format("Interruptions {:.1f} a run (P10 {:.0f}, P90 {:.0f}); {:.1f} links routed around, {:.1f} stragglers\n\n",
                      s.mean_total_interruptions, s.p10_interruptions, s.p90_interruptions, s.mean_degraded_links,
                      s.mean_stragglers);

  text += fmt::format("{:<14} {:>14} {:>18} {:>7}\n", "cause", "interruptions", "lost GPU-hours", "share");
  double total_lost = 0.0;
  for (const double lost : s.mean_lost_s) total_lost += lost;
  for (std::size_t c = 0; c < models::loss_cause_count; ++c) {
    const bool is_failure = c < models::failure_kind_count;
    const double count = is_failure ? s.mean_interruptions[c] : 0.0;
    if (count == 0 && s.mean_lost_s[c] == 0) continue;
    text += fmt::format("{:<14} {:>14} {:>18.0f} {:>6.1f}%\n", models::loss_cause_name(c),
                        is_failure ? fmt::format("{:.2f}", count) : std::string("-"), gpu_hours(study, s.mean_lost_s[c]),
                        total_lost > 0 ? 100.0 * s.mean_lost_s[c] / total_lost : 0.0);
  }
  text += fmt::format("{:<14} {:>14.2f} {:>18.0f}\n\n", "total", s.mean_total_interruptions,
                      gpu_hours(study, total_lost));

  text += fmt::format("Checkpoint interval (delta = stall {}, M = {}, R = {})\n", duration(sweep.delta_s),
                      !std::isfinite(sweep.mtti_s) ? std::string("-")
                      : sweep.mtti_s < 360.0       ? minutes(sweep.mtti_s)
                                                   : fmt::format("{:.1f} h", sweep.mtti_s / 3600.0),
                      duration(sweep.restart_s));
  text += fmt::format("  Young {}   Daly {}   best simulated {}{} (goodput {:.4f})\n",
                      std::isfinite(sweep.young_s) ? minutes(sweep.young_s) : "-",
                      std::isfinite(sweep.daly_s) ? minutes(sweep.daly_s) : "-", minutes(sweep.best_interval_s),
                      sweep.best_at_grid_edge ? " (at the edge of the grid)" : "", sweep.best_goodput);
  if (ck.commit_after_stall_s > 0) {
    text += fmt::format("  (the formulas leave out the {} from stall to commit, which the simulation keeps)\n",
                        duration(ck.commit_after_stall_s));
  }
  text += fmt::format("  {:>12} {:>9} {:>16}\n", "interval", "goodput", "time-to-train");
  for (const auto& p : sweep.points) {
    text += p.unfinished == 0
                ? fmt::format("  {:>12} {:>9.4f} {:>14.2f} d\n", minutes(p.interval_s), p.mean_goodput, p.mean_wall_s / day)
                : fmt::format("  {:>12} {:>9.4f} {:>16} ({} runs do not finish)\n", minutes(p.interval_s), p.mean_goodput,
                              "-", p.unfinished);
  }

  if (!study.storage.empty()) {
    text += "\nStorage and interval\n";
    text += fmt::format("  {:<16} {:>9} {:>12} {:>14} {:>12} {:>9} {:>15}\n", "target", "interval", "stall/ckpt",
                        "commit after", "restart", "goodput", "time-to-train");
    for (const auto& o : study.storage) {
      text += fmt::format("  {:<16} {:>9} {:>12} {:>14} {:>12} {:>9.4f} {:>15}\n", o.target,
                          fmt::format("{:.0f} min", o.interval_s / 60.0), duration(o.stall_s),
                          duration(o.commit_after_stall_s), duration(o.restart_s), o.stats.mean_goodput,
                          o.stats.unfinished == 0 ? fmt::format("{:.2f} d", o.stats.mean_wall_s / day) : std::string("-"));
    }
  }
  return text;
}

std::string failures_report_html(const scenarios::Scenario& scenario, const FailuresStudy& study,
                                 const std::vector<double>& wall_s) {
  HtmlPage page("clustersim failures: " + scenario.name);
  page.paragraph(fmt::format("{} runs of the whole training run on {} GPUs, seed {}: goodput {:.3f}, time to train "
                             "{:.2f} days on average",
                             study.runs, study.run.inputs.gpus, study.seed, study.stats.mean_goodput,
                             study.stats.mean_wall_s / day));
  page.heading("Goodput against the checkpoint interval");
  page.raw(charts::goodput_interval_svg(study.sweep));
  page.heading("Lost GPU-hours by cause");
  page.raw(charts::lost_gpu_hours_svg(study.stats, static_cast<double>(study.run.inputs.gpus)));
  page.heading("Time to train over the runs");
  page.raw(charts::time_to_train_svg(wall_s, study.stats));
  page.heading("Report");
  page.preformatted(failures_report_text(scenario, study));
  return page.render();
}

}  // namespace clustersim::tools
