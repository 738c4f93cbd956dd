#pragma once
/// What `--export FRAMEWORK` prints for a layout: the complete launch configuration of one training
/// framework (model and layout), or, where the framework cannot run the layout as given, the rules
/// of that framework it breaks and the configuration of what the framework offers instead.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "handoff/frameworks/framework.hpp"
#include "handoff/frameworks/framework_rule.hpp"
#include "models/spec/cluster_spec.hpp"
#include "models/spec/transformer_spec.hpp"
#include "planning/search/layout_search.hpp"

namespace clustersim::handoff {

/// One file of a launch: a shell script, a TOML job config, a JSON config, a YAML override.
struct LaunchFile {
  std::string name{};     // a suggested file name: "pretrain_gpt.sh", "job.toml", "ds_config.json"
  std::string content{};  // complete, ending in a newline

  friend bool operator==(const LaunchFile&, const LaunchFile&) = default;
};

struct LaunchConfig {
  Framework framework = Framework::megatron_lm;
  std::string source{};                // the framework's commit the rules were read at
  std::vector<RuleBreach> breaches{};  // empty: the framework runs the layout as given
  std::vector<std::string> notes{};    // what the configuration maps only approximately, and why
  // The configuration of the layout; where a rule breaks it, of the alternative the breach offers
  // (empty where none is offered).
  std::vector<LaunchFile> files{};

  bool runs_as_given() const { return breaches.empty(); }
  friend bool operator==(const LaunchConfig&, const LaunchConfig&) = default;
};

/// The launch configuration of `layout` for `model` on `cluster` in `framework`. The layout must
/// be valid for clustersim (models::check_layout); the framework's own rules are checked here.
LaunchConfig export_launch(Framework framework, const models::TransformerSpec& model,
                           const models::ClusterSpec& cluster, const planning::Layout& layout);

/// The text `--export` prints: a heading with the verdict, the breaches and notes as lines, then
/// each file under a "--- NAME" line.
std::string launch_config_text(const LaunchConfig& config);
/// {"framework", "source", "runs_as_given", "breaches": [{rule, source, message, alternative}],
///  "notes": [...], "files": [{"name", "content"}]}.
nlohmann::ordered_json launch_config_json(const LaunchConfig& config);

}  // namespace clustersim::handoff
