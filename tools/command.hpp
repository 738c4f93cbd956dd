#pragma once
/// A subcommand of `clustersim`, and the error type for command-line mistakes.
/// To add a subcommand: write tools/cmd_<name>.cpp defining `int cmd_<name>(args, out)`, declare
/// it in tools/commands.hpp, and add one row to the table in commands.cpp.

#include <ostream>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace clustersim::tools {

/// A mistake on the command line (beyond what Boost.Program_options reports itself).
class CliError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// `args` are the words after the subcommand's name. The command writes its result to `out`,
/// which reaches stdout only if the command returns (not throws), so failures print nothing there.
using CommandFunction = int (*)(std::span<const std::string> args, std::ostream& out);

struct Command {
  std::string_view name{};
  std::string_view summary{};  // one line, for `clustersim --help`
  CommandFunction run = nullptr;
};

}  // namespace clustersim::tools
