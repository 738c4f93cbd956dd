#pragma once
/// The `clustersim` command line: global options (--help, --version) and dispatch to subcommands.
/// Exit codes: 0 success; 2 any error (bad option, unknown command, invalid scenario, failed
/// write), reported as one line "clustersim: error: ..." on stderr with nothing on stdout.

#include <ostream>
#include <span>
#include <string>

namespace clustersim::tools {

/// Runs the program on `args` (without the program name); returns the exit code.
int run_cli(std::span<const std::string> args, std::ostream& out, std::ostream& err);

}  // namespace clustersim::tools
