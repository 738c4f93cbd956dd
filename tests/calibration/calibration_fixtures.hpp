#pragma once
// Shared by the calibration tests: where their data lives, and a writer of small nccl-tests logs.

#include <cstdint>
#include <string>
#include <vector>

namespace clustersim::calibration::test {

// A file under tests/calibration/data/ (copies of the real logs; the tests never read ../shared).
inline std::string data_path(const std::string& name) {
  return std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/calibration/data/" + name;
}

// The header and rank lines of an nccl-tests log for `ranks` ranks, `per_host` on each host
// ("host0", "host1", ...), then `table` (rows as nccl-tests prints them) and an average line.
inline std::string nccl_log(int ranks, int per_host, const std::vector<std::string>& table,
                            const std::string& extra_header = "") {
  std::string text = extra_header;
  text += "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
          "validation: 1 graph: 0\n#\n# Using devices\n";
  for (int r = 0; r < ranks; ++r) {
    text += "#  Rank " + std::to_string(r) + " Group  0 Pid " + std::to_string(1000 + r) + " on host" +
            std::to_string(r / per_host) + " device " + std::to_string(r % per_host) +
            " [0x00] NVIDIA H100 80GB HBM3\n";
  }
  text += "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   "
          "busbw #wrong\n";
  for (const auto& row : table) text += row + "\n";
  text += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 1.0\n#\n";
  return text;
}

}  // namespace clustersim::calibration::test
