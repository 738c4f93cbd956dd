#pragma once
/// Closed-form checkpoint intervals and the waste they imply, to set next to the simulated ones.
/// Notation: delta = training time blocked per checkpoint, M = the job's mean time to interrupt,
/// R = restart time, tau = compute time between checkpoints; all in seconds.
/// Limitations: exponential failures, fixed delta and R; Young is first order in delta / M; Daly
/// adds higher-order terms and lets failures strike during checkpoints and restarts.
/// Source: Young, CACM 17(9):530, 1974; Daly, FGCS 22(3):303, 2006; first-order waste as in shared
/// reference training-math.md ("Failures and checkpoints") and costs-topology-failures.md 4.4.

namespace clustersim::models {

/// tau = sqrt(2 delta M).
double young_interval_s(double delta_s, double mtti_s);

/// tau = sqrt(2 delta M) [1 + sqrt(delta / 2M) / 3 + (delta / 2M) / 9] - delta for delta < 2M,
/// else M.
double daly_interval_s(double delta_s, double mtti_s);

/// Fraction of wall time wasted, to first order: delta / tau + (tau / 2 + R) / M.
double first_order_waste(double tau_s, double delta_s, double restart_s, double mtti_s);

/// Daly's expected wall time for `solve_s` of failure-free compute:
/// M e^(R/M) (e^((tau + delta)/M) - 1) solve / tau.
double daly_expected_wall_s(double solve_s, double tau_s, double delta_s, double restart_s, double mtti_s);

}  // namespace clustersim::models
