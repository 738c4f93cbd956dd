#pragma once
/// A plan spread over many processes: `plan --shard I/N` simulates the layouts of every N-th
/// cluster (GPU type and count) from the I-th, and prints one JSON document; `merge` of all N
/// documents gives exactly what the unsharded plan prints. A cluster's layout runs do not depend
/// on the other clusters' (planning/plan/plan_evaluation.hpp), so the shards together hold every
/// cluster's best layouts as one run finds them; the merge then makes the options, the front, the
/// choice and the flow check, as the unsharded plan does after its layout runs.
///
/// The document carries what the merge needs and nothing it must read elsewhere: the plan's
/// request (the normalised scenario, the options, the validation CSV where one was given), the
/// shard, and for each of the shard's clusters how many layouts it simulated and its best
/// layouts' step reports, bit for bit (tools/bit_record.hpp).

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "handoff/frameworks/framework.hpp"
#include "planning/plan/plan.hpp"
#include "planning/validation/validation_source.hpp"

namespace clustersim::tools {

/// The shard document: `prepared` from planning::prepare_plan, `runs` from simulate_plan_layouts
/// on the same shard. `validation`: the CSV given with --validation, or null for the built-in one.
std::string plan_shard_json(const planning::PlanRequest& request, handoff::Framework framework,
                            const planning::ValidationCsv* validation, const planning::PlanResult& prepared,
                            const planning::LayoutRuns& runs, const planning::Shard& shard);

/// Whether a JSON document is a plan shard (else, to `merge`, a sweep shard).
bool is_plan_shard(const nlohmann::json& document);

/// A plan put together from its shards, finished (planning::finish_plan).
struct MergedPlan {
  std::optional<planning::BandTable> validation{};  // request.validation points here when set
  planning::PlanRequest request{};
  handoff::Framework framework = handoff::Framework::megatron_lm;
  planning::PlanResult result{};
};

/// The documents with the files they came from. Throws CliError naming the file and what is wrong:
/// not a plan shard, another plan's, a shard given twice or missing, a cluster or layout that the
/// plan does not have. `simulate_chosen`: keep the choice's simulation (for a report).
std::unique_ptr<MergedPlan> merge_plan_shards(const std::vector<std::pair<std::string, nlohmann::json>>& documents,
                                              unsigned jobs, bool simulate_chosen);

}  // namespace clustersim::tools
