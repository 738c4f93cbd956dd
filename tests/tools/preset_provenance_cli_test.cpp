// Through the built binary: --print-scenario keeps which preset fields were written explicitly,
// a --set of another GPU preset keeps them and takes the rest from the new preset, and a file that
// spells out the old preset's figures gets a note on stderr for each it keeps (issue 22). Figures
// from scenarios/presets/gpus/h100-sxm.json and h200-sxm.json.

#include <doctest/doctest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

using nlohmann::json;

// Every line of `text` (each ending in '\n').
std::vector<std::string> text_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string::npos) break;
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

TEST_CASE("cli: an explicit 989 is kept over a --set of the H200, which gives its 150.1 GB of HBM") {
  const TempDir dir;
  std::ofstream(dir / "own.json") << R"({"model": {"preset": "llama3-70b"},
    "cluster": {"gpu": {"preset": "h100-sxm", "bf16_tflops": 989}, "num_gpus": 256}})";
  const Outcome printed = run_clustersim("run '" + dir / "own.json" + "' --print-scenario");
  REQUIRE(printed.exit_code == 0);
  CHECK(json::parse(printed.out).at("cluster").at("gpu") == json{{"preset", "h100-sxm"}, {"bf16_tflops", 989}});
  // print -> read -> print: byte for byte.
  std::ofstream(dir / "printed.json") << printed.out;
  const Outcome reprinted = run_clustersim("run '" + dir / "printed.json" + "' --print-scenario");
  REQUIRE(reprinted.exit_code == 0);
  CHECK(reprinted.out == printed.out);

  const Outcome h200 = run_clustersim("run '" + dir / "own.json" + "' --set cluster.gpu=h200-sxm --print-scenario");
  REQUIRE(h200.exit_code == 0);
  CHECK(json::parse(h200.out).at("cluster").at("gpu") == json{{"preset", "h200-sxm"}, {"bf16_tflops", 989}});
  // The HBM it then simulates with is the H200's: the H200 scenario written out in full runs alike.
  std::ofstream(dir / "h200.json") << R"({"model": {"preset": "llama3-70b"},
    "cluster": {"gpu": {"preset": "h200-sxm", "bf16_tflops": 989, "hbm_gb": 150.1, "hbm_tb_per_s": 4.8},
                "num_gpus": 256}})";
  const Outcome via_set = run_clustersim("run '" + dir / "own.json" + "' --set cluster.gpu=h200-sxm --json");
  const Outcome written = run_clustersim("run '" + dir / "h200.json" + "' --json");
  REQUIRE(via_set.exit_code == 0);
  REQUIRE(written.exit_code == 0);
  CHECK(via_set.out == written.out);
  CHECK(via_set.out != run_clustersim("run '" + dir / "own.json" + "' --json").out);
}

TEST_CASE("cli: a fully spelled-out H100 file with --set cluster.gpu=h200-sxm notes the kept figures on stderr") {
  const TempDir dir;
  const std::string file = dir / "old.json";
  std::ofstream(file) << R"({"model": {"preset": "llama3-70b"},
    "cluster": {"gpu": {"preset": "h100-sxm", "bf16_tflops": 989, "fp8_tflops": 1979, "hbm_gb": 85.0,
                        "hbm_tb_per_s": 3.35, "nvlink_gb_per_s": 450, "power_w": 700},
                "num_gpus": 256, "gpus_per_node": 8},
    "parallelism": {"tp": 8, "pp": 4}})";
  for (const std::string format : {"", " --json"}) {
    CAPTURE(format);
    const Outcome outcome = run_clustersim("run '" + file + "' --set cluster.gpu=h200-sxm" + format);
    REQUIRE(outcome.exit_code == 0);
    CHECK(text_lines(outcome.err) ==
          std::vector<std::string>{"clustersim: note: " + file +
                                       ": /cluster/gpu/hbm_gb = 85 is kept from the file (h100-sxm's own value); "
                                       "remove it to take h200-sxm's 150.1",
                                   "clustersim: note: " + file +
                                       ": /cluster/gpu/hbm_tb_per_s = 3.35 is kept from the file (h100-sxm's own "
                                       "value); remove it to take h200-sxm's 4.8"});
    if (!format.empty()) CHECK(json::parse(outcome.out).is_object());  // stdout: the one JSON object
  }
  // Without a change of preset, nothing to say.
  const Outcome same = run_clustersim("run '" + file + "' --set training.seq_len=2048 --json");
  REQUIRE(same.exit_code == 0);
  CHECK(same.err.empty());
}

}  // namespace
}  // namespace clustersim::test
