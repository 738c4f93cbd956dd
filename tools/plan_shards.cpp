#include "tools/plan_shards.hpp"

#include <map>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "planning/plan/topology_names.hpp"
#include "scenarios/scenario_io.hpp"
#include "tools/command.hpp"
#include "tools/plan_resume.hpp"

namespace clustersim::tools {
namespace {

using ordered_json = nlohmann::ordered_json;
constexpr const char* kShardKey = "clustersim_plan_shard";

// Everything of the request that decides the plan's output (not --jobs, --quiet or the outputs).
ordered_json request_json(const planning::PlanRequest& request, handoff::Framework framework,
                          const planning::ValidationCsv* validation) {
  ordered_json topologies = ordered_json::array();
  for (const auto kind : request.topologies) topologies.push_back(planning::topology_name(kind));
  ordered_json prices = ordered_json::object();
  for (const auto& [gpu, usd] : request.given_prices) prices[gpu] = usd;
  return {{"scenario", ordered_json::parse(scenarios::to_json(request.scenario))},
          {"gpus", request.gpus},
          {"min_gpus", request.min_gpus},
          {"max_gpus", request.max_gpus},
          {"topologies", std::move(topologies)},
          {"oversubscription", request.oversubscription},
          {"pricing", request.pricing == planning::Pricing::build ? "build" : "rent"},
          {"given_prices", std::move(prices)},
          {"deadline_days", request.deadline_days},
          {"budget_usd", request.budget_usd},
          {"flow_candidates", request.flow_candidates},
          {"export", handoff::framework_name(framework)},
          {"validation", validation ? ordered_json{{"name", validation->name}, {"text", validation->text}}
                                    : ordered_json(nullptr)}};
}

// The request back from request_json's object; json errors name the key (nlohmann's message).
void read_request(const nlohmann::json& j, MergedPlan& plan, unsigned jobs) {
  planning::PlanRequest& r = plan.request;
  r.scenario = scenarios::load_scenario_text(j.at("scenario").dump(), "the shard's scenario", {},
                                             scenarios::LayoutCheck::searched);
  r.gpus = j.at("gpus").get<std::vector<std::string>>();
  r.min_gpus = j.at("min_gpus").get<std::int64_t>();
  r.max_gpus = j.at("max_gpus").get<std::int64_t>();
  r.topologies.clear();
  for (const auto& name : j.at("topologies")) {
    const auto kind = planning::topology_from_name(name.get<std::string>());
    if (!kind) throw std::runtime_error("unknown topology " + name.dump());
    r.topologies.push_back(*kind);
  }
  r.oversubscription = j.at("oversubscription").get<double>();
  const std::string pricing = j.at("pricing").get<std::string>();
  if (pricing != "rent" && pricing != "build") throw std::runtime_error("pricing must be rent or build");
  r.pricing = pricing == "build" ? planning::Pricing::build : planning::Pricing::rent;
  r.given_prices = j.at("given_prices").get<std::map<std::string, double>>();
  r.deadline_days = j.at("deadline_days").get<double>();
  r.budget_usd = j.at("budget_usd").get<double>();
  r.flow_candidates = j.at("flow_candidates").get<std::size_t>();
  const auto framework = handoff::parse_framework(j.at("export").get<std::string>());
  if (!framework) throw std::runtime_error("unknown export framework " + j.at("export").dump());
  plan.framework = *framework;
  r.jobs = jobs;
  const nlohmann::json& validation = j.at("validation");
  if (!validation.is_null()) {
    plan.validation.emplace(planning::ValidationCsv{.name = validation.at("name").get<std::string>(),
                                                    .text = validation.at("text").get<std::string>()},
                            jobs);
    r.validation = &*plan.validation;
  }
}

}  // namespace

std::string plan_shard_json(const planning::PlanRequest& request, handoff::Framework framework,
                            const planning::ValidationCsv* validation, const planning::PlanResult& prepared,
                            const planning::LayoutRuns& runs, const planning::Shard& shard) {
  ordered_json clusters = ordered_json::array();
  const std::size_t keep = planning::kept_layouts(request);
  std::vector<std::size_t> simulated(prepared.clusters.size(), 0);
  for (const auto& run : runs.runs) simulated[run.cluster] += run.simulated ? 1 : 0;
  for (std::size_t c = 0; c < prepared.clusters.size(); ++c) {
    if (!shard.contains(c)) continue;
    ordered_json best = ordered_json::array();
    const std::vector<std::size_t>& ranked = runs.ranked.at(c);
    for (std::size_t k = 0; k < ranked.size() && (keep == 0 || k < keep); ++k) {
      const planning::LayoutRun& run = runs.runs[ranked[k]];
      best.push_back({{"layout", run.layout}, {"report", step_reports_text({run.report})}});
    }
    clusters.push_back({{"cluster", c}, {"simulated", simulated[c]}, {"best", std::move(best)}});
  }
  const ordered_json document{{kShardKey, {{"index", shard.index}, {"count", shard.count}}},
                              {"request", request_json(request, framework, validation)},
                              {"clusters", std::move(clusters)}};
  return document.dump(2) + "\n";
}

bool is_plan_shard(const nlohmann::json& document) { return document.is_object() && document.contains(kShardKey); }

std::unique_ptr<MergedPlan> merge_plan_shards(const std::vector<std::pair<std::string, nlohmann::json>>& documents,
                                              unsigned jobs, bool simulate_chosen) {
  if (documents.empty()) throw CliError("merge: no shard files given");
  const auto& [first_path, first] = documents.front();
  auto plan = std::make_unique<MergedPlan>();
  std::size_t count = 0;
  try {
    read_request(first.at("request"), *plan, jobs);
    count = first.at(kShardKey).at("count").get<std::size_t>();
  } catch (const std::exception& e) {
    throw CliError(fmt::format("{}: not a plan shard clustersim can read: {}", first_path, e.what()));
  }
  plan->request.simulate_chosen = simulate_chosen;
  planning::PlanResult& result = plan->result;
  result = planning::prepare_plan(plan->request);

  // Every cluster's layouts unsimulated, in the order simulate_layouts lists them; then the shards'.
  planning::LayoutRuns runs;
  std::vector<std::size_t> first_run(result.clusters.size());
  for (std::size_t c = 0; c < result.clusters.size(); ++c) {
    first_run[c] = runs.runs.size();
    for (std::size_t l = 0; l < result.clusters[c].layouts.size(); ++l) runs.runs.push_back({.cluster = c, .layout = l});
  }
  runs.ranked.resize(result.clusters.size());
  std::set<std::size_t> seen;
  for (const auto& [path, document] : documents) {
    try {
      if (!is_plan_shard(document)) throw std::runtime_error("it is not a plan shard (a sweep's?)");
      if (document.at("request") != first.at("request"))
        throw std::runtime_error("it comes from another plan (scenario or options differ) than " + first_path);
      const std::size_t index = document.at(kShardKey).at("index").get<std::size_t>();
      if (document.at(kShardKey).at("count").get<std::size_t>() != count)
        throw std::runtime_error(fmt::format("it is one of {} shards, {} one of {}",
                                             document.at(kShardKey).at("count").get<std::size_t>(), first_path, count));
      if (index < 1 || index > count) throw std::runtime_error(fmt::format("shard {}/{} does not exist", index, count));
      if (!seen.insert(index).second) throw std::runtime_error(fmt::format("shard {}/{} is given twice", index, count));
      const planning::Shard shard{.index = index, .count = count};
      for (const auto& entry : document.at("clusters")) {
        const std::size_t c = entry.at("cluster").get<std::size_t>();
        if (c >= result.clusters.size() || !shard.contains(c))
          throw std::runtime_error(fmt::format("cluster {} is not one of shard {}/{}'s", c, index, count));
        runs.simulated += entry.at("simulated").get<std::size_t>();
        for (const auto& best : entry.at("best")) {
          const std::size_t l = best.at("layout").get<std::size_t>();
          if (l >= result.clusters[c].layouts.size())
            throw std::runtime_error(fmt::format("cluster {} has no layout {}", c, l));
          std::vector<models::StepReport> report =
              step_reports_from_text(best.at("report").get<std::string>(), fmt::format("cluster {} layout {}", c, l));
          if (report.size() != 1) throw std::runtime_error("a layout's report must be one step report");
          planning::LayoutRun& run = runs.runs[first_run[c] + l];
          run.report = std::move(report.front());
          run.simulated = true;
          runs.ranked[c].push_back(first_run[c] + l);
        }
      }
    } catch (const std::exception& e) {
      throw CliError(fmt::format("{}: {}", path, e.what()));
    }
  }
  if (seen.size() != count) {
    std::string missing;
    for (std::size_t i = 1; i <= count; ++i) {
      if (!seen.contains(i)) missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", i, count);
    }
    throw CliError("merge: missing plan shard " + missing);
  }
  planning::finish_plan(plan->request, result, runs);
  return plan;
}

}  // namespace clustersim::tools
