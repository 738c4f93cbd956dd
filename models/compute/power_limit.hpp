#pragma once
/// The tensor-core clock a GPU holds under a board power limit below the one its compute profile
/// stands for (GpuSpec::power_w: Meta runs its Grand Teton H100s at 500 W of 700; operators cap
/// boards to fit a facility).
///
/// A GPU at its power limit runs the clock whose power meets the limit. Board power is a part that
/// does not follow the SM clock (the board in P0 at rest: leakage, HBM, NVLink and board
/// overhead) plus the SMs' switching power C V^2 f; over the DVFS range the supply voltage rises
/// in proportion to the clock, so switching power grows as f^3 (Hennessy & Patterson, Computer
/// Architecture, 6th ed., section 1.5: dynamic power ~ C V^2 f; with V ~ f, ~ f^3). The clock
/// under a limit P below the rated limit R, over the clock under R, is then
///   ((P - idle) / (R - idle))^(1/3),
/// which scales all tensor-core work (the profile's sustained_clock_ratio). Memory-bound kernels
/// keep their rate: a power cap lowers the SM clock, not the memory clock.
/// Assumptions: the GPU sits at its limit under the rated power, as the profile's sustained clock
/// says for Hopper and Blackwell (compute_profile.hpp); the rule holds while the voltage still
/// falls with the clock, down to about half the rated limit (below it voltage sits at its floor
/// and the clock falls faster than this rule says); a limit above the rated one gains nothing
/// (the SXM boards' maximum limit is their rated one).
/// Units: watts; the factor is a fraction.

#include <string_view>

#include "models/compute/sourced.hpp"

namespace clustersim::models {

struct PowerEnvelope {
  Sourced<double> rated_w;  // the board limit under which the profile's sustained clock holds
  Sourced<double> idle_w;   // drawn whatever the SM clock: the board in P0 at rest
};

/// The envelope of a bundled compute profile's GPU ("a100-80gb", "h100-sxm", "h200-sxm", "b200",
/// "gb200", "b300", "gb300"). Throws std::invalid_argument on other names.
PowerEnvelope power_envelope(std::string_view profile_gpu);

/// The clock under a board limit of `limit_w` over the clock under the rated limit: 1 where
/// `limit_w` is 0 (unknown) or at least the rated limit. Throws std::invalid_argument where
/// `limit_w` is positive and not above the idle draw (no clock can run there).
double power_limited_clock_factor(const PowerEnvelope& envelope, double limit_w);

}  // namespace clustersim::models
