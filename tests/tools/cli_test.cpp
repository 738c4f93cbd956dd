#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "scenarios/scenario_io.hpp"
#include "tools/cli.hpp"

namespace {

struct Outcome {
  int exit_code = -1;
  std::string out{};
  std::string err{};
};

std::string read_file(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Runs the built binary through the shell (from `cwd`), capturing stdout and stderr apart.
Outcome run_binary(const std::string& arguments, const std::string& cwd = ".") {
  // Tests may run in parallel (ctest -j): the process id keeps the capture files apart.
  const auto base = std::filesystem::temp_directory_path() /
                    ("clustersim-cli-test-" + std::to_string(::getpid()));
  const std::string out = base.string() + ".out";
  const std::string err = base.string() + ".err";
  const std::string command = "cd '" + cwd + "' && '" + std::string(CLUSTERSIM_BINARY) + "' " +
                              arguments + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  Outcome outcome{.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                  .out = read_file(out),
                  .err = read_file(err)};
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return outcome;
}

// A failed command: exit code 2, one line on stderr, nothing on stdout.
void check_fails_cleanly(const Outcome& outcome, const std::string& expected_in_message) {
  CAPTURE(outcome.err);
  CHECK(outcome.exit_code == 2);
  CHECK(outcome.out.empty());
  CHECK(outcome.err.starts_with("clustersim: error: "));
  CHECK(outcome.err.find('\n') == outcome.err.size() - 1);
  CHECK(outcome.err.find(expected_in_message) != std::string::npos);
}

TEST_CASE("cli: --version and --help") {
  const Outcome version = run_binary("--version");
  CHECK(version.exit_code == 0);
  CHECK(version.out == "clustersim 0.1.0\n");
  const Outcome help = run_binary("--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("explain") != std::string::npos);
  CHECK(help.out.find("run") != std::string::npos);
  const Outcome run_help = run_binary("run --help");
  CHECK(run_help.exit_code == 0);
  CHECK(run_help.out.starts_with("Usage: clustersim run [SCENARIO]"));
  CHECK(run_help.out.find("--set") != std::string::npos);
}

TEST_CASE("cli: explain --json prints exactly one JSON object") {
  const Outcome outcome = run_binary("explain --json");
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.err.empty());
  const auto document = nlohmann::json::parse(outcome.out);  // throws on trailing text
  REQUIRE(document.is_object());
  CHECK(document.at("keys").size() > 40);
  CHECK(document.at("keys").at(0).at("pointer") == "/name");
  CHECK(document.at("presets").at("gpu").size() == 5);
}

TEST_CASE("cli: run --print-scenario --json prints the normalised scenario, from any directory") {
  // From / the source tree is out of reach: presets must be compiled in.
  const Outcome outcome = run_binary(
      "run --print-scenario --json --set parallelism.tp=4 --set parallelism.dp=16", "/");
  REQUIRE(outcome.exit_code == 0);
  const auto document = nlohmann::json::parse(outcome.out);
  REQUIRE(document.is_object());
  const auto scenario = clustersim::scenarios::load_scenario_text(
      document.at("scenario").dump(), "output");
  CHECK(scenario == clustersim::scenarios::default_scenario(
                        {"parallelism.tp=4", "parallelism.dp=16"}));
}

TEST_CASE("cli: a scenario file given on the command line is loaded") {
  const auto path = std::filesystem::temp_directory_path() /
                    ("clustersim-cli-scenario-" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << R"({"name": "small", "model": {"preset": "llama3-8b"},
                             "cluster": {"gpu": "h100-sxm", "num_gpus": 8}})";
  const Outcome outcome = run_binary("run '" + path.string() + "' --print-scenario --json");
  std::filesystem::remove(path);
  REQUIRE(outcome.exit_code == 0);
  const auto scenario = nlohmann::json::parse(outcome.out).at("scenario");
  CHECK(scenario.at("name") == "small");
  CHECK(scenario.at("parallelism").at("dp") == 8);
}

TEST_CASE("cli: bad input exits 2 with one line on stderr and nothing on stdout") {
  check_fails_cleanly(run_binary("run /nonexistent/scenario.json"),
                      "/nonexistent/scenario.json: no such file");
  check_fails_cleanly(run_binary("run --set parallelism.tp=-2"),
                      "default scenario: /parallelism/tp: must be a positive integer, got -2");
  check_fails_cleanly(run_binary("run --json --set cluster.nic_gbps=1"),
                      "unknown key (did you mean nic_gbit_per_s?)");
  check_fails_cleanly(run_binary("frobnicate"), "unknown command 'frobnicate'");
  check_fails_cleanly(run_binary("--frobnicate"), "unknown option '--frobnicate'");
  check_fails_cleanly(run_binary(""), "no command given");
  check_fails_cleanly(run_binary("run --jsn"), "run: unrecognised option '--jsn'");
  check_fails_cleanly(run_binary("run a.json b.json"), "too many positional options");
  check_fails_cleanly(run_binary("run --set"), "run: the required argument for option '--set'");
  check_fails_cleanly(run_binary("explain extra"), "explain:");
}

TEST_CASE("cli: run_cli in-process buffers output, so a failure prints nothing on stdout") {
  std::ostringstream out;
  std::ostringstream err;
  const std::vector<std::string> args = {"run", "--set", "training.schedule=interleaved"};
  CHECK(clustersim::tools::run_cli(args, out, err) == 2);
  CHECK(out.str().empty());
  CHECK(err.str() ==
        "clustersim: error: default scenario: /training/schedule: \"interleaved\" needs "
        "parallelism.vp > 1\n");
}

}  // namespace
