#pragma once
/// The rows `clustersim sweep`, `clustersim merge` and `clustersim plan` rank: one per layout, with
/// its simulated figures, its memory and whether it fits, or why it could not be run.
/// Ranking: layouts that fit, by the slow end of their band (planning/validation/prediction_bands.hpp),
/// then by the point estimate; then simulated layouts that do not fit, likewise; then
/// layouts set apart before simulating because they cannot fit (least memory first); then invalid
/// ones. Ties keep enumeration order, so the order never depends on threads or shards.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "models/step/step_model.hpp"
#include "planning/search/layout_search.hpp"
#include "planning/validation/prediction_bands.hpp"

namespace clustersim::planning {


enum class RowStatus {
  simulated,  // step figures present
  too_large,  // not simulated: the memory estimate already exceeds the GPU
  invalid,    // the layout breaks a rule (reason says which)
  pruned,     // fits, not simulated: its step-time lower bound (step_time_s) ranks it below the rows shown
};

struct SweepRow {
  std::size_t index = 0;   // position in the config list or the enumeration
  std::string name{};      // config name; empty in a search (the layout columns say it)
  Layout layout{};
  RowStatus status = RowStatus::simulated;
  double step_time_s = 0.0;
  StepBand band{};         // of step_time_s; pruned: the bound, and its slow end
  double tokens_per_s_per_gpu = 0.0;
  double mfu = 0.0;
  double bubble_fraction = 0.0;
  double exposed_comm_fraction = 0.0;
  double memory_bytes = 0.0;  // peak stage, per GPU
  bool fits = false;
  std::string reason{};       // why it does not fit or is invalid; what limits memory otherwise
  // > 0: re-simulated under the flow fidelity after the analytic ranking (flow_rerank.hpp), whose
  // step this was; the figures above are then the flow step's.
  double analytic_step_s = 0.0;
};

/// What the rows were computed from: printed above the table and checked by merge.
struct SweepHeader {
  std::string mode{};          // "configs" or "search"
  std::string scenario{};      // scenario name
  std::string fingerprint{};   // of the normalised scenario and the search options
  std::string cluster{};       // "256 x h100-sxm (32 nodes of 8)"
  std::string model{};
  double hbm_bytes = 0.0;      // per GPU
  std::string band_source{};   // the validation CSV the bands come from; empty: no bands
  ProfileWidening widening{};  // the fitted constants' share of every band
  std::size_t shard_index = 1; // 1-based
  std::size_t shard_count = 1;
  std::size_t flow_check = 0;  // the first rows checked under the flow fidelity (flow_rerank.hpp); 0: none
  std::size_t flow_runs = 0;   // the flow simulations that took
};

/// A row from one simulated (or memory-estimated) layout.
SweepRow row_from_report(std::size_t index, const Layout& layout, const models::StepReport& report,
                         const models::GpuSpec& gpu);
/// A layout that fits but was set apart by its lower bound on the step time (run_search).
SweepRow row_pruned(std::size_t index, const Layout& layout, const planning::PeakMemory& memory, double bound_s,
                    const models::GpuSpec& gpu);
SweepRow row_too_large(std::size_t index, const Layout& layout, const planning::PeakMemory& memory,
                       const models::GpuSpec& gpu);

/// The memory verdict: "71.3 of 77.2 GiB usable" or "needs 92.1 GiB, 77.2 usable: activations
/// 48.0 GiB on stage 0".
std::string memory_reason(const models::MemoryBreakdown& memory, std::int64_t stage, bool fits,
                          const models::GpuSpec& gpu);

/// Sorts rows into rank order (see the header comment).
void rank_rows(std::vector<SweepRow>& rows);

/// For each of the first `shown` ranked rows, the ranks (1-based, increasing) of the others among
/// them it ties with: both fit, both were simulated and their bands overlap (neither's fast end
/// above the other's slow end). Empty for a row that does not fit or was not simulated.
std::vector<std::vector<std::size_t>> band_ties(const std::vector<SweepRow>& rows, std::size_t shown);

/// "TP8 PP4 DP8 CP2 vp5 mb1 SP ZeRO-1 selective"
std::string layout_label(const Layout& layout);

/// 0: fits (simulated or pruned), 1: simulated but does not fit, 2: too large, 3: invalid.
int rank_class(const SweepRow& row);

struct SweepCounts {
  std::size_t fit = 0, simulated_too_large = 0, too_large = 0, invalid = 0;
  std::size_t pruned = 0;  // of `fit`: bounded out of the rows shown, not simulated
};
SweepCounts count_rows(const std::vector<SweepRow>& rows);

constexpr std::string_view status_name(RowStatus s) {
  switch (s) {
    case RowStatus::simulated: return "simulated";
    case RowStatus::too_large: return "too_large";
    case RowStatus::invalid: return "invalid";
    case RowStatus::pruned: return "pruned";
  }
  return "?";
}

/// The normalised scenario's and the search options' fingerprint: FNV-1a of the text as 16 hex
/// digits (std::hash differs between library versions).
std::string fingerprint(std::string_view text);

}  // namespace clustersim::planning
