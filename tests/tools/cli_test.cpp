#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenarios/scenario_io.hpp"
#include "tests/tools/cli_runner.hpp"
#include "tools/cli.hpp"

namespace {

using clustersim::test::check_fails_cleanly;
using clustersim::test::Outcome;
using clustersim::test::run_clustersim;

TEST_CASE("cli: --version and --help") {
  const Outcome version = run_clustersim("--version");
  CHECK(version.exit_code == 0);
  CHECK(version.out == "clustersim 0.1.0\n");
  const Outcome help = run_clustersim("--help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("explain") != std::string::npos);
  CHECK(help.out.find("run") != std::string::npos);
  const Outcome run_help = run_clustersim("run --help");
  CHECK(run_help.exit_code == 0);
  CHECK(run_help.out.starts_with("Usage: clustersim run [SCENARIO]"));
  CHECK(run_help.out.find("--set") != std::string::npos);
}

TEST_CASE("cli: explain --json prints exactly one JSON object") {
  const Outcome outcome = run_clustersim("explain --json");
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.err.empty());
  const auto document = nlohmann::json::parse(outcome.out);  // throws on trailing text
  REQUIRE(document.is_object());
  CHECK(document.at("keys").size() > 40);
  CHECK(document.at("keys").at(0).at("pointer") == "/name");
  CHECK(document.at("presets").at("gpu").size() == 8);
}

TEST_CASE("cli: run --print-scenario --json prints the normalised scenario, from any directory") {
  // From / the source tree is out of reach: presets must be compiled in.
  const Outcome outcome = run_clustersim(
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
  const Outcome outcome = run_clustersim("run '" + path.string() + "' --print-scenario --json");
  std::filesystem::remove(path);
  REQUIRE(outcome.exit_code == 0);
  const auto scenario = nlohmann::json::parse(outcome.out).at("scenario");
  CHECK(scenario.at("name") == "small");
  CHECK(scenario.at("parallelism").at("dp") == 8);
}

TEST_CASE("cli: bad input exits 2 with one line on stderr and nothing on stdout") {
  check_fails_cleanly(run_clustersim("run /nonexistent/scenario.json"),
                      "/nonexistent/scenario.json: no such file");
  check_fails_cleanly(run_clustersim("run --set parallelism.tp=-2"),
                      "default scenario: /parallelism/tp: must be an integer in 1..1048576, got -2");
  check_fails_cleanly(run_clustersim("run --json --set cluster.nic_gbps=1"),
                      "unknown key (did you mean nic_gbit_per_s?)");
  check_fails_cleanly(run_clustersim("frobnicate"), "unknown command 'frobnicate'");
  check_fails_cleanly(run_clustersim("--frobnicate"), "unknown option '--frobnicate'");
  check_fails_cleanly(run_clustersim(""), "no command given");
  check_fails_cleanly(run_clustersim("run --jsn"), "run: unrecognised option '--jsn'");
  check_fails_cleanly(run_clustersim("run a.json b.json"), "too many positional options");
  check_fails_cleanly(run_clustersim("run --set"), "run: the required argument for option '--set'");
  check_fails_cleanly(run_clustersim("explain extra"), "explain:");
  check_fails_cleanly(run_clustersim("run --set training.precision=fp8 --set training.fp8_recipe=mxfp8"),
                      "/training/fp8_recipe: mxfp8 needs a Blackwell GPU (b200, gb200, b300, gb300)");
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

TEST_CASE("cli: import reads the NCCL options file a Megatron-LM script names, beside the script") {
  const clustersim::test::TempDir dir;
  std::ofstream(dir / "pretrain.sh")
      << "torchrun --nnodes 4 --nproc-per-node 8 pretrain_gpt.py --num-layers 32 --hidden-size 4096 "
         "--num-attention-heads 32 --seq-length 8192 --max-position-embeddings 8192 --tensor-model-parallel-size 2 "
         "--context-parallel-size 2 --global-batch-size 64 --vocab-size 32000 "
         "--nccl-communicator-config-path nccl.yaml\n";
  const std::string command = "import " + (dir / "pretrain.sh") + " --json";
  const Outcome without = run_clustersim(command);
  REQUIRE(without.exit_code == 0);
  CHECK(nlohmann::json::parse(without.out)["scenario"]["parallelism"]["cp_max_ctas"] == 0);
  std::ofstream(dir / "nccl.yaml") << "cp:\n  max_ctas: 2\n";
  const Outcome with = run_clustersim(command);
  REQUIRE(with.exit_code == 0);
  CHECK(nlohmann::json::parse(with.out)["scenario"]["parallelism"]["cp_max_ctas"] == 2);
}

}  // namespace

TEST_CASE("cli: run --ops lists the compute op by op, in the text and as the JSON's ops array") {
  const auto text = clustersim::test::run_clustersim("run --ops");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("qkv_proj") != std::string::npos);
  CHECK(text.out.find("layer backward total") != std::string::npos);
  const auto with = clustersim::test::run_clustersim("run --ops --json");
  REQUIRE(with.exit_code == 0);
  const auto j = nlohmann::json::parse(with.out);  // exactly one object
  REQUIRE(j.at("ops").is_array());
  const auto& first = j.at("ops").front();
  CHECK(first.at("part") == "embedding forward");
  bool qkv = false;
  for (const auto& op : j.at("ops")) {
    if (op.at("name") != "qkv_proj" || op.at("part") != "layer forward") continue;
    qkv = true;
    // The default Llama 3 70B at TP 8: 4096 tokens x (8192 + 2 x 1024) / 8 outputs x 8192 inputs.
    CHECK(op.at("gemm").at("n") == 1280);
    CHECK(op.at("flops").get<double>() == doctest::Approx(2.0 * 4096 * 1280 * 8192));
    CHECK(op.at("tflops_per_s").get<double>() ==
          doctest::Approx(op.at("flops").get<double>() / op.at("time_s").get<double>() / 1e12));
  }
  CHECK(qkv);
  const auto without = clustersim::test::run_clustersim("run --json");
  REQUIRE(without.exit_code == 0);
  CHECK_FALSE(nlohmann::json::parse(without.out).contains("ops"));
}
