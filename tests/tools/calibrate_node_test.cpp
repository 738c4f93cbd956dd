// tools/calibrate-node without a GPU: stand-in benchmark binaries that print their arguments and
// the NCCL environment they ran under, to check which runs the script makes and where it puts them.

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

// A bench binary that prints one line: its name, NCCL's CTA limits and its arguments.
void write_stand_in(const std::string& path, const std::string& name) {
  std::ofstream script(path);
  script << "#!/usr/bin/env bash\n"
         << "echo \"" << name << " min_ctas=${NCCL_MIN_CTAS:-unset} max_ctas=${NCCL_MAX_CTAS:-unset} $*\"\n";
  script.close();
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

TEST_CASE("calibrate-node: the CTA-held collectives run under NCCL's limits, in a folder calibrate does not read") {
  const TempDir dir;
  std::filesystem::create_directories(dir / "build/bench");
  for (const char* tool : {"gemm_bench", "membw_bench", "nccl_bench", "overlap_bench"})
    write_stand_in(dir / (std::string("build/bench/") + tool), tool);
  const Outcome outcome = run_shell("'" + std::string(CLUSTERSIM_SOURCE_DIR) + "/tools/calibrate-node' --build '" +
                                    (dir / "build") + "' --out '" + (dir / "out") + "' --no-calibrate");
  INFO(outcome.err);
  REQUIRE(outcome.exit_code == 0);

  // The node's own curves: NCCL left to choose its channels.
  const std::string all_reduce = read_text(dir / "out/nccl_all_reduce.txt");
  CHECK(all_reduce.find("nccl_bench min_ctas=unset max_ctas=unset --op all_reduce") != std::string::npos);
  // Each limited run holds NCCL to exactly that many CTAs.
  for (const char* ctas : {"1", "8"}) {
    for (const char* op : {"sendrecv", "all_gather", "all_reduce"}) {
      const std::string name = std::string("out/cta_limited/nccl_") + op + "_" + ctas + "cta.txt";
      INFO(name);
      const std::string text = read_text(dir / name);
      CHECK(text.find(std::string("min_ctas=") + ctas + " max_ctas=" + ctas + " --op " + op) != std::string::npos);
    }
  }
  // Nothing CTA-held beside the node's curves, where `calibrate "$out"/nccl_*.txt` would take it.
  for (const auto& entry : std::filesystem::directory_iterator(dir / "out")) {
    const std::string file = entry.path().filename().string();
    INFO(file);
    CHECK(file.find("cta.txt") == std::string::npos);
  }
  CHECK(read_text(dir / "out/run.txt").find("NCCL_MAX_CTAS=8") != std::string::npos);
}

}  // namespace
}  // namespace clustersim::test
