#pragma once
/// From raw benchmark results to a calibration profile: reads nccl-tests logs and JSON-lines
/// records, fits the collectives (collective_fit.hpp) and GEMMs (gemm_fit.hpp), and maps the fits
/// onto the step model's constants:
/// - nvlink_efficiency: the busbw the single-node fits predict at their largest measured size /
///   NVLink line rate (all-reduce fits when there are any, else the other collectives; mean over
///   inputs), with the interval of that prediction; on a GPU whose NVSwitch reduces (NVLS), a
///   single-node all-reduce ran NVLS: its algbw / line rate becomes nvls_algbw_efficiency instead;
/// - network_efficiency: the same for multi-node fits / the node's NIC line rate
///   (nics_per_node x nic_gbit_per_s; the logs are assumed to use whole nodes);
/// - launch and hop latencies: the first segment's alpha of fits that reach down to 64 KiB,
///   split into launch + steps x hop with the latency steps models::collective_time_s uses; the
///   launch latency is fitted only when single-node fits with different step counts exist, and is
///   otherwise held at the built-in value (the source says so); one-rank logs (one GPU) take part
///   with zero steps, so a single GPU's logs alone give the launch latency as their mean alpha;
/// - GEMM e_max and k_half from gemm_fit; SM count from a device record; hbm_efficiency from the
///   best membw copy rate (>= 64 MiB) / datasheet HBM bandwidth; each attention kernel's rate
///   (the flash-attn package's and PyTorch's FlashAttention-2, cuDNN and FlashAttention-3 apart)
///   from time = W / rate + t0 over its runs of two call sizes or more, or the mean TFLOP/s / bf16
///   peak of runs without their shape;
/// - the overlap constants from overlap_bench records (overlap_fit.hpp), into the profile's
///   "overlap" section, which is written only when there are such records;
/// - sustained_clock_ratio from clock records (calibration/bench/clock_under_load.py): the SM
///   clock back-to-back bf16 GEMMs hold over their first second's, the clock of the short calls
///   the GEMM and attention rates are fitted to; attention_clock_factor from the attention records:
///   their held / first-second clock over the GEMMs'. Every clock record is reported.
/// Every constant without inputs keeps the built-in value (models::default_compute_profile,
/// default_comm_profile on InfiniBand), its source prefixed "built-in, not calibrated here".
/// Units: SI in the profile; the report carries the inputs' units.
/// Limitations: one efficiency per link class (the step model's); a multi-node all-reduce's busbw
/// maps to network_efficiency as if it ran a ring (tree_efficiency keeps its built-in value);
/// latencies are inferred from the smallest sizes only.
/// Source: the mapping follows models/comm/collectives.hpp and models/compute/compute_profile.hpp.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/collective_fit.hpp"
#include "calibration/gemm_fit.hpp"
#include "calibration/overlap_fit.hpp"
#include "calibration/profile.hpp"

namespace clustersim::calibration {

struct CalibrateOptions {
  std::string gpu{};  // GPU preset name; empty: from the inputs' device names
  std::optional<models::CollectiveOp> collective{};  // for nccl-tests logs whose collective is ambiguous
  CollectiveFitOptions fit{};
  double nic_gbit_per_s = 400.0;  // per NIC, for network_efficiency
  std::int64_t nics_per_node = 8;
  models::Fabric fabric = models::Fabric::infiniband;  // with the two above: the network measured on
  std::string network_source{};  // where that network is stated; recorded in the profile
  bool aws_ofi_tuner = false;     // the logs across nodes ran under the AWS OFI plugin's tuner (implied by efa)
  std::vector<std::string> arguments{};  // recorded in the profile's metadata
  std::string note{};                    // likewise: where and when the inputs were measured
};

struct CollectiveReport {
  CollectiveFit fit{};
  double simulator_max_error = 0.0;  // max |busbw error| of models::collective_time_s with the
                                     // fitted CommProfile, over sizes >= 1 MiB (NaN: none)
};

/// A one-rank log (one GPU): NCCL's fixed cost per call and the local copy rate, no bus.
struct SingleRankReport {
  models::CollectiveOp op = models::CollectiveOp::all_reduce;
  std::string source{};
  AlphaBetaSegment latency{};  // line through the sizes <= 64 KiB: alpha is the per-call cost
  std::int64_t copy_bytes = 0;  // the largest size, and its rate (bytes / time; algbw)
  double copy_gb_per_s = 0.0;
};

struct Calibration {
  CalibrationProfile profile{};
  std::vector<CollectiveReport> collectives{};
  std::vector<SingleRankReport> single_rank{};
  std::optional<GemmFit> gemm{};
  std::optional<OverlapFit> overlap{};
  std::vector<ClockSample> clocks{};  // as read; the report gives each one's held / first-second clock
  std::vector<std::string> notes{};  // what was not fitted, and anything a user should check
};

/// Throws InputError for malformed inputs, ScenarioError for an unknown GPU, std::invalid_argument
/// for inputs that cannot be fitted (naming the file).
Calibration calibrate(std::span<const std::string> inputs, const CalibrateOptions& options);

/// The GPU preset a driver-reported device name stands for ("NVIDIA H100 80GB HBM3" ->
/// "h100-sxm"); "" when none fits.
std::string gpu_preset_for_device(std::string_view device_name);

}  // namespace clustersim::calibration
