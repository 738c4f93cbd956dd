// `clustersim import`: a training framework's configuration as a clustersim scenario.

#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "handoff/import/config_import.hpp"
#include "scenarios/bounded_input.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"
#include "tools/checked_option.hpp"
#include "tools/command.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/file_output.hpp"

namespace clustersim::tools {

int cmd_import(std::span<const std::string> args, std::ostream& out) {
  std::string config_path, framework_name, output_path;
  handoff::ImportOptions import_options;
  constexpr IntRange nodes_range{.min = 1, .max = 100000};
  constexpr IntRange gpus_per_node_range{.min = 1, .max = 72};
  CommandOptions options;
  options.visible.add_options()
      ("framework", po::value(&framework_name)->value_name("NAME"),
       "the configuration's framework: megatron-lm, nemo, torchtitan, deepspeed (default: from the file's name and content)")
      ("nodes", integer_option("nodes", &import_options.nodes, nodes_range)->value_name("N"),
       with_rule("nodes the job runs on, as its launcher says (torchrun --nnodes, deepspeed --num_nodes)",
                 nodes_range.rule()).c_str())
      ("gpus-per-node", integer_option("gpus-per-node", &import_options.gpus_per_node, gpus_per_node_range)->value_name("G"),
       with_rule("GPUs per node (torchrun --nproc-per-node, deepspeed --num_gpus); default 8", gpus_per_node_range.rule()).c_str())
      ("gpu", po::value(&import_options.gpu)->value_name("PRESET"), "the GPU preset (default h100-sxm; clustersim explain lists them)")
      ("output", path_option("output", &output_path)->value_name("FILE"), "write the scenario JSON to FILE");
  options.hidden.add_options()("config", path_option("CONFIG", &config_path), "configuration file");
  options.positional.add("config", 1);
  const CommandHelp help{
      .name = "import",
      .usage = "CONFIG [--framework NAME] [--nodes N] [--gpus-per-node G] [--gpu PRESET] [--output FILE]",
      .description =
          "Turn a training framework's configuration into a clustersim scenario: a Megatron-LM command\n"
          "line or arguments file, a NeMo 2 / Megatron-Bridge YAML, a torchtitan TOML job config or a\n"
          "DeepSpeed JSON config. The settings clustersim does not model are listed; the scenario is\n"
          "checked as `clustersim run` would check it.",
      .arguments = "  CONFIG      the configuration file",
      .json_help = "print one JSON object: the scenario, what was not mapped, the notes",
  };
  if (!parse_command_line(args, help, options, out)) return 0;
  if (config_path.empty()) throw CliError("import: give the configuration file (CONFIG)");
  std::optional<handoff::Framework> framework;
  const std::string text = scenarios::read_input_file_bounded(config_path);
  // A file the configuration names is looked for beside it, as a launch from its folder finds it.
  import_options.read_named_file = [&](const std::string& name) -> std::optional<std::string> {
    const std::filesystem::path named(name);
    try {
      return scenarios::read_input_file_bounded(named.is_absolute() ? named
                                                                    : std::filesystem::path(config_path).parent_path() / named);
    } catch (const scenarios::ScenarioError&) {
      return std::nullopt;
    }
  };
  if (!framework_name.empty()) {
    framework = handoff::parse_framework(framework_name);
    if (!framework)
      throw CliError(fmt::format("import: --framework must be one of {}, got '{}'", handoff::framework_name_list(),
                                 framework_name));
  } else {
    framework = handoff::detect_framework(text, config_path);
    if (!framework)
      throw CliError(fmt::format("import: {}: cannot tell the framework from the file's name or content; give "
                                 "--framework ({})", config_path, handoff::framework_name_list()));
  }
  const handoff::ImportedScenario result = [&] {
    try {
      return handoff::import_config(*framework, text, config_path, import_options);
    } catch (const handoff::ImportError& e) {
      throw CliError(e.what());
    }
  }();
  // The scenario must load as `run` loads it: a mapping that gives an invalid one is an error here.
  const std::string scenario_text = result.scenario.dump(2) + "\n";
  const scenarios::Scenario scenario = scenarios::load_scenario_text(scenario_text, config_path);
  const std::string normalised = scenarios::to_json(scenario) + "\n";
  if (!output_path.empty()) write_file_atomically(output_path, normalised);
  if (options.output.json) {
    out << nlohmann::ordered_json{{"framework", handoff::framework_name(*framework)},
                                  {"source", config_path},
                                  {"scenario", nlohmann::ordered_json::parse(normalised)},
                                  {"unmapped", result.unmapped},
                                  {"notes", result.notes}}
               .dump(2)
        << '\n';
    return 0;
  }
  out << fmt::format("{} configuration {}: {} x {}, TP {} x PP {} x DP {}\n", handoff::framework_name(*framework),
                     config_path, scenario.cluster.num_gpus, scenario.cluster.gpu.name, scenario.parallelism.tp,
                     scenario.parallelism.pp, scenario.parallelism.dp);
  for (const std::string& note : result.notes) out << "  note: " << note << '\n';
  for (const std::string& setting : result.unmapped) out << "  not modelled: " << setting << '\n';
  if (output_path.empty()) out << normalised;
  else out << "  scenario written to " << output_path << '\n';
  return 0;
}

}  // namespace clustersim::tools
