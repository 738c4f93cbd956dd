#pragma once
/// The rows `clustersim sweep` and `clustersim merge` rank and print: one per layout, with its
/// simulated figures, its memory and whether it fits, or why it could not be run.
/// Ranking: layouts that fit, fastest step first; then simulated layouts that do not fit; then
/// layouts set apart before simulating because they cannot fit (least memory first); then invalid
/// ones. Ties keep enumeration order, so the order never depends on threads or shards.
/// Every figure is written to JSON with full precision, so a sharded search merged from its shard
/// files prints byte for byte what one run prints.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/layout_search.hpp"
#include "models/step_model.hpp"

namespace clustersim::tools {

enum class RowStatus {
  simulated,  // step figures present
  too_large,  // not simulated: the memory estimate already exceeds the GPU
  invalid,    // the layout breaks a rule (reason says which)
  pruned,     // fits, not simulated: its step-time lower bound (step_time_s) ranks it below the rows shown
};

struct SweepRow {
  std::size_t index = 0;   // position in the config list or the enumeration
  std::string name{};      // config name; empty in a search (the layout columns say it)
  models::Layout layout{};
  RowStatus status = RowStatus::simulated;
  double step_time_s = 0.0;
  double tokens_per_s_per_gpu = 0.0;
  double mfu = 0.0;
  double bubble_fraction = 0.0;
  double exposed_comm_fraction = 0.0;
  double memory_bytes = 0.0;  // peak stage, per GPU
  bool fits = false;
  std::string reason{};       // why it does not fit or is invalid; what limits memory otherwise
};

/// What the rows were computed from: printed above the table and checked by merge.
struct SweepHeader {
  std::string mode{};          // "configs" or "search"
  std::string scenario{};      // scenario name
  std::string fingerprint{};   // of the normalised scenario and the search options
  std::string cluster{};       // "256 x h100-sxm (32 nodes of 8)"
  std::string model{};
  double hbm_bytes = 0.0;      // per GPU
  std::size_t shard_index = 1; // 1-based
  std::size_t shard_count = 1;
};

/// A row from one simulated (or memory-estimated) layout.
SweepRow row_from_report(std::size_t index, const models::Layout& layout, const models::StepReport& report,
                         const models::GpuSpec& gpu);
/// A layout that fits but was set apart by its lower bound on the step time (run_search).
SweepRow row_pruned(std::size_t index, const models::Layout& layout, const models::PeakMemory& memory, double bound_s,
                    const models::GpuSpec& gpu);
SweepRow row_too_large(std::size_t index, const models::Layout& layout, const models::PeakMemory& memory,
                       const models::GpuSpec& gpu);

/// The memory verdict: "71.3 of 77.2 GiB usable" or "needs 92.1 GiB, 77.2 usable: activations
/// 48.0 GiB on stage 0".
std::string memory_reason(const models::MemoryBreakdown& memory, std::int64_t stage, bool fits,
                          const models::GpuSpec& gpu);

/// Sorts rows into rank order (see the header comment).
void rank_rows(std::vector<SweepRow>& rows);

/// "TP8 PP4 DP8 CP2 vp5 mb1 SP ZeRO-1 selective"
std::string layout_label(const models::Layout& layout);

struct TableOptions {
  std::size_t top = 0;  // rows to print; 0: all
};

/// The ranked rows as text (rows already ranked).
std::string sweep_text(const SweepHeader& header, const std::vector<SweepRow>& rows, const TableOptions& options);
/// One JSON object: the header, counts and the first `top` ranked rows (all with top = 0).
nlohmann::ordered_json sweep_json(const SweepHeader& header, const std::vector<SweepRow>& rows,
                                  const TableOptions& options);
/// Every row as CSV, in rank order, with a header line.
std::string sweep_csv(const std::vector<SweepRow>& rows);

/// Reads back what sweep_json wrote (for merge). Throws std::runtime_error on malformed input.
void read_sweep_json(const nlohmann::json& document, SweepHeader& header, std::vector<SweepRow>& rows);

/// A stable 64-bit FNV-1a hash as 16 hex digits (std::hash differs between library versions).
std::string fingerprint(std::string_view text);

}  // namespace clustersim::tools
