// `clustersim merge`: combine the shard outputs of `clustersim sweep --shard I/N` or `clustersim
// plan --shard I/N` (tools/plan_shards.hpp) into the result one unsharded run prints.

#include <limits>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scenarios/bounded_input.hpp"
#include "scenarios/json_input.hpp"
#include "scenarios/scenario_error.hpp"
#include "tools/checked_option.hpp"
#include "tools/command_line.hpp"
#include "tools/commands.hpp"
#include "tools/file_output.hpp"
#include "tools/plan_output.hpp"
#include "tools/plan_shards.hpp"
#include "tools/render/html_report.hpp"
#include "tools/render/sweep_report.hpp"
#include "tools/render/sweep_table.hpp"

namespace clustersim::tools {
namespace {

constexpr std::size_t kDefaultSearchTop = 20;  // as in sweep

nlohmann::json read_json_file(const std::string& path) {
  const std::string text = scenarios::read_input_file_bounded(path);
  try {
    return scenarios::parse_json_input(text);
  } catch (const scenarios::JsonInputError& error) {
    throw scenarios::ScenarioError(path, error.pointer(), error.rule());
  }
}

}  // namespace

int cmd_merge(std::span<const std::string> args, std::ostream& out) {
  std::vector<std::string> paths;
  std::string csv_path, report_path;
  constexpr std::size_t unset = std::numeric_limits<std::size_t>::max();
  std::size_t top = unset;
  CommandOptions options;
  constexpr IntRange top_range{.min = 0, .max = 1000000};
  options.visible.add_options()
      ("top", integer_option("top", &top, top_range)->value_name("N"),
       with_rule("print the N best rows; 0: all (default: as sweep)", top_range.rule()).c_str())
      ("csv", path_option("csv", &csv_path)->value_name("FILE"), "write every row, ranked, as CSV")
      ("report", path_option("report", &report_path)->value_name("FILE.html"), "write a self-contained HTML ranking report");
  options.hidden.add_options()("shards", po::value(&paths)->composing(), "shard files");
  options.positional.add("shards", -1);
  const CommandHelp help{
      .name = "merge",
      .usage = "SHARD.json ... [--top N] [--csv FILE] [--report FILE.html]",
      .description = "Combine the outputs of `clustersim sweep ... --shard I/N` or `clustersim plan ... --shard I/N`\n"
                     "(one per I) into exactly what the same sweep or plan prints without --shard. Every shard of\n"
                     "the same sweep or plan must be given once. Of a plan, --csv writes its options and --report\n"
                     "its HTML report, as plan's do; --top is a sweep's.",
      .arguments = "  SHARD.json  the JSON a shard printed",
  };
  if (!parse_command_line(args, help, options, out)) return 0;
  if (paths.empty()) throw CliError("merge: no shard files given");
  if (is_plan_shard(read_json_file(paths.front()))) {
    if (top != unset) throw CliError("merge: --top ranks a sweep's rows; a plan prints its front and choice");
    std::vector<std::pair<std::string, nlohmann::json>> documents;
    for (const std::string& path : paths) documents.emplace_back(path, read_json_file(path));
    const auto plan = merge_plan_shards(documents, planning::default_jobs(), !report_path.empty());
    emit_plan(plan->request, plan->result,
              {.framework = plan->framework, .json = options.output.json, .report_path = report_path,
               .csv_path = csv_path},
              out);
    return 0;
  }

  planning::SweepHeader header;
  std::vector<planning::SweepRow> rows;
  std::set<std::size_t> seen;
  for (const std::string& path : paths) {
    planning::SweepHeader shard_header;
    const nlohmann::json document = read_json_file(path);
    try {
      read_sweep_json(document, shard_header, rows);
    } catch (const std::runtime_error& e) {
      throw CliError(path + ": " + e.what());
    }
    if (seen.empty()) {
      header = shard_header;
    } else if (shard_header.fingerprint != header.fingerprint || shard_header.mode != header.mode) {
      throw CliError(path + ": comes from a different sweep (scenario, options or layouts differ) than " +
                     paths.front());
    } else if (shard_header.shard_count != header.shard_count) {
      throw CliError(fmt::format("{}: is shard {}/{}, but {} is one of {}", path, shard_header.shard_index,
                                 shard_header.shard_count, paths.front(), header.shard_count));
    }
    if (!seen.insert(shard_header.shard_index).second) {
      throw CliError(fmt::format("{}: shard {}/{} is given twice", path, shard_header.shard_index, header.shard_count));
    }
  }
  if (seen.size() != header.shard_count) {
    std::string missing;
    for (std::size_t i = 1; i <= header.shard_count; ++i) {
      if (!seen.contains(i)) missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", i, header.shard_count);
    }
    throw CliError("merge: missing shard " + missing);
  }
  header.shard_index = 1;
  header.shard_count = 1;
  planning::rank_rows(rows);

  const TableOptions table{.top = top != unset ? top : header.mode == "search" ? kDefaultSearchTop : 0};
  const std::string text = sweep_text(header, rows, table);
  if (!csv_path.empty()) write_file_atomically(csv_path, sweep_csv(rows));
  if (!report_path.empty()) {
    HtmlPage page(fmt::format("clustersim sweep: {}", header.scenario));
    page.paragraph(fmt::format("{} on {} (merged from {} shards)", header.model, header.cluster, paths.size()));
    add_sweep_rows(page, rows);
    page.heading("Text report");
    page.preformatted(text);
    write_file_atomically(report_path, page.render());
  }
  if (options.output.json) {
    out << sweep_json(header, rows, table).dump(2) << '\n';
  } else {
    out << text;
  }
  return 0;
}

}  // namespace clustersim::tools
