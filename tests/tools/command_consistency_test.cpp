// Every subcommand of tools/commands.cpp, from its own --help: the usage line and the option list
// name the same options; --json prints exactly one JSON object; --quiet silences stderr; every
// numeric option refuses a negative number, NaN, hexadecimal, and zero where its stated range
// excludes it, with exit code 2 and a message naming the option.

#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"
#include "tools/commands.hpp"

namespace {

using clustersim::test::check_fails_cleanly;
using clustersim::test::read_text;
using clustersim::test::run_clustersim;
using clustersim::test::TempDir;

struct OptionLine {
  std::string name;         // "links", without the dashes
  std::string value_name;   // "N"; empty for a switch
  std::string description;  // all its lines joined
};

struct Help {
  std::set<std::string> usage_options;  // every --name in the usage line(s)
  std::vector<OptionLine> options;      // the "Options:" list
};

// The --help text as a reader sees it: the usage lines up to the first blank line, and the option
// list Boost prints ("  --name VALUE   description", continuation lines indented further).
Help parse_help(const std::string& text) {
  Help help;
  std::istringstream in(text);
  std::string line;
  bool in_usage = false, in_options = false;
  const std::regex long_option(R"(--([a-z][a-z0-9-]*))");
  // Boost leaves one blank between a long "--name VALUE" and its description: a value name is told
  // from a description's first word by a capital letter or a sign ("N", "path=value", "rent|build").
  const std::regex option_line(
      R"(^  (?:-[a-z] \[ )?--([a-z][a-z0-9-]*)(?: \])?(?: ([^ ]*[A-Z=|,/.][^ ]*))?(?: +(.*))?$)");
  while (std::getline(in, line)) {
    if (line.starts_with("Usage: clustersim ")) in_usage = true;
    if (in_usage) {
      if (line.empty()) {
        in_usage = false;
        continue;
      }
      for (std::sregex_iterator it(line.begin(), line.end(), long_option), end; it != end; ++it)
        help.usage_options.insert((*it)[1].str());
      continue;
    }
    if (line == "Options:") {
      in_options = true;
      continue;
    }
    if (!in_options || line.empty()) continue;
    std::smatch match;
    if (std::regex_match(line, match, option_line)) {
      help.options.push_back({match[1].str(), match[2].str(), match[3].str()});
    } else if (!help.options.empty()) {
      help.options.back().description += " " + line.substr(line.find_first_not_of(' '));
    }
  }
  return help;
}

Help help_of(const std::string& command) {
  const auto outcome = run_clustersim(command + " --help");
  REQUIRE(outcome.exit_code == 0);
  return parse_help(outcome.out);
}

std::vector<std::string> command_names() {
  std::vector<std::string> names;
  for (const auto& command : clustersim::tools::commands()) names.emplace_back(command.name);
  return names;
}

// What a numeric option's --help line states of its range (tools/checked_option.hpp's rules, the
// size rule of collective, the list rules of plan and failures, --shard's): nullopt when the
// option is not numeric; otherwise whether the range leaves out zero.
std::optional<bool> numeric_rule_excludes_zero(const OptionLine& option) {
  const std::string& d = option.description;
  std::smatch m;
  if (std::regex_search(d, m, std::regex(R"(an integer in (\d+)\.\.)"))) return std::stoull(m[1].str()) > 0;
  if (std::regex_search(d, m, std::regex(R"(a decimal number (>=?) ([0-9.e+-]+))"))) {
    const double low = std::stod(m[2].str());
    return m[1] == ">" ? low >= 0.0 : low > 0.0;
  }
  if (d.find("a size in bytes") != std::string::npos) return true;  // 1 B and up
  if (option.value_name == "I/N") return true;                      // 1 <= I <= N
  return std::nullopt;
}

// Value names that stand for numbers: an option with one must state a checked rule, so that an
// option added with a plain po::value<int> (which takes "-1" as a huge count) fails here.
bool numeric_value_name(const std::string& value_name) {
  static const std::set<std::string> names{"N", "S", "D", "B", "X", "F", "G", "GBIT", "FRACTION", "SIZE", "I/N"};
  return names.contains(value_name);
}

}  // namespace

TEST_CASE("command consistency: the usage line and the option list name the same options") {
  const auto names = command_names();
  REQUIRE(names.size() == 13);
  for (const std::string& name : names) {
    CAPTURE(name);
    const Help help = help_of(name);
    REQUIRE_FALSE(help.options.empty());
    std::set<std::string> listed;
    for (const auto& option : help.options) {
      // -h/--help is every command's and clustersim --help's; the usage line does not repeat it.
      if (option.name != "help") listed.insert(option.name);
    }
    for (const auto& option : listed) {
      CAPTURE(option);
      CHECK(help.usage_options.contains(option));
    }
    for (const auto& option : help.usage_options) {
      CAPTURE(option);
      CHECK(listed.contains(option));
    }
    // The shared options, on every command.
    CHECK(listed.contains("json"));
    CHECK(listed.contains("quiet"));
  }
}

TEST_CASE("command consistency: every numeric option refuses -1, nan, 0x10 and a zero its range excludes") {
  std::size_t checked = 0;
  for (const std::string& name : command_names()) {
    for (const OptionLine& option : help_of(name).options) {
      CAPTURE(name);
      CAPTURE(option.name);
      CAPTURE(option.description);
      const std::optional<bool> excludes_zero = numeric_rule_excludes_zero(option);
      if (numeric_value_name(option.value_name)) CHECK(excludes_zero.has_value());
      if (!excludes_zero) continue;
      std::vector<std::string> words{"-1", "nan", "0x10"};
      if (*excludes_zero) words.push_back("0");
      for (const std::string& word : words) {
        CAPTURE(word);
        // "--name=WORD": a word starting with '-' is the option's value, not another option.
        check_fails_cleanly(run_clustersim(name + " --" + option.name + "=" + word), "--" + option.name);
      }
      ++checked;
    }
  }
  // At least the options known today (runs, seed, nodes, top, jobs, min, max, factor, ...).
  CHECK(checked >= 30);
}

TEST_CASE("command consistency: --json prints exactly one JSON object, and --quiet nothing on stderr") {
  const TempDir dir;
  const std::string source = CLUSTERSIM_SOURCE_DIR;
  const std::string log = source + "/tests/calibration/data/h100_1n8g_allreduce_nccl-tests-290.txt";
  // Shards for merge, from the sweep they split.
  for (const char* shard : {"1/2", "2/2"}) {
    const auto outcome = run_clustersim(std::string("sweep scenarios/seed/twelve-layouts.json --shard ") + shard);
    REQUIRE(outcome.exit_code == 0);
    std::ofstream(dir / (std::string("shard") + shard[0] + ".json")) << outcome.out;
  }
  // A Megatron-LM command line for import.
  std::ofstream(dir / "pretrain.sh") << "torchrun pretrain_gpt.py --tensor-model-parallel-size 2 "
                                        "--pipeline-model-parallel-size 2 --num-layers 32 --hidden-size 4096 "
                                        "--num-attention-heads 32 --seq-length 4096 --micro-batch-size 1 "
                                        "--global-batch-size 256 --bf16 --vocab-size 32000\n";
  const std::map<std::string, std::string> runs{
      {"calibrate", "calibrate " + log + " --out " + (dir / "profile.json")},
      {"collective", "collective --min 1M --max 4M"},
      {"compare", "compare " + log},
      {"explain", "explain"},
      {"failures", "failures --runs 20"},
      {"import", "import " + (dir / "pretrain.sh") + " --nodes 4"},
      {"merge", "merge " + (dir / "shard1.json") + " " + (dir / "shard2.json")},
      {"plan", "plan --deadline-days 50 --gpus h100-sxm --min-gpus 16 --max-gpus 16 --topologies rail_optimized"},
      {"run", "run"},
      {"sweep", "sweep scenarios/seed/twelve-layouts.json"},
      {"tco", "tco scenarios/seed/rent-vs-build.json --runs 20"},
      {"topo", "topo"},
      {"validate", "validate"},
  };
  for (const std::string& name : command_names()) {
    CAPTURE(name);
    REQUIRE(runs.contains(name));
    const auto outcome = run_clustersim(runs.at(name) + " --json --quiet");
    CAPTURE(outcome.err);
    REQUIRE(outcome.exit_code == 0);
    CHECK(outcome.err.empty());
    // parse() reads the whole text: a second object or any trailing text would throw.
    nlohmann::json j;
    CHECK_NOTHROW(j = nlohmann::json::parse(outcome.out));
    CHECK(j.is_object());
  }
}

TEST_CASE("command consistency: --quiet drops the notes, not the output") {
  // A file spelling out one H100 figure, switched to the H200: the loader notes the kept figure.
  const TempDir dir;
  const std::string file = dir / "h100.json";
  std::ofstream(file) << R"({"model": {"preset": "llama3-70b"},
    "cluster": {"gpu": {"preset": "h100-sxm", "hbm_tb_per_s": 3.35}, "num_gpus": 256}})";
  for (const std::string command : {"run", "topo", "collective", "failures --runs 5"}) {
    CAPTURE(command);
    const std::string words = command + " " + file + " --set cluster.gpu=h200-sxm";
    const auto noisy = run_clustersim(words);
    const auto quiet = run_clustersim(words + " --quiet");
    REQUIRE(noisy.exit_code == 0);
    REQUIRE(quiet.exit_code == 0);
    CHECK(noisy.err.find("clustersim: note: " + file + ": /cluster/gpu/hbm_tb_per_s = 3.35 is kept") != std::string::npos);
    CHECK(quiet.err.empty());
    CHECK(quiet.out == noisy.out);
  }
}
