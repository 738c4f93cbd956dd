#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "scenarios/validation_runs.hpp"
#include "tools/cli.hpp"
#include "planning/validation/validation_report.hpp"
#include "tests/tools/cli_runner.hpp"

namespace clustersim::tools {
namespace {

// The accuracy gate: overall MAPE of predicted vs measured step time over every published run
// the step model can express, with every row on its GPU's bundled calibration profile. The model
// measures 0.0561 today; docs/model.md section 12 ("Where the model is known to be off, and which
// way") accounts for each family and its largest misses: DeepSpeed's 2021 ZeRO-3 rows (23 % too
// fast to 12 % too slow), NeMo's 2024 long-sequence H100 rows (4-20 % too slow, the more the longer the
// sequence), NeMo Automodel's MoE rows (11 % too slow to 11 % too fast), BLOOM's Omni-Path rows (2-18 % too fast),
// Megatron-Core's 2024 table (2-12 % too fast), torchtitan's context-parallel and TP 8 rows (-15 .. +17 %) and
// MLPerf 5.1's one-rack 8B runs (GB300 +24 %, GB200 +16 %: the one-CTA context-parallel hops).
// The gate sits just above the measured level against regressions and is tightened as the
// physics closes the gap. Never met by skipping rows or by per-row corrections.
constexpr double kMaxValidationMape = 0.0565;
// No run beyond this, the worst measured today being MLPerf 5.1's one-rack GB300 8B at +24.4 %.
constexpr double kMaxRowError = 0.25;
// The mixture-of-experts rows together, at their measured level (7.3 %), under the 15 % the MoE
// issue asked for.
constexpr double kMaxMoeMape = 0.073;
// The mean signed error of each source family, held at its measured level (a little margin) on
// both sides so that no family drifts further while the overall MAPE holds; the goal is within
// +/-6 %.
struct FamilyBiasBound {
  std::string_view family;
  double min_bias;  // most negative allowed
  double max_bias;  // most positive allowed
};
constexpr std::array kFamilyBiasBounds{
    FamilyBiasBound{"Narayanan 2021", -0.06, 0.06},     FamilyBiasBound{"Korthikanti 2022", -0.06, 0.06},
    FamilyBiasBound{"Megatron-Core 2024", -0.072, 0.06}, FamilyBiasBound{"Llama 3 2024", -0.06, 0.06},
    FamilyBiasBound{"NeMo 24.07", -0.06, 0.06},         FamilyBiasBound{"NeMo long-seq 2024", -0.06, 0.12},
    FamilyBiasBound{"MLPerf 3.1", -0.06, 0.06},        FamilyBiasBound{"BLOOM 2022", -0.07, 0.06},
    FamilyBiasBound{"torchtitan", -0.06, 0.06},         FamilyBiasBound{"NeMo Automodel 2025", -0.06, 0.06},
    FamilyBiasBound{"NeMo long-seq B200 2025", -0.06, 0.06}, FamilyBiasBound{"MLPerf 5.0", -0.06, 0.06},
    FamilyBiasBound{"MLPerf 5.1", -0.06, 0.06},      FamilyBiasBound{"MLPerf 4.1", -0.06, 0.06},
    FamilyBiasBound{"MLPerf 4.0", -0.06, 0.06},
    FamilyBiasBound{"MLPerf 5.1 Nebius", -0.06, 0.07},
};
// Rows that must take part, so that the gate cannot pass by skipping (161 of 166 are expressible
// today).
constexpr std::int64_t kMinValidatedRows = 40;

using clustersim::test::Outcome;

// In-process, through run_cli.
Outcome run(std::vector<std::string> args) {
  std::ostringstream out, err;
  const int code = run_cli(args, out, err);
  return {code, out.str(), err.str()};
}

// The published runs, simulated once for the tests that read the report.
const planning::ValidationReport& published_report() {
  static const planning::ValidationReport report =
      planning::run_validation(scenarios::embedded_validation_csv(), scenarios::embedded_validation_csv_name);
  return report;
}

std::string per_row_errors(const planning::ValidationReport& report) {
  std::string text;
  for (const auto& [family, stats] : report.by_source) {
    text += fmt::format("{}: MAPE {:.1f}%, bias {:+.1f}% over {} rows\n", family, 100 * stats.mape,
                        100 * stats.bias, stats.count);
    for (const auto& r : report.rows) {
      if (r.run.family->name == family) text += fmt::format("  {:<40} {:+.1f}%\n", r.run.id, 100 * r.error);
    }
  }
  return text;
}

TEST_CASE("validate: error statistics are over |error|, bias is the signed mean") {
  // Errors +10%, -20%, +30%: |e| = 0.1, 0.2, 0.3 -> mean 0.2, median 0.2, max 0.3;
  // signed mean (0.1 - 0.2 + 0.3) / 3 = 0.0667.
  const std::vector<double> errors{0.1, -0.2, 0.3};
  const planning::ErrorStats s = planning::error_stats(errors);
  CHECK(s.count == 3);
  CHECK(s.mape == doctest::Approx(0.2));
  CHECK(s.median == doctest::Approx(0.2));
  CHECK(s.max == doctest::Approx(0.3));
  CHECK(s.bias == doctest::Approx(0.2 / 3));
  const std::vector<double> even{0.1, -0.4};  // median of an even count: mean of the middle two
  CHECK(planning::error_stats(even).median == doctest::Approx(0.25));
  CHECK(planning::error_stats({}).count == 0);
}

TEST_CASE("validate: step-time MAPE over the published runs stays under the gate") {
  // Every published run of scenarios/validation/published_runs.csv that the step model can
  // express, simulated and compared with its measured (or derived) step time.
  const planning::ValidationReport& report = published_report();
  INFO(per_row_errors(report));
  CHECK(report.overall.count >= kMinValidatedRows);
  // Every row is either compared or listed as skipped: none is dropped silently.
  const auto rows = scenarios::read_validation_rows(scenarios::embedded_validation_csv(), "embedded");
  CHECK(report.overall.count + static_cast<std::int64_t>(report.skipped.size()) ==
        static_cast<std::int64_t>(rows.size()));
  CHECK(report.overall.mape <= kMaxValidationMape);
  CHECK(report.overall.max <= kMaxRowError);
  for (const auto& entry : report.by_source) {
    const auto& family = entry.first;  // a plain name: clang 14 cannot capture a structured binding
    const auto& stats = entry.second;
    INFO(family);
    const auto* bound = std::find_if(kFamilyBiasBounds.begin(), kFamilyBiasBounds.end(),
                                     [&](const FamilyBiasBound& b) { return b.family == family; });
    REQUIRE(bound != kFamilyBiasBounds.end());  // a new family gets its bound here
    CHECK(stats.bias >= bound->min_bias);
    CHECK(stats.bias <= bound->max_bias);
    if (family == "NeMo Automodel 2025") {
      CHECK(stats.count == 6);
      CHECK(stats.mape <= kMaxMoeMape);
    }
  }
}

// Published runs the memory model still says do not fit, each with what it lacks. Every other run
// that has a measurement (all of them ran) must fit; a row that starts to fit must leave this list.
struct KnownMisfit {
  std::string_view id;
  std::string_view why;
};
constexpr std::array kKnownMisfits{
    KnownMisfit{"llama3-t4-8192-cp1",
                "5.9 GiB over on stage 1: at the paper's V = 8 (one layer a chunk) and 32 micro-batches Megatron's "
                "interleaved schedule keeps 141 layer passes in flight on stage 1, 69.9 GiB of Megatron-Core's "
                "533 MB a layer (the 16,384-GPU runs, 16 micro-batches, hold 128 and fit); the paper ran it "
                "without activation checkpointing on a stack of its own, whose saved tensors and tunable "
                "micro-batch group (N below PP) are not modelled"},
};

TEST_CASE("validate: every published run fits in memory but the known misfits") {
  const planning::ValidationReport& report = published_report();
  std::vector<std::string> misfits;
  for (const auto& r : report.rows) {
    if (!r.fits_in_memory) misfits.push_back(r.run.id);
  }
  std::vector<std::string> known;
  for (const auto& k : kKnownMisfits) known.emplace_back(k.id);
  CHECK(misfits == known);
}

// The accuracy tables users read (the README's and docs/model.md's) state what validate measures on
// this tree: a change that moves a family's figures fails here until the tables are re-measured.
std::vector<std::string> table_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line.substr(1));  // after the leading '|'
  while (std::getline(in, cell, '|')) {
    const auto first = cell.find_first_not_of(' ');
    const auto last = cell.find_last_not_of(' ');
    cells.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
  }
  if (!cells.empty() && cells.back().empty()) cells.pop_back();  // after the trailing '|'
  return cells;
}

// The source family a table row names: the longest family name the row's first cell starts with,
// followed by a space or nothing ("MLPerf 5.1 Nebius (...)" is "MLPerf 5.1 Nebius", not "MLPerf 5.1").
const std::pair<std::string, planning::ErrorStats>* family_named(const std::string& name,
                                                                 const planning::ValidationReport& report) {
  const std::pair<std::string, planning::ErrorStats>* best = nullptr;
  for (const auto& entry : report.by_source) {
    const std::string& family = entry.first;
    const bool named = name == family || (name.starts_with(family) && name[family.size()] == ' ');
    if (named && (best == nullptr || family.size() > best->first.size())) best = &entry;
  }
  return best;
}

std::string unbold(std::string cell) {
  std::erase(cell, '*');
  return cell;
}

std::string percent(double fraction) { return fmt::format("{:.1f} %", 100 * fraction); }
std::string signed_percent(double fraction) { return fmt::format("{:+.1f} %", 100 * fraction); }

TEST_CASE("validate: the README's and docs/model.md's accuracy tables hold this tree's figures") {
  const planning::ValidationReport& report = published_report();
  struct Document {
    std::string path;
    std::size_t columns;  // the by-source table's: README name, framework, runs, MAPE, bias;
                          // docs/model.md name, framework, runs, MAPE, median, bias, range
  };
  for (const Document& doc : {Document{"README.md", 5}, Document{"docs/model.md", 7}}) {
    CAPTURE(doc.path);
    const std::string text = test::read_text(std::string(CLUSTERSIM_SOURCE_DIR) + "/" + doc.path);
    REQUIRE(!text.empty());
    std::map<std::string, int> rows_per_family;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (!line.starts_with("| ")) continue;
      const std::vector<std::string> cells = table_cells(line);
      if (cells.size() != doc.columns) continue;
      const auto* family = family_named(cells[0], report);
      if (family == nullptr || cells[2].find_first_not_of("0123456789") != std::string::npos) continue;
      CAPTURE(line);
      const planning::ErrorStats& stats = family->second;
      ++rows_per_family[family->first];
      CHECK(std::stoll(cells[2]) == stats.count);
      CHECK(cells[3] == percent(stats.mape));
      if (doc.columns == 7) CHECK(cells[4] == percent(stats.median));
      CHECK(unbold(cells[doc.columns == 7 ? 5 : 4]) == signed_percent(stats.bias));
    }
    for (const auto& entry : report.by_source) {
      CAPTURE(entry.first);
      CHECK(rows_per_family[entry.first] == 1);
    }
    if (doc.path == "README.md") {
      // The table of runs by predicted exposed communication.
      for (const auto& [group, stats] : report.by_exposed_comm) {
        const std::string row = fmt::format("| {} | {} | {} | {} |", group, stats.count, percent(stats.mape),
                                            signed_percent(stats.bias));
        CAPTURE(row);
        CHECK(text.find(row) != std::string::npos);
      }
      // The validation families' bands, lines of validate's own output.
      const Outcome printed = run({"validate"});
      REQUIRE(printed.exit_code == 0);
      std::istringstream out(printed.out);
      bool in_bands = false;
      int band_lines = 0;
      for (std::string line; std::getline(out, line);) {
        if (line.starts_with("VALIDATION FAMILY")) in_bands = true;
        else if (in_bands && line.starts_with("A prediction")) break;
        if (!in_bands) continue;
        CAPTURE(line);
        CHECK(text.find(line + '\n') != std::string::npos);
        ++band_lines;
      }
      CHECK(band_lines == static_cast<int>(report.by_validation_family.size()) + 1);  // and the header
      // The headline sentence above the table, its line breaks read as spaces.
      std::string words;
      std::istringstream split(text);
      for (std::string word; split >> word;) words += (words.empty() ? "" : " ") + word;
      const planning::ErrorStats& all = report.overall;
      CHECK(words.find(fmt::format("MAPE {}, median {}, worst {}, mean signed error {}", percent(all.mape),
                                   percent(all.median), percent(all.max), signed_percent(all.bias))) !=
            std::string::npos);
    }
  }
}

TEST_CASE("validate: --json is one object with rows in CSV order, skips, per-source and overall stats") {
  const Outcome o = run({"validate", "--json"});
  REQUIRE(o.exit_code == 0);
  CHECK(o.err.empty());
  const auto j = nlohmann::json::parse(o.out);
  REQUIRE(j.contains("rows"));
  REQUIRE(j["rows"].size() >= 40);
  const auto& first = j["rows"][0];
  CHECK(first["id"] == "meg21-t1-1.7b");  // the CSV's first row
  CHECK(first["source"] == "Narayanan 2021");
  CHECK(first["basis"] == "tflops");
  const double predicted = first["predicted_step_time_s"], measured = first["measured_step_time_s"];
  CHECK(first["error"].get<double>() == doctest::Approx((predicted - measured) / measured));
  CHECK(measured == doctest::Approx(3.528018).epsilon(1e-6));

  REQUIRE(j["skipped"].is_array());
  for (const auto& s : j["skipped"]) {
    CHECK(s["id"].is_string());
    CHECK_FALSE(s["reason"].get<std::string>().empty());
  }
  for (const auto& item : j["by_source"].items()) {
    const std::string name = item.key();
    const auto& stats = item.value();
    CAPTURE(name);
    for (const char* key : {"mape", "median", "max", "count"}) CHECK(stats.contains(key));
  }
  const auto& overall = j["overall"];
  CHECK(overall["count"] == j["rows"].size());
  CHECK(overall["skipped"] == j["skipped"].size());
  CHECK(overall["max"].get<double>() >= overall["median"].get<double>());
  // The runs by predicted exposed communication: every row in one group, least exposed first.
  const auto exposed = nlohmann::ordered_json::parse(o.out)["by_exposed_comm"];
  REQUIRE(exposed.is_object());
  REQUIRE_FALSE(exposed.empty());
  CHECK(exposed.begin().key() == "under 2 %");
  std::int64_t grouped = 0;
  for (const auto& group : exposed) grouped += group["count"].get<std::int64_t>();
  CHECK(grouped == overall["count"].get<std::int64_t>());
}

TEST_CASE("validate: the runs grouped by their predicted exposed communication, each group its rows' statistics") {
  CHECK(planning::exposed_comm_group(0.0) == "under 2 %");
  CHECK(planning::exposed_comm_group(0.0199) == "under 2 %");
  CHECK(planning::exposed_comm_group(0.02) == "2-6 %");
  CHECK(planning::exposed_comm_group(0.119) == "6-12 %");
  CHECK(planning::exposed_comm_group(0.2) == "20 % and more");
  const planning::ValidationReport& report = published_report();
  // The groups, rebuilt here from each row's exposed share and error.
  std::map<std::string, std::vector<double>> errors;
  for (const auto& r : report.rows) errors[planning::exposed_comm_group(r.exposed_comm_fraction)].push_back(r.error);
  std::int64_t counted = 0;
  REQUIRE(report.by_exposed_comm.size() == errors.size());
  for (const auto& entry : report.by_exposed_comm) {
    const std::string& group = entry.first;
    CAPTURE(group);
    const planning::ErrorStats expected = planning::error_stats(errors.at(group));
    CHECK(entry.second.count == expected.count);
    CHECK(entry.second.bias == doctest::Approx(expected.bias));
    CHECK(entry.second.mape == doctest::Approx(expected.mape));
    counted += entry.second.count;
  }
  CHECK(counted == report.overall.count);
  // Least exposed first.
  CHECK(report.by_exposed_comm.front().first == "under 2 %");
  // sweep's note on rows with 20 % or more exposed communication says those runs ran slower than
  // predicted on average: it holds while this group's bias is negative.
  CHECK(report.by_exposed_comm.back().first == "20 % and more");
  CHECK(report.by_exposed_comm.back().second.bias < 0.0);
  // The text and --json outputs carry the groups: the tests of each output check them.
}

TEST_CASE("validate: a second run prints the same bytes") {
  CHECK(run({"validate", "--json"}).out == run({"validate", "--json"}).out);
}

TEST_CASE("validate: the text report lists every row, the statistics and the skipped rows") {
  const Outcome o = run({"validate"});
  REQUIRE(o.exit_code == 0);
  CHECK(o.out.find("meg21-t1-1.7b") != std::string::npos);
  CHECK(o.out.find("overall") != std::string::npos);
  CHECK(o.out.find("Skipped (") != std::string::npos);
  CHECK(o.out.find("parallel layout not given (tp, pp)") != std::string::npos);
  CHECK(o.out.find("EXPOSED COMM") != std::string::npos);
}

TEST_CASE("validate: a CSV with a malformed number fails with file:line, exit 2 and nothing on stdout") {
  const std::string embedded(scenarios::embedded_validation_csv());
  const std::string header = embedded.substr(0, embedded.find('\n') + 1);
  std::string row = embedded.substr(header.size(), embedded.find('\n', header.size()) - header.size() + 1);
  row.replace(row.find(",24,2304,"), 9, ",2x,2304,");  // layers of the first row
  const auto path = std::filesystem::temp_directory_path() /
                    ("clustersim-validate-" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path, std::ios::binary) << header << row;
  const Outcome o = run({"validate", path.string()});
  std::filesystem::remove(path);
  CHECK(o.exit_code == 2);
  CHECK(o.out.empty());
  CHECK(o.err == "clustersim: error: " + path.string() +
                     ":2: column layers must be a positive integer, got \"2x\"\n");
}

}  // namespace
}  // namespace clustersim::tools
