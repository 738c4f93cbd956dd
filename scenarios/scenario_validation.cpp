#include "scenarios/scenario_validation.hpp"

#include <cstdint>

#include "scenarios/run_options_validation.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_schema.hpp"

namespace clustersim::scenarios {
namespace {

std::string str(std::int64_t v) { return std::to_string(v); }

std::optional<Violation> field_violation(const Scenario& s) {
  for (const auto& section : scenario_sections()) {
    for (const auto& field : section.fields) {
      const FieldValue value = field.get(s);
      if (!field.accepts(value)) {
        return Violation{std::string(section.pointer) + "/" + std::string(field.key),
                         "must be " + field.requirement() + ", got " + format_value(value)};
      }
    }
  }
  return std::nullopt;
}

// Cross-field rules, each naming the key a user would most likely change.
std::optional<Violation> cross_field_violation(const Scenario& s) {
  const auto& m = s.model;
  const auto& c = s.cluster;
  const auto& p = s.parallelism;
  const auto& t = s.training;

  if ((c.failed_links > 0 || !c.failed_link_names.empty()) && s.simulation.fidelity != Fidelity::flow) {
    return Violation{c.failed_links > 0 ? "/cluster/failed_links" : "/cluster/failed_link_names",
                     "failed links need simulation.fidelity \"flow\": the analytic model does not see "
                     "individual links"};
  }
  if (m.hidden % m.heads != 0) {
    return Violation{"/model/hidden",
                     "must be divisible by heads=" + str(m.heads) + ", got " + str(m.hidden)};
  }
  if (m.heads % m.kv_heads != 0) {
    return Violation{"/model/kv_heads",
                     "must divide heads=" + str(m.heads) + ", got " + str(m.kv_heads)};
  }
  if (m.heads % p.tp != 0) {
    return Violation{"/parallelism/tp", str(p.tp) + " does not divide heads=" + str(m.heads)};
  }
  if (m.kv_heads % p.tp != 0) {
    return Violation{"/parallelism/tp",
                     str(p.tp) + " does not divide kv_heads=" + str(m.kv_heads)};
  }
  if (c.num_gpus % c.gpus_per_node != 0) {
    return Violation{"/cluster/num_gpus", "must be a multiple of gpus_per_node=" +
                                              str(c.gpus_per_node) + ", got " + str(c.num_gpus)};
  }
  if (const std::int64_t product = p.tp * p.pp * p.dp * p.cp; product != c.num_gpus) {
    return Violation{"/parallelism", "tp*pp*dp*cp = " + str(p.tp) + "*" + str(p.pp) + "*" +
                                         str(p.dp) + "*" + str(p.cp) + " = " + str(product) +
                                         " must equal cluster.num_gpus=" + str(c.num_gpus)};
  }
  if (const std::int64_t chunks = p.pp * p.vp; m.layers < chunks) {
    return Violation{"/parallelism/pp", "pp*vp = " + str(p.pp) + "*" + str(p.vp) + " = " +
                                            str(chunks) + " exceeds layers=" + str(m.layers) +
                                            ": every pipeline chunk needs a layer"};
  }
  if (p.vp > 1 && t.schedule != models::Schedule::interleaved) {
    return Violation{"/parallelism/vp",
                     "vp=" + str(p.vp) + " needs training.schedule \"interleaved\""};
  }
  if (t.schedule == models::Schedule::interleaved && p.vp < 2) {
    return Violation{"/training/schedule", "\"interleaved\" needs parallelism.vp > 1"};
  }
  if (const std::int64_t per_step = p.dp * t.micro_batch; t.global_batch % per_step != 0) {
    return Violation{"/training/global_batch", "must be divisible by dp*micro_batch = " +
                                                   str(p.dp) + "*" + str(t.micro_batch) + " = " +
                                                   str(per_step) + ", got " + str(t.global_batch)};
  }
  if (t.seq_len % p.cp != 0) {
    return Violation{"/training/seq_len",
                     "must be divisible by cp=" + str(p.cp) + ", got " + str(t.seq_len)};
  }
  if (p.sp && t.seq_len % (p.tp * p.cp) != 0) {
    return Violation{"/training/seq_len", "must be divisible by tp*cp = " + str(p.tp * p.cp) +
                                              " with sequence parallelism, got " + str(t.seq_len)};
  }
  if (t.precision == models::Precision::fp8 && !(c.gpu.fp8_flops_per_s > 0)) {
    return Violation{"/training/precision",
                     "fp8 needs a GPU with FP8 tensor cores; " +
                         (c.gpu.name.empty() ? std::string("this GPU") : c.gpu.name) +
                         " has fp8_tflops=0"};
  }
  return std::nullopt;
}

}  // namespace

std::optional<Violation> find_violation(const Scenario& scenario) {
  if (auto violation = field_violation(scenario)) return violation;
  if (auto violation = cross_field_violation(scenario)) return violation;
  return run_options_violation(scenario);
}

void validate(const Scenario& scenario, std::string_view source) {
  if (auto violation = find_violation(scenario)) {
    throw ScenarioError(std::string(source), violation->pointer, violation->rule);
  }
}

}  // namespace clustersim::scenarios
