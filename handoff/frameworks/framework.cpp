#include "handoff/frameworks/framework.hpp"

#include <array>

namespace clustersim::handoff {

namespace {
constexpr std::array frameworks{Framework::megatron_lm, Framework::nemo, Framework::torchtitan, Framework::deepspeed};
}  // namespace

std::string_view framework_name(Framework framework) {
  switch (framework) {
    case Framework::megatron_lm: return "megatron-lm";
    case Framework::nemo: return "nemo";
    case Framework::torchtitan: return "torchtitan";
    case Framework::deepspeed: return "deepspeed";
  }
  return "unknown";
}

std::span<const Framework> all_frameworks() { return frameworks; }

std::optional<Framework> parse_framework(std::string_view name) {
  for (const Framework f : frameworks)
    if (framework_name(f) == name) return f;
  return std::nullopt;
}

std::string_view framework_name_list() { return "megatron-lm, nemo, torchtitan, deepspeed"; }

}  // namespace clustersim::handoff
