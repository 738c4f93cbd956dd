#include "tools/render/sweep_table.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "planning/validation/validation_report.hpp"
#include "tools/render/band_text.hpp"

namespace clustersim::tools {
namespace {

using planning::RowStatus;
using planning::SweepHeader;
using planning::SweepRow;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

template <class E, std::size_t N>
E parse_name(const std::string& text, const std::array<E, N>& values, std::string_view (*name)(E)) {
  for (const E v : values) {
    if (name(v) == text) return v;
  }
  throw std::runtime_error("unknown value \"" + text + "\"");
}

std::size_t shown(const std::vector<planning::SweepRow>& rows, const TableOptions& options) {
  return options.top == 0 ? rows.size() : std::min(options.top, rows.size());
}

// The flow step against the analytic one, for a row the flow check re-simulated; '-' otherwise.
std::string flow_text(const planning::SweepRow& row) {
  return row.analytic_step_s > 0 ? flow_change(row.step_time_s, row.analytic_step_s) : "-";
}

}  // namespace

std::string sweep_text(const planning::SweepHeader& header, const std::vector<planning::SweepRow>& rows, const TableOptions& options) {
  const planning::SweepCounts c = planning::count_rows(rows);
  std::string out = fmt::format("{}: {} on {}\n", header.scenario, header.model, header.cluster);
  if (header.mode == "search") {
    out += fmt::format("search: {} valid layouts; {} cannot fit in memory (set apart before simulating); ",
                       rows.size(), c.too_large);
    const std::size_t fitting = c.fit + c.simulated_too_large;
    if (c.pruned == 0) {
      out += fmt::format("{} simulated\n", fitting);
    } else {
      out += fmt::format("{} fit: {} simulated, {} set apart by a lower bound on their step time that cannot "
                         "reach the rows shown\n",
                         fitting, fitting - c.pruned, c.pruned);
    }
  } else {
    out += fmt::format("{} configs: {} fit in memory, {} do not, {} invalid\n", rows.size(), c.fit,
                       c.simulated_too_large + c.too_large, c.invalid);
  }
  out += band_rule(header.band_source, header.widening);
  if (header.flow_check > 0) {
    out += fmt::format("\nflow check: the first {} rows of the analytic ranking were re-simulated under the flow "
                       "fidelity on the scenario's network, where collectives share the links of real routes, and "
                       "ranked among themselves by it ({} flow runs); 'flow' is their flow step against the analytic "
                       "one; the rows below keep their analytic step and rank\n",
                       header.flow_check, header.flow_runs);
  }
  const std::size_t n = shown(rows, options);
  if (n < rows.size()) out += fmt::format("top {} by the slow end of the step time's band:\n", n);
  out += '\n';
  const bool named = header.mode != "search";
  // Ties are marked among named layouts: a search's neighbours differ by a knob and tie by the dozen.
  const std::vector<std::vector<std::size_t>> ties = named ? planning::band_ties(rows, n) : std::vector<std::vector<std::size_t>>();
  std::size_t name_width = 4, ties_width = 4;
  for (std::size_t i = 0; i < n && named; ++i) {
    name_width = std::max(name_width, rows[i].name.size());
    ties_width = std::max(ties_width, rank_list(ties[i]).size());
  }
  if (named) out += fmt::format("{:>4}  {:<{}}  ", "rank", "name", name_width);
  else out += fmt::format("{:>4}  ", "rank");
  // Mixture-of-experts layouts add their expert-parallel degree after CP, and their expert
  // tensor-parallel degree after it where any row splits its experts.
  bool ep_column = false, etp_column = false;
  for (std::size_t i = 0; i < n; ++i) {
    ep_column = ep_column || rows[i].layout.parallelism.ep > 1;
    etp_column = etp_column || rows[i].layout.parallelism.etp > 1;
  }
  const bool flow_column = header.flow_check > 0;
  const auto flow_cell = [&](const std::string& text) { return flow_column ? fmt::format("{:>7} ", text) : std::string(); };
  out += fmt::format("{:>3} {:>3} {:>4} {:>3} {}{:>3} {:>3} {:>3} {:>4} {:<9}  {:>8} {}{:>15} {:>9} {:>6} {:>7} {:>8} {:>8}  ",
                     "TP", "PP", "DP", "CP",
                     (ep_column ? fmt::format("{:>3} ", "EP") : std::string()) +
                         (etp_column ? fmt::format("{:>3} ", "ETP") : std::string()),
                     "vp", "mb", "SP",
                     "ZeRO", "recompute", "step s", flow_cell("flow"),
                     "band s ", "tok/s/GPU", "MFU", "bubble", "exp.comm", "mem GiB");
  if (named) out += fmt::format("{:<{}}  ", "ties", ties_width);
  out += "fits\n";
  std::vector<const planning::StepBand*> bands;
  for (std::size_t i = 0; i < n; ++i) {
    const planning::SweepRow& row = rows[i];
    const auto& p = row.layout.parallelism;
    if (named) out += fmt::format("{:>4}  {:<{}}  ", i + 1, row.name, name_width);
    else out += fmt::format("{:>4}  ", i + 1);
    out += fmt::format("{:>3} {:>3} {:>4} {:>3} {}{:>3} {:>3} {:>3} {:>4} {:<9}  ", p.tp, p.pp, p.dp, p.cp,
                       (ep_column ? fmt::format("{:>3} ", p.ep) : std::string()) +
                           (etp_column ? fmt::format("{:>3} ", p.etp) : std::string()),
                       p.vp, row.layout.training.micro_batch,
                       p.sp ? "yes" : "no", p.zero, models::recompute_name(row.layout.training.recompute));
    if (row.status == planning::RowStatus::simulated) {
      bands.push_back(&row.band);
      out += fmt::format("{:>8.3f} {}{:>15} {:>9.0f} {:>5.1f}% {:>6.1f}% {:>7.1f}% {:>8.1f}  ", row.step_time_s,
                         flow_cell(flow_text(row)), band_range(row.band, 3),
                         row.tokens_per_s_per_gpu, 100 * row.mfu, 100 * row.bubble_fraction,
                         100 * row.exposed_comm_fraction, row.memory_bytes / kGiB);
    } else if (row.status == planning::RowStatus::too_large || row.status == planning::RowStatus::pruned) {
      out += fmt::format("{:>8} {}{:>15} {:>9} {:>6} {:>7} {:>8} {:>8.1f}  ", "-",
                         flow_cell("-"), "- ", "-", "-", "-", "-",
                         row.memory_bytes / kGiB);
    } else {
      out += fmt::format("{:>8} {}{:>15} {:>9} {:>6} {:>7} {:>8} {:>8}  ", "-",
                         flow_cell("-"), "- ", "-", "-", "-", "-", "-");
    }
    if (named) out += fmt::format("{:<{}}  ", rank_list(ties[i]), ties_width);
    if (row.status == planning::RowStatus::invalid) out += "invalid: " + row.reason;
    else out += row.fits ? "yes" : "NO: " + row.reason;
    out += '\n';
  }
  if (!bands.empty() && !header.band_source.empty()) {
    out += "\nvalidation families of the rows shown (measured / predicted - 1 over their runs):\n" + family_notes(bands);
  }
  if (named) out += "ties: the ranks whose bands overlap the row's: the published runs cannot tell those layouts apart\n";
  const double heavy = planning::kExposedCommEdges.back();
  if (std::any_of(rows.begin(), rows.begin() + static_cast<std::ptrdiff_t>(n), [&](const planning::SweepRow& row) {
        return row.status == planning::RowStatus::simulated && row.exposed_comm_fraction >= heavy;
      }))
    out += fmt::format("exp.comm of {:.0f} % or more: the published runs predicted to leave that much of their step to "
                       "communication ran slower than predicted on average (clustersim validate, EXPOSED COMM)\n",
                       100 * heavy);
  return out;
}

nlohmann::ordered_json sweep_json(const planning::SweepHeader& header, const std::vector<planning::SweepRow>& rows,
                                  const TableOptions& options) {
  using ordered_json = nlohmann::ordered_json;
  const planning::SweepCounts c = planning::count_rows(rows);
  ordered_json j;
  j["mode"] = header.mode;
  j["scenario"] = header.scenario;
  j["fingerprint"] = header.fingerprint;
  j["model"] = header.model;
  j["cluster"] = header.cluster;
  j["hbm_gib"] = header.hbm_bytes / kGiB;
  j["bands"] = bands_header_json(header.band_source, header.widening);
  if (header.shard_count > 1) j["shard"] = {{"index", header.shard_index}, {"count", header.shard_count}};
  if (header.flow_check > 0) j["flow_check"] = {{"rows", header.flow_check}, {"flow_runs", header.flow_runs}};
  j["counts"] = {{"layouts", rows.size()},
                 {"fit", c.fit},
                 {"simulated_too_large", c.simulated_too_large},
                 {"too_large", c.too_large},
                 {"invalid", c.invalid}};
  ordered_json array = ordered_json::array();
  const std::size_t n = shown(rows, options);
  const bool named = header.mode != "search";
  const std::vector<std::vector<std::size_t>> ties = named ? planning::band_ties(rows, n) : std::vector<std::vector<std::size_t>>();
  for (std::size_t i = 0; i < n; ++i) {
    const planning::SweepRow& row = rows[i];
    const auto& p = row.layout.parallelism;
    const auto& t = row.layout.training;
    ordered_json r;
    r["rank"] = i + 1;
    r["index"] = row.index;
    r["name"] = row.name.empty() ? planning::layout_label(row.layout) : row.name;
    r["tp"] = p.tp;
    r["pp"] = p.pp;
    r["dp"] = p.dp;
    r["cp"] = p.cp;
    r["ep"] = p.ep;
    r["etp"] = p.etp;
    r["vp"] = p.vp;
    r["micro_batch"] = t.micro_batch;
    r["sp"] = p.sp;
    r["zero"] = p.zero;
    r["recompute"] = models::recompute_name(t.recompute);
    r["schedule"] = models::schedule_name(t.schedule);
    r["status"] = planning::status_name(row.status);
    const bool simulated = row.status == planning::RowStatus::simulated;
    const auto figure = [&](double v) { return simulated ? ordered_json(v) : ordered_json(nullptr); };
    r["step_time_s"] = figure(row.step_time_s);
    if (header.flow_check > 0) {
      r["fidelity"] = row.analytic_step_s > 0 ? "flow" : "analytic";
      r["analytic_step_time_s"] = row.analytic_step_s > 0 ? figure(row.analytic_step_s) : figure(row.step_time_s);
    }
    r["step_time_band_s"] = simulated ? ordered_json{row.band.fast_s, row.band.slow_s} : ordered_json(nullptr);
    r["validation"] = simulated ? validation_json(row.band) : ordered_json(nullptr);
    if (named) r["ties_with"] = ties[i];
    r["tokens_per_s_per_gpu"] = figure(row.tokens_per_s_per_gpu);
    r["mfu"] = figure(row.mfu);
    r["bubble_fraction"] = figure(row.bubble_fraction);
    r["exposed_comm_fraction"] = figure(row.exposed_comm_fraction);
    r["memory_gib"] = row.status == planning::RowStatus::invalid ? ordered_json(nullptr) : ordered_json(row.memory_bytes / kGiB);
    r["fits"] = row.fits;
    r["reason"] = row.reason;
    array.push_back(std::move(r));
  }
  j["rows"] = std::move(array);
  return j;
}

std::string sweep_csv(const std::vector<planning::SweepRow>& rows) {
  std::string out =
      "rank,name,tp,pp,dp,cp,vp,micro_batch,sp,zero,recompute,schedule,status,step_time_s,step_time_fast_s,"
      "step_time_slow_s,validation_family,validation_runs,unvalidated,tokens_per_s_per_gpu,mfu,"
      "bubble_fraction,exposed_comm_fraction,memory_gib,fits,reason\n";
  const auto quoted = [](const std::string& text) {
    std::string q = "\"";
    for (const char ch : text) q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const planning::SweepRow& row = rows[i];
    const auto& p = row.layout.parallelism;
    const auto& t = row.layout.training;
    const bool simulated = row.status == planning::RowStatus::simulated;
    const auto figure = [&](double v) { return simulated ? fmt::format("{}", v) : std::string(); };
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", i + 1,
                       quoted(row.name.empty() ? planning::layout_label(row.layout) : row.name), p.tp, p.pp, p.dp, p.cp, p.vp,
                       t.micro_batch, p.sp, p.zero, models::recompute_name(t.recompute), models::schedule_name(t.schedule),
                       planning::status_name(row.status), figure(row.step_time_s), figure(row.band.fast_s),
                       figure(row.band.slow_s), simulated ? quoted(row.band.family) : std::string(),
                       simulated ? fmt::format("{}", row.band.runs) : std::string(),
                       simulated ? quoted(row.band.unvalidated) : std::string(), figure(row.tokens_per_s_per_gpu),
                       figure(row.mfu), figure(row.bubble_fraction), figure(row.exposed_comm_fraction),
                       row.status == planning::RowStatus::invalid ? std::string() : fmt::format("{}", row.memory_bytes / kGiB),
                       row.fits, quoted(row.reason));
  }
  return out;
}

void read_sweep_json(const nlohmann::json& j, planning::SweepHeader& header, std::vector<planning::SweepRow>& rows) {
  try {
    header.mode = j.at("mode").get<std::string>();
    header.scenario = j.at("scenario").get<std::string>();
    header.fingerprint = j.at("fingerprint").get<std::string>();
    header.model = j.at("model").get<std::string>();
    header.cluster = j.at("cluster").get<std::string>();
    header.hbm_bytes = j.at("hbm_gib").get<double>() * kGiB;
    read_bands_header_json(j.at("bands"), header.band_source, header.widening);
    header.shard_index = 1;
    header.shard_count = 1;
    if (j.contains("shard")) {
      header.shard_index = j.at("shard").at("index").get<std::size_t>();
      header.shard_count = j.at("shard").at("count").get<std::size_t>();
    }
    constexpr std::array recomputes{models::Recompute::none, models::Recompute::selective, models::Recompute::full,
                                    models::Recompute::op};
    constexpr std::array schedules{models::Schedule::gpipe, models::Schedule::one_f_one_b,
                                   models::Schedule::interleaved};
    constexpr std::array statuses{planning::RowStatus::simulated, planning::RowStatus::too_large, planning::RowStatus::invalid, planning::RowStatus::pruned};
    for (const auto& r : j.at("rows")) {
      planning::SweepRow row;
      row.index = r.at("index").get<std::size_t>();
      if (header.mode != "search") row.name = r.at("name").get<std::string>();
      auto& p = row.layout.parallelism;
      auto& t = row.layout.training;
      p = {.tp = r.at("tp").get<std::int64_t>(), .pp = r.at("pp").get<std::int64_t>(),
           .dp = r.at("dp").get<std::int64_t>(), .cp = r.at("cp").get<std::int64_t>(),
           .vp = r.at("vp").get<std::int64_t>(), .sp = r.at("sp").get<bool>(), .zero = r.at("zero").get<int>()};
      t.micro_batch = r.at("micro_batch").get<std::int64_t>();
      t.recompute = parse_name(r.at("recompute").get<std::string>(), recomputes, +[](models::Recompute v) {
        return models::recompute_name(v);
      });
      t.schedule = parse_name(r.at("schedule").get<std::string>(), schedules, +[](models::Schedule v) {
        return models::schedule_name(v);
      });
      row.status = parse_name(r.at("status").get<std::string>(), statuses, +[](planning::RowStatus v) { return planning::status_name(v); });
      if (row.status == planning::RowStatus::simulated) {
        row.step_time_s = r.at("step_time_s").get<double>();
        row.band.fast_s = r.at("step_time_band_s").at(0).get<double>();
        row.band.slow_s = r.at("step_time_band_s").at(1).get<double>();
        read_validation_json(r.at("validation"), row.band);
        row.tokens_per_s_per_gpu = r.at("tokens_per_s_per_gpu").get<double>();
        row.mfu = r.at("mfu").get<double>();
        row.bubble_fraction = r.at("bubble_fraction").get<double>();
        row.exposed_comm_fraction = r.at("exposed_comm_fraction").get<double>();
      }
      // x 2^30 undoes / 2^30 exactly, so ranks and figures survive the round trip.
      if (row.status != planning::RowStatus::invalid) row.memory_bytes = r.at("memory_gib").get<double>() * kGiB;
      row.fits = r.at("fits").get<bool>();
      row.reason = r.at("reason").get<std::string>();
      rows.push_back(std::move(row));
    }
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    if (const auto end = what.find("] "); end != std::string::npos) what = what.substr(end + 2);
    throw std::runtime_error("not a sweep result: " + what);
  }
}

}  // namespace clustersim::tools
