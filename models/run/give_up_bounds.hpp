#pragma once
/// The arithmetic behind giving up a run that cannot finish (RunEnd::too_many_failures in
/// run_simulation.hpp): a lower bound on the expected time to commit the remaining work, and the
/// share of it below which a run's actual time falls with negligible probability.
/// Units: seconds, interruptions per second.
/// Limitations: the probability bound treats each interval's time as exponential, which holds
/// when intervals mostly fail (the case the bound is there for); shorter-tailed times only make
/// finishing early less likely.
/// Source: Daly, FGCS 22(3):303, 2006 (expected time per interval, failures also during restarts);
/// the Chernoff lower-tail bound of a Gamma(m) sum, P(S <= a E[S]) <= (a e^(1-a))^m.

namespace clustersim::models {

/// Expected wall time to commit `compute_s` of work from a restart: e^(L R) (e^(L (compute +
/// stall)) - 1) / L at interruption rate L and restart R; compute + stall when L is 0.
double expected_commit_s(double rate, double restart_s, double compute_s, double stall_s);

/// The fraction a in (0, 1) with (a e^(1-a))^intervals = 1e-9: a sum of that many exponential
/// interval times falls below a x its mean with probability 1e-9 at most.
double chernoff_fraction(double intervals);

}  // namespace clustersim::models
