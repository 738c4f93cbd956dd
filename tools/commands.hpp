#pragma once
/// Every subcommand of `clustersim`: its entry point and its row in the command table.

#include <span>

#include "tools/command.hpp"

namespace clustersim::tools {

int cmd_calibrate(std::span<const std::string> args, std::ostream& out);
int cmd_collective(std::span<const std::string> args, std::ostream& out);
int cmd_compare(std::span<const std::string> args, std::ostream& out);
int cmd_import(std::span<const std::string> args, std::ostream& out);
int cmd_explain(std::span<const std::string> args, std::ostream& out);
int cmd_failures(std::span<const std::string> args, std::ostream& out);
int cmd_merge(std::span<const std::string> args, std::ostream& out);
int cmd_plan(std::span<const std::string> args, std::ostream& out);
int cmd_run(std::span<const std::string> args, std::ostream& out);
int cmd_topo(std::span<const std::string> args, std::ostream& out);
int cmd_sweep(std::span<const std::string> args, std::ostream& out);
int cmd_tco(std::span<const std::string> args, std::ostream& out);
int cmd_validate(std::span<const std::string> args, std::ostream& out);

/// The subcommands in the order `clustersim --help` lists them.
std::span<const Command> commands();

}  // namespace clustersim::tools
