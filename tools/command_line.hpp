#pragma once
/// Option parsing shared by the subcommands: one description of a command's options, `--help`
/// rendering, the options every command takes (--json, --quiet, --help), and the scenario options
/// ([SCENARIO] [--set path=value ...]) that every command taking a scenario reuses.

#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/program_options.hpp>

#include "planning/search/sweep_runner.hpp"
#include "scenarios/scenario.hpp"
#include "scenarios/scenario_validation.hpp"

namespace clustersim::tools {

namespace po = boost::program_options;

/// The text `clustersim <command> --help` prints around the option list.
struct CommandHelp {
  std::string_view name{};         // "run"
  /// After "clustersim run ": every option of the command but the shared ones, which
  /// parse_command_line appends ("[--json] [--quiet]"): "[SCENARIO] [--set path=value ...]".
  std::string_view usage{};
  std::string_view description{};  // what the command does, a few lines
  std::string_view arguments{};    // the positional arguments, one per line; may be empty
  /// What --json prints, where the command says more than the shared line does.
  std::string_view json_help = "print one JSON object on stdout instead of text";
};

/// The options every command takes, bound by parse_command_line: --json (exactly one JSON object
/// on stdout) and --quiet (nothing on stderr but errors: no progress bar, no notes).
struct OutputOptions {
  bool json = false;
  bool quiet = false;
};

/// A command's options: shown ones, hidden ones (targets of positional arguments), positionals,
/// and the shared output options once parsed.
struct CommandOptions {
  po::options_description visible{"Options"};
  po::options_description hidden{};
  po::positional_options_description positional{};
  OutputOptions output{};
};

/// Parses a command's words into the variables bound in `options`; --json, --quiet and -h/--help
/// are added here, after the command's own. Returns false if help was asked for: it has been
/// written to `out` and the command returns 0. Throws po::error for malformed command lines.
bool parse_command_line(std::span<const std::string> args, const CommandHelp& help,
                        CommandOptions& options, std::ostream& out);

/// The scenario a command works on: a file (or the built-in default) plus --set overrides.
struct ScenarioArgs {
  std::string scenario_path{};  // empty: the built-in default scenario
  std::vector<std::string> sets{};
  const OutputOptions* output = nullptr;  // the command's, for --quiet; none: notes are printed

  /// Registers [SCENARIO] and --set, bound to this object (which must outlive parsing), and
  /// follows the command's --quiet.
  void add_to(CommandOptions& options);
  /// Loads the named scenario with the overrides; throws scenarios::ScenarioError. `check`:
  /// whether the scenario's own layout must be valid (not where a search replaces it). The
  /// loader's notes (a field kept from the old preset a --set replaced, scenario_io.hpp) go to
  /// stderr, one line each, unless --quiet: "clustersim: note: <source>: <pointer> = <value> is kept ...".
  scenarios::Scenario load(scenarios::LayoutCheck check = scenarios::LayoutCheck::own_layout) const;
  /// The scenario's name in messages and reports: its file, or "default scenario".
  std::string source_name() const;
  /// The line describing [SCENARIO] for CommandHelp::arguments.
  static constexpr std::string_view argument_help =
      "  SCENARIO    scenario JSON file; default: the built-in Llama 3 70B on 256 H100\n"
      "              (clustersim explain lists every key)";
};

/// The items of a comma-separated list ("a,b,c"), in order; empty items (a stray comma) are
/// dropped, so an empty text gives none.
std::vector<std::string> split_list(std::string_view text);

/// `--shard I/N` with 1 <= I <= N; throws CliError otherwise.
planning::Shard parse_shard(std::string_view text);

}  // namespace clustersim::tools
