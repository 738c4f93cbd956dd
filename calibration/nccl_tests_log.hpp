#pragma once
/// nccl-tests text logs (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf,
/// sendrecv_perf) and calibration/bench/nccl_bench, which prints the same layout: the
/// "# nThread ..." header, one "#  Rank r ... on HOST device d [bus] NAME" line per rank, an
/// optional "NCCL version" line, the table (size, count, type, redop, root, then time, algbw,
/// busbw, #wrong out of place and in place) and "# Avg bus bandwidth : x". A table published
/// without the header and the Rank lines (a README's excerpt) is read when a "# ranks: N on M
/// nodes" line states its layout; beside Rank lines that line must agree with them.
/// Units: bytes, microseconds, GB/s (1e9 bytes/s), as printed.
/// The collective is inferred from the table itself: size / (count x type size) is 1 for
/// all-reduce and send/recv and the rank count for the others (nccl-tests prints the per-rank
/// count), redop "none" marks all-gather and all-to-all, and busbw / algbw is the collective's bus
/// factor. A `*_perf` command name or a "# collective: NAME" line in the log narrows it further;
/// where all that leaves more than one (all-gather vs all-to-all; all-reduce vs send/recv on 2
/// ranks), the caller must name it.
/// Limitations: rooted collectives (broadcast, reduce, gather, scatter) and hypercube/alltoallv are
/// rejected; ranks must sit evenly on their hosts; lines that are not part of the log (MPI, NCCL
/// INFO chatter) are skipped unless they start like a table row.
/// Source: layout of NVIDIA/nccl-tests src/common.cu and the *_perf test files (count column =
/// the collective's per-rank parameter count, busbw = algbw x bus factor per PERFORMANCE.md).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/comm/collectives.hpp"

namespace clustersim::calibration {

/// "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv".
std::string_view collective_name(models::CollectiveOp op);
/// Accepts the names above, nccl-tests' spellings ("allreduce", "alltoall", "sendrecv") and the
/// binaries' names ("all_reduce_perf"); nullopt otherwise.
std::optional<models::CollectiveOp> parse_collective_name(std::string_view name);

struct NcclTestsTiming {
  double time_us = 0.0;
  double algbw_gb_per_s = 0.0;
  double busbw_gb_per_s = 0.0;
};

struct NcclTestsRow {
  int line = 0;  // 1-based line in the file
  std::int64_t size_bytes = 0;
  std::int64_t count = 0;
  std::string type{};   // "float", "bfloat16", ...
  std::string redop{};  // "sum", "none"; empty in logs of old nccl-tests that had no such column
  std::int64_t root = -1;
  NcclTestsTiming out_of_place{};
  std::optional<NcclTestsTiming> in_place{};

  /// The faster of the two placements: interference only ever slows a run down.
  double best_time_us() const;
};

struct NcclTestsLog {
  std::string file{};
  models::CollectiveOp op = models::CollectiveOp::all_reduce;
  std::string op_evidence{};  // why this collective: "table columns", "all_reduce_perf on line 1", ...
  std::int64_t ranks = 0;
  std::int64_t nodes = 0;  // distinct host names
  std::int64_t gpus_per_node = 0;
  std::vector<std::string> hosts{};  // in order of first appearance
  std::string device_name{};         // of rank 0, e.g. "NVIDIA H100 80GB HBM3"
  std::string nccl_version{};        // "" where the log does not show it
  int threads = 0;                 // from the "# nThread" header
  int gpus_per_thread = 0;
  int warmup_iters = 0;
  int iters = 0;
  std::vector<NcclTestsRow> rows{};
  std::optional<double> avg_busbw_gb_per_s{};
};

/// Parses a log's text; `file` names it in errors. `op` overrides the inferred collective (it must
/// agree with the table). Throws InputError "<file>:<line>: <rule>".
NcclTestsLog parse_nccl_tests_log(std::string_view text, const std::string& file,
                                  std::optional<models::CollectiveOp> op = std::nullopt);

/// Reads and parses a log file (errors name the path as given).
NcclTestsLog read_nccl_tests_log(const std::filesystem::path& path,
                                 std::optional<models::CollectiveOp> op = std::nullopt);

/// True for a line that marks an nccl-tests log: its "# nThread" header, or the "# ranks:" line of a
/// table published without it.
bool is_nccl_tests_marker_line(std::string_view line);

/// True when the text has such a line: how `calibrate` tells these logs from JSON lines.
bool looks_like_nccl_tests_log(std::string_view text);

}  // namespace clustersim::calibration
