#include "tools/command_line.hpp"

#include <charconv>
#include <iostream>
#include <sstream>

#include "scenarios/scenario_io.hpp"
#include "tools/checked_option.hpp"
#include "tools/command.hpp"

namespace clustersim::tools {
namespace {

std::size_t parse_count(std::string_view text, std::string_view whole) {
  std::size_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || text.empty()) {
    throw CliError("--shard: expected I/N with 1 <= I <= N, got \"" + std::string(whole) + "\"");
  }
  return value;
}

}  // namespace

bool parse_command_line(std::span<const std::string> args, const CommandHelp& help,
                        CommandOptions& options, std::ostream& out) {
  bool show_help = false;
  options.visible.add_options()
      ("json", po::bool_switch(&options.output.json), std::string(help.json_help).c_str())
      ("quiet", po::bool_switch(&options.output.quiet), "print nothing on stderr but errors: no progress, no notes")
      ("help,h", po::bool_switch(&show_help), "show this help");
  po::options_description all;
  all.add(options.visible).add(options.hidden);

  // No abbreviated option names: a script written today must mean the same after options are added.
  const auto style = po::command_line_style::default_style &
                     ~po::command_line_style::allow_guessing;
  po::variables_map values;
  po::store(po::command_line_parser(std::vector<std::string>(args.begin(), args.end()))
                .options(all)
                .positional(options.positional)
                .style(style)
                .run(),
            values);
  po::notify(values);

  if (show_help) {
    out << "Usage: clustersim " << help.name << ' ' << help.usage << (help.usage.empty() ? "" : " ")
        << "[--json] [--quiet]\n\n"
        << help.description << "\n";
    if (!help.arguments.empty()) out << "\nArguments:\n" << help.arguments << "\n";
    // Boost pads wrapped description lines with trailing blanks; drop them.
    std::ostringstream listing;
    listing << options.visible;
    std::istringstream lines(listing.str());
    out << '\n';
    for (std::string line; std::getline(lines, line);) {
      line.erase(line.find_last_not_of(' ') + 1);
      out << line << '\n';
    }
    return false;
  }
  return true;
}

void ScenarioArgs::add_to(CommandOptions& options) {
  options.visible.add_options()
      ("set", po::value(&sets)->value_name("path=value")->composing(),
       "override a scenario key, e.g. --set parallelism.tp=4 or --set cluster.gpu=h200-sxm; "
       "the value is JSON if it parses as JSON, else a string (repeatable)");
  output = &options.output;
  options.hidden.add_options()("scenario", path_option("SCENARIO", &scenario_path), "scenario file");
  options.positional.add("scenario", 1);
}

scenarios::Scenario ScenarioArgs::load(scenarios::LayoutCheck check) const {
  std::vector<std::string> notes;
  scenarios::Scenario scenario = scenario_path.empty()
                                     ? scenarios::default_scenario(sets, check, &notes)
                                     : scenarios::load_scenario_file(scenario_path, sets, check, &notes);
  // On stderr, so that stdout stays the report alone (one JSON object under --json).
  if (output != nullptr && output->quiet) return scenario;
  for (const auto& note : notes) std::cerr << "clustersim: note: " << note << '\n';
  return scenario;
}

std::string ScenarioArgs::source_name() const {
  return scenario_path.empty() ? "default scenario" : scenario_path;
}

std::vector<std::string> split_list(std::string_view text) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const auto comma = text.find(',', start);
    const auto item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return items;
}

planning::Shard parse_shard(std::string_view text) {
  const auto slash = text.find('/');
  if (slash == std::string_view::npos) throw CliError("--shard: expected I/N, got \"" + std::string(text) + "\"");
  const planning::Shard shard{.index = parse_count(text.substr(0, slash), text), .count = parse_count(text.substr(slash + 1), text)};
  if (shard.count == 0 || shard.index == 0 || shard.index > shard.count) {
    throw CliError("--shard: expected I/N with 1 <= I <= N, got \"" + std::string(text) + "\"");
  }
  return shard;
}

}  // namespace clustersim::tools
