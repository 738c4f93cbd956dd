// torchtitan TOML job config -> scenario: the mapping of handoff/frameworks/torchtitan_rules.hpp
// read backwards. The job config does not say the world size (torchrun does): it is --nodes x
// --gpus-per-node, or, where every degree is given (no -1), their product.

#include <algorithm>
#include <cctype>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "handoff/frameworks/torchtitan_rules.hpp"
#include "handoff/import/framework_imports.hpp"
#include "handoff/toml/toml_subset.hpp"
#include "models/step/pipeline_schedule.hpp"

namespace clustersim::handoff {

namespace {

using Json = nlohmann::ordered_json;

class TomlFields {
 public:
  TomlFields(const Json& doc, std::string_view source) : doc_(doc), source_(source) {}

  const Json* find(std::string_view table, std::string_view key) {
    const Json* t = &doc_;
    std::string_view rest = table;
    while (!rest.empty()) {
      const std::size_t dot = rest.find('.');
      const std::string part(rest.substr(0, dot));
      if (!t->is_object() || !t->contains(part)) return nullptr;
      t = &(*t)[part];
      rest = dot == std::string_view::npos ? std::string_view{} : rest.substr(dot + 1);
    }
    if (!t->is_object() || !t->contains(std::string(key))) return nullptr;
    used_.insert(fmt::format("{}.{}", table, key));
    return &(*t)[std::string(key)];
  }
  std::int64_t integer(std::string_view table, std::string_view key, std::int64_t fallback) {
    const Json* v = find(table, key);
    if (!v) return fallback;
    if (!v->is_number_integer()) fail(table, key, "must be an integer");
    return v->get<std::int64_t>();
  }
  std::string text(std::string_view table, std::string_view key, std::string fallback) {
    const Json* v = find(table, key);
    if (!v) return fallback;
    if (!v->is_string()) fail(table, key, "must be a string");
    return v->get<std::string>();
  }
  bool flag(std::string_view table, std::string_view key, bool fallback) {
    const Json* v = find(table, key);
    if (!v) return fallback;
    if (!v->is_boolean()) fail(table, key, "must be true or false");
    return v->get<bool>();
  }
  [[noreturn]] void fail(std::string_view table, std::string_view key, std::string_view rule) const {
    throw ImportError(fmt::format("{}: [{}] {} {}", source_, table, key, rule));
  }
  /// Every key of the file not read, as "table.key = value".
  std::vector<std::string> unread() const {
    std::vector<std::string> out;
    collect(doc_, "", out);
    return out;
  }

 private:
  void collect(const Json& table, const std::string& name, std::vector<std::string>& out) const {
    for (const auto& [key, v] : table.items()) {
      const std::string path = name.empty() ? key : name + "." + key;
      if (v.is_object()) collect(v, path, out);
      else if (!used_.contains(path)) out.push_back(fmt::format("{} = {}", path, v.dump()));
    }
  }
  const Json& doc_;
  std::string_view source_;
  std::set<std::string> used_{};
};

}  // namespace

ImportedScenario import_torchtitan(std::string_view text, std::string_view source, const ImportOptions& options) {
  const Json doc = [&] {
    try {
      return parse_toml_subset(text, source);
    } catch (const TomlError& e) {
      throw ImportError(e.what());
    }
  }();
  TomlFields f(doc, source);
  ImportedScenario result;

  const std::string name = f.text("model", "name", "llama3");
  const std::string flavor_name = f.text("model", "flavor", "debugmodel");
  const torchtitan::Flavor* flavor = torchtitan::find_flavor(name, flavor_name);
  if (!flavor) {
    std::string known;
    for (const torchtitan::Flavor& fl : torchtitan::flavors()) known += fmt::format(" {} {},", fl.name, fl.flavor);
    known.pop_back();
    throw ImportError(fmt::format("{}: [model] name = \"{}\", flavor = \"{}\": not a model clustersim knows the shape "
                                  "of (torchtitan defines models in code; known:{})", source, name, flavor_name, known));
  }

  const std::int64_t replicate = f.integer("parallelism", "data_parallel_replicate_degree", 1);
  std::int64_t shard = f.integer("parallelism", "data_parallel_shard_degree", -1);
  const std::int64_t tp = f.integer("parallelism", "tensor_parallel_degree", 1);
  const std::int64_t pp = f.integer("parallelism", "pipeline_parallel_degree", 1);
  const std::int64_t cp = f.integer("parallelism", "context_parallel_degree", 1);
  const std::int64_t gpus_per_node = options.gpus_per_node > 0 ? options.gpus_per_node : 8;
  std::int64_t world = options.nodes * gpus_per_node;
  if (options.nodes == 0) {
    if (shard == -1)
      throw ImportError(fmt::format("{}: [parallelism] data_parallel_shard_degree = -1 takes the ranks left over, so "
                                    "the world size must be given: --nodes (and --gpus-per-node)", source));
    world = replicate * shard * tp * pp * cp;
  }

  // The job must be one torchtitan runs: its own rules first, each named.
  const std::vector<RuleBreach> breaches = torchtitan::check_job(doc, world);
  if (!breaches.empty())
    throw ImportError(fmt::format("{}: torchtitan would refuse this job config on {} ranks: {} ({}: {})", source, world,
                                  breaches.front().message, breaches.front().rule, breaches.front().source));
  if (shard == -1) shard = world / (replicate * tp * pp * cp);
  const std::int64_t dp = replicate * shard;

  Json parallelism{{"tp", tp}, {"pp", pp}, {"dp", dp}, {"cp", cp}, {"sp", tp > 1}};
  // PyTorch's rotate methods: allgather (the default) gathers, alltoall passes the ring (p2p).
  if (cp > 1)
    parallelism["cp_comm"] =
        f.text("parallelism", "context_parallel_rotate_method", "allgather") == "alltoall" ? "p2p" : "all_gather";
  const bool fsdp = shard * cp > 1;
  const std::string reshard = f.text("parallelism", "fsdp_reshard_after_forward", "default");
  int zero = 0;
  if (fsdp) {
    // "default": torchtitan reshards after the forward unless pipelining (parallelize.py apply_fsdp).
    const bool reshards = reshard == "always" || (reshard == "default" && pp == 1);
    zero = reshards ? 3 : 2;
    if (reshard == "default")
      result.notes.push_back(fmt::format("fsdp_reshard_after_forward \"default\" with pipeline degree {}: {} (ZeRO-{})",
                                         pp, reshards ? "reshards after the forward" : "keeps parameters gathered", zero));
    if (replicate > 1) {
      if (zero == 3) parallelism["shard_group"] = shard * cp;
      else result.notes.push_back("hybrid sharding (data_parallel_replicate_degree > 1) with ZeRO-2: clustersim "
                                  "shards over all data-parallel ranks");
    }
  }
  parallelism["zero"] = zero;
  const std::int64_t ep = f.integer("parallelism", "expert_parallel_degree", 1);
  const std::int64_t etp = f.integer("parallelism", "expert_tensor_parallel_degree", 1);
  if (flavor->num_experts > 0 && ep > 1) {
    parallelism["ep"] = ep;
    parallelism["etp"] = etp;
    if (replicate > 1)
      result.notes.push_back("expert parallelism with data_parallel_replicate_degree > 1: torchtitan carves the "
                             "expert ranks from the shard x context x tensor ranks, clustersim from all data-parallel ones");
  }
  if (f.flag("parallelism", "enable_async_tensor_parallel", false)) parallelism["tp_comm_overlap"] = true;

  const std::int64_t local = f.integer("training", "local_batch_size", 8);
  std::int64_t global = f.integer("training", "global_batch_size", -1);
  if (global < 0) global = local * dp;
  const std::int64_t seq_len = f.integer("training", "seq_len", 2048);
  const std::int64_t steps = f.integer("training", "steps", 10000);
  Json training{{"framework", "torchtitan"}, {"seq_len", seq_len}, {"global_batch", global}};
  std::int64_t vp = 1;
  std::string schedule = "1f1b";
  if (pp > 1) {
    const std::int64_t micro = f.integer("parallelism", "pipeline_parallel_microbatch_size", 1);
    training["micro_batch"] = micro;
    // Each gradient-accumulation step runs the pipeline schedule once: a run of its own.
    if (global != local * dp) training["pipeline_runs"] = global / (local * dp);
    const std::string name_of_schedule = f.text("parallelism", "pipeline_parallel_schedule", "1F1B");
    const std::int64_t in_w = f.integer("parallelism", "pipeline_parallel_first_stage_less_layers", 1);
    const std::int64_t out_w = f.integer("parallelism", "pipeline_parallel_last_stage_less_layers", 1);
    std::int64_t stages = pp * (torchtitan::single_stage_schedule(name_of_schedule) ? 1 : 2);
    if (const Json* parts = f.find("parallelism", "module_fqns_per_model_part"); parts && parts->is_array())
      stages = static_cast<std::int64_t>(parts->size());
    else if (const Json* lps = f.find("parallelism", "pipeline_parallel_layers_per_stage"))
      stages = (flavor->n_layers + in_w + out_w + lps->get<std::int64_t>() - 1) / lps->get<std::int64_t>();
    vp = stages / pp;
    if (name_of_schedule == "GPipe") schedule = "gpipe";
    else if (vp > 1) schedule = "interleaved";
    if (vp > 1 && name_of_schedule != "Interleaved1F1B")
      result.notes.push_back(fmt::format("pipeline_parallel_schedule {} has no clustersim schedule: run as "
                                         "interleaved 1F1B with {} chunks per stage", name_of_schedule, vp));
    if (vp > 1) {
      const std::int64_t group = torchtitan::interleaved_round(local / micro, pp);
      if (group > 0 && group != pp) parallelism["microbatch_group"] = group;
    }
    // The layers of each model part as torchtitan splits them: its module lists, else its weighted
    // split; where they differ from clustersim's even split, the scenario gives them.
    std::vector<std::int64_t> theirs;
    if (const Json* parts = f.find("parallelism", "module_fqns_per_model_part"); parts && parts->is_array()) {
      for (const Json& part : *parts) {
        std::int64_t layers = 0;
        if (part.is_array())
          for (const Json& module : part) layers += module.is_string() && module.get<std::string>().starts_with("layers.");
        theirs.push_back(layers);
      }
    } else {
      theirs = torchtitan::stage_layers(stages, flavor->n_layers, in_w, out_w);
    }
    const bool empty_middle = theirs.size() > 2 && std::find(theirs.begin() + 1, theirs.end() - 1, 0) != theirs.end() - 1;
    if (empty_middle)
      result.notes.push_back(fmt::format("torchtitan splits the layers {}: a model part between the first and the last "
                                         "holds no layer, which clustersim does not model; it simulates an even split",
                                         fmt::join(theirs, " ")));
    else if (const auto recorded = models::recorded_split(flavor->n_layers, pp, vp, theirs); !recorded.empty())
      parallelism["layers_per_chunk"] = recorded;
  } else {
    training["micro_batch"] = local;
  }
  parallelism["vp"] = vp;
  training["schedule"] = schedule;
  training["tokens"] = static_cast<double>(steps) * static_cast<double>(global) * static_cast<double>(seq_len);

  const std::string mode = f.text("activation_checkpoint", "mode", "selective");
  const std::string option = f.text("activation_checkpoint", "selective_ac_option", "2");
  if (mode == "none") training["recompute"] = "none";
  else if (mode == "full" || (mode == "selective" && option == "1")) training["recompute"] = "full";
  else if (mode == "selective" && option == "op") training["recompute"] = "op";
  else {
    training["recompute"] = "full";
    result.notes.push_back(fmt::format("activation_checkpoint mode {} (option {}) has no clustersim policy: modelled "
                                       "as full recomputation", mode, option));
  }

  const bool compile = f.flag("compile", "enable", false);
  f.find("compile", "components");
  training["elementwise"] = compile ? "fused" : "eager";
  std::vector<std::string> converters;
  if (const Json* c = f.find("model", "converters"); c && c->is_array())
    for (const Json& s : *c) converters.push_back(s.is_string() ? s.get<std::string>() : s.dump());
  const auto has = [&](std::string_view converter) { return std::find(converters.begin(), converters.end(), converter) != converters.end(); };
  if (has("quantize.linear.mx")) {
    training["precision"] = "fp8";
    training["fp8_recipe"] = "mxfp8";
    f.find("quantize.linear.mx", "recipe_name");
  } else if (has("quantize.linear.float8")) {
    training["precision"] = "fp8";
    const std::string recipe = f.text("quantize.linear.float8", "recipe_name", "tensorwise");
    training["fp8_param_gather"] = f.flag("quantize.linear.float8", "enable_fsdp_float8_all_gather", false);
    f.flag("quantize.linear.float8", "precompute_float8_dynamic_scale_for_fsdp", false);
    if (recipe == "tensorwise") {
      training["fp8_recipe"] = "current";
    } else {
      training["fp8_recipe"] = "blockwise";
      result.notes.push_back(fmt::format("float8 recipe {}: modelled as blockwise scaling (finer than per tensor), "
                                         "the nearest clustersim recipe", recipe));
    }
  } else {
    training["precision"] = "bf16";
  }
  f.find("training", "mixed_precision_param");

  result.scenario = {{"name", fmt::format("{}-{}-torchtitan", name, flavor_name)},
                     {"model", {{"preset", std::string(flavor->preset)}}},
                     {"cluster",
                      {{"gpu", options.gpu.empty() ? "h100-sxm" : options.gpu},
                       {"num_gpus", world},
                       {"gpus_per_node", std::min(gpus_per_node, world)}}},
                     {"parallelism", parallelism},
                     {"training", training}};
  result.unmapped = f.unread();
  return result;
}

}  // namespace clustersim::handoff
