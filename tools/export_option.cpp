#include "tools/export_option.hpp"

#include <fmt/format.h>

#include "tools/command.hpp"

namespace clustersim::tools {

void ExportOption::add_to(CommandOptions& options) {
  static const std::string help =
      fmt::format("print the launch configuration of the layout for FRAMEWORK ({}), or the rules of that framework "
                  "it breaks and what the framework offers instead",
                  handoff::framework_name_list());
  // Checked when the command line is, so that a misspelt name fails before any simulation.
  auto* value = po::value(&name)->value_name("FRAMEWORK")->notifier([](const std::string& given) {
    if (!handoff::parse_framework(given))
      throw po::error(fmt::format("--export: must be one of {}, got '{}'", handoff::framework_name_list(), given));
  });
  options.visible.add_options()("export", value, help.c_str());
}

std::optional<handoff::Framework> ExportOption::framework() const {
  if (name.empty()) return std::nullopt;
  if (auto f = handoff::parse_framework(name)) return f;
  throw CliError(fmt::format("--export: must be one of {}, got '{}'", handoff::framework_name_list(), name));
}

}  // namespace clustersim::tools
