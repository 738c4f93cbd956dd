#pragma once
/// A framework's argument check, restated as a rule of clustersim's: what the framework requires
/// of a configuration, where in its source it says so, and what a layout that breaks it can run
/// instead. Each framework's rules are read from its source at a named commit (not copied), so an
/// export can refuse what the framework would refuse, with the framework's reason.

#include <string>

namespace clustersim::handoff {

/// One check a configuration breaks.
struct RuleBreach {
  std::string rule{};         // the rule's id in its framework's rule set ("fsdp2-no-pipeline")
  std::string source{};       // where the framework checks it: "megatron/training/arguments.py @d98e8a6"
  std::string message{};      // what the framework requires, in a sentence
  std::string alternative{};  // what the framework offers instead; empty: nothing

  friend bool operator==(const RuleBreach&, const RuleBreach&) = default;
};

}  // namespace clustersim::handoff
