#include "calibration/apply_profile.hpp"

#include <algorithm>
#include <array>

#include "calibration/profile.hpp"
#include "scenarios/embedded_files.hpp"
#include "scenarios/presets.hpp"
#include "scenarios/scenario_error.hpp"

namespace clustersim::calibration {

std::vector<models::CollectiveCurve> curves_of(const CalibrationProfile& profile) {
  std::vector<models::CollectiveCurve> curves;
  for (const auto& fitted : profile.collectives) curves.push_back(fitted.curve());
  return curves;
}

namespace {

CalibrationProfile load_for(const std::string& path, const models::StepInputs& inputs) {
  CalibrationProfile profile;
  // A bundled profile is the GPU's own, or that of the like part its preset borrows from.
  std::string for_gpu = inputs.cluster.gpu.name;
  if (path == kBundledProfile) {
    for_gpu = scenarios::gpu_compute_profile(for_gpu);
    const std::string name = "calibration/profiles/" + for_gpu + ".json";
    const scenarios::EmbeddedFile* bundled = scenarios::find_embedded_file(name);
    if (!bundled) throw scenarios::ScenarioError("scenario", "/calibration/profile", "no bundled profile for \"" + inputs.cluster.gpu.name + "\"");
    profile = parse_profile(bundled->text, name);
  } else {
    profile = load_profile(path);
  }
  if (profile.gpu != for_gpu) {
    throw scenarios::ScenarioError(path, "/gpu",
                                   "the profile is for \"" + profile.gpu + "\" but the scenario's GPU is \"" +
                                       inputs.cluster.gpu.name + "\"");
  }
  return profile;
}

// Where a constant with an interval sits in the inputs, and whether more of it is faster.
struct BandedConstant {
  std::string_view pointer;
  double* (*member)(models::StepInputs&);
  bool larger_is_faster;
};

constexpr std::array kBanded{
    BandedConstant{"/compute/gemm_max_efficiency_bf16", [](models::StepInputs& in) { return &in.compute.gemm_max_efficiency_bf16.value; }, true},
    BandedConstant{"/compute/gemm_max_efficiency_fp8", [](models::StepInputs& in) { return &in.compute.gemm_max_efficiency_fp8.value; }, true},
    BandedConstant{"/compute/gemm_max_efficiency_fp4", [](models::StepInputs& in) { return &in.compute.gemm_max_efficiency_fp4.value; }, true},
    BandedConstant{"/compute/k_half", [](models::StepInputs& in) { return &in.compute.k_half.value; }, false},
    BandedConstant{"/compute/attention_efficiency", [](models::StepInputs& in) { return &in.compute.attention_efficiency.value; }, true},
    BandedConstant{"/compute/hbm_efficiency", [](models::StepInputs& in) { return &in.compute.hbm_efficiency.value; }, true},
    BandedConstant{"/compute/launch_overhead_s", [](models::StepInputs& in) { return &in.compute.launch_overhead_s.value; }, false},
    BandedConstant{"/compute/attention_cudnn_efficiency", [](models::StepInputs& in) { return &in.compute.attention_cudnn_efficiency.value; }, true},
    BandedConstant{"/compute/attention_flash3_efficiency", [](models::StepInputs& in) { return &in.compute.attention_flash3_efficiency.value; }, true},
    BandedConstant{"/compute/attention_sdpa_flash_efficiency", [](models::StepInputs& in) { return &in.compute.attention_sdpa_flash_efficiency.value; }, true},
    BandedConstant{"/compute/sustained_clock_ratio", [](models::StepInputs& in) { return &in.compute.sustained_clock_ratio.value; }, true},
    BandedConstant{"/comm/nvlink_efficiency", [](models::StepInputs& in) { return &in.comm.nvlink_efficiency; }, true},
    BandedConstant{"/comm/network_efficiency", [](models::StepInputs& in) { return &in.comm.network_efficiency; }, true},
    BandedConstant{"/comm/nvls_algbw_efficiency", [](models::StepInputs& in) { return &in.comm.nvls_algbw_efficiency; }, true},
    BandedConstant{"/comm/launch_latency_s", [](models::StepInputs& in) { return &in.comm.launch_latency_s; }, false},
    BandedConstant{"/comm/nvlink_hop_latency_s", [](models::StepInputs& in) { return &in.comm.nvlink_hop_latency_s; }, false},
    BandedConstant{"/comm/network_hop_latency_s", [](models::StepInputs& in) { return &in.comm.network_hop_latency_s; }, false},
    BandedConstant{"/overlap/sms_held", [](models::StepInputs& in) { return &in.compute.overlap.sms_held.value; }, false},
    BandedConstant{"/overlap/hbm_bytes_per_bus_byte", [](models::StepInputs& in) { return &in.compute.overlap.hbm_bytes_per_bus_byte.value; }, false},
    BandedConstant{"/overlap/copy_hbm_bytes_per_byte", [](models::StepInputs& in) { return &in.compute.overlap.copy_hbm_bytes_per_byte.value; }, false},
};

}  // namespace

std::optional<ProfileBand> profile_band(const std::string& path, const models::StepInputs& applied) {
  const CalibrationProfile profile = load_for(path, applied);
  ProfileBand band{.fast = applied, .slow = applied, .constants = {}};
  for (const auto& c : kBanded) {
    const auto it = profile.ci95.find(c.pointer);
    if (it == profile.ci95.end()) continue;
    const auto [lo, hi] = it->second;
    // An interval may reach below zero (a latency fitted near 0): no constant is negative.
    *c.member(band.fast) = std::max(0.0, c.larger_is_faster ? hi : lo);
    *c.member(band.slow) = std::max(0.0, c.larger_is_faster ? lo : hi);
    band.constants.emplace_back(c.pointer);
  }
  if (band.constants.empty()) return std::nullopt;
  return band;
}

void apply_profile(const std::string& path, models::StepInputs& inputs) {
  CalibrationProfile profile = load_for(path, inputs);
  // A profile that measured no NVFP4 GEMM keeps the built-in figure.
  if (!(profile.compute.gemm_max_efficiency_fp4.value > 0.0))
    profile.compute.gemm_max_efficiency_fp4 = inputs.compute.gemm_max_efficiency_fp4;
  // Nor does a profile carry FP8 attention: the built-in measurement stays.
  profile.compute.fp8_attention = std::move(inputs.compute.fp8_attention);
  inputs.compute = std::move(profile.compute);
  inputs.comm = std::move(profile.comm);
  inputs.comm.curves = curves_of(profile);
  inputs.comm.measured_on = profile.network;
}

}  // namespace clustersim::calibration
