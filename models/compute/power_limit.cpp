#include "models/compute/power_limit.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace clustersim::models {
namespace {

// Measured on this project's H200: 111 W in P0 at 0 % utilisation, 38 C, before the benchmarks
// (calibration/measured/h200-2026-11-30/device-log-1.txt). The H100 SXM is the same die and board
// class. No other board's rest draw is measured here: they take the same share of their rated
// limit.
constexpr double kHopperIdleW = 111.0;
constexpr double kHopperRatedW = 700.0;
constexpr std::string_view kHopperIdleSource =
    "measured: an H200 in P0 at rest, 111 W (calibration/measured/h200-2026-11-30/device-log-1.txt); the H100 SXM "
    "is the same die and board class";

Sourced<double> idle_as_hopper_share(double rated_w) {
  return {rated_w * kHopperIdleW / kHopperRatedW,
          fmt::format("assumption: no rest draw measured for this board; the H200's measured share of its limit, "
                      "111 W of 700 (calibration/measured/h200-2026-11-30/device-log-1.txt), of {:.0f} W",
                      rated_w)};
}

}  // namespace

PowerEnvelope power_envelope(std::string_view profile_gpu) {
  if (profile_gpu == "a100-80gb") {
    constexpr double rated = 400.0;
    return {{rated, "NVIDIA A100 datasheet: 400 W (shared reference measurements.md 4); the A100 holds its top "
                    "boost there in GEMM runs (compute_profile.cpp), so this rule is the most a cap can cost it"},
            idle_as_hopper_share(rated)};
  }
  if (profile_gpu == "h100-sxm" || profile_gpu == "h200-sxm") {
    return {{kHopperRatedW, "700 W: the limit under which Hopper holds the profile's 1575 MHz (compute_profile.cpp; "
                            "Llama 3 paper 3.3.1, MLPerf H200 TGP, shared reference measurements.md 4)"},
            {kHopperIdleW, std::string(kHopperIdleSource)}};
  }
  if (profile_gpu == "b200") {
    constexpr double rated = 1000.0;
    return {{rated, "B200 TGP 1000 W (MLPerf inference_results_v6.0 Nebius B200 system description, shared reference "
                    "measurements.md 4): the limit under which it holds the profile's 1580 MHz (flashinfer PR #2899)"},
            idle_as_hopper_share(rated)};
  }
  if (profile_gpu == "gb200") {
    constexpr double rated = 1200.0;
    return {{rated, "1200 W: the GB200's rated board limit (facebookexperimental/triton PR #2023: denoise.sh sets "
                    "each part's cap to its rated power, the GB200's to 1200 W)"},
            idle_as_hopper_share(rated)};
  }
  if (profile_gpu == "b300" || profile_gpu == "gb300") {
    constexpr double rated = 1400.0;
    return {{rated, "1400 W: the Blackwell Ultra GPU's maximum TDP (glennklockwood.com's B300 notes; a GB300 NVL72's "
                    "per GPU, gb300.json's power_w); HGX B300 systems may hold it lower, which cluster.gpu.power_w states"},
            idle_as_hopper_share(rated)};
  }
  throw std::invalid_argument(fmt::format(
      "no power envelope for GPU \"{}\" (have a100-80gb, h100-sxm, h200-sxm, b200, gb200, b300, gb300)", profile_gpu));
}

double power_limited_clock_factor(const PowerEnvelope& envelope, double limit_w) {
  const double rated = envelope.rated_w.value;
  const double idle = envelope.idle_w.value;
  if (limit_w <= 0.0 || limit_w >= rated) return 1.0;
  if (limit_w <= idle) {
    throw std::invalid_argument(fmt::format(
        "a {:g} W power limit is not above the {:.0f} W the board draws at rest: no clock runs under it", limit_w,
        idle));
  }
  return std::cbrt((limit_w - idle) / (rated - idle));
}

}  // namespace clustersim::models
