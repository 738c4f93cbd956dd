#pragma once
/// Ordinary linear least squares with the parameters' uncertainty: the core every calibration fit
/// reduces to (callers weight their rows first, e.g. divide each by the measured value for
/// relative least squares).
/// beta = argmin |y - X beta|^2, solved by column-pivoting Householder QR on unit-norm columns;
/// residual variance s^2 = RSS / (n - p); cov(beta) = s^2 (X^T X)^-1; a 95 % interval is
/// beta_j +- t(0.975, n - p) x se_j with Student's t quantile.
/// Units: whatever the caller's columns carry.
/// Limitations: the intervals assume independent, equal-variance, normal residuals after the
/// caller's weighting; with n = p there are no residuals and no intervals (NaN).
/// Source: standard linear-regression results (e.g. Seber & Lee, "Linear Regression Analysis",
/// ch. 3 and 5); Student's t from the regularized incomplete beta function by Lentz's continued
/// fraction (Numerical Recipes, 3rd ed., section 6.4).

#include <cstddef>
#include <span>
#include <vector>

namespace clustersim::calibration {

struct LinearFit {
  std::vector<double> beta{};
  std::vector<double> standard_error{};   // NaN when dof == 0
  std::vector<double> covariance{};       // p x p, row-major; NaN when dof == 0
  std::vector<double> residuals{};        // y - X beta, per row
  double rss = 0.0;                     // sum of squared residuals
  int dof = 0;                          // n - p
  double t95 = 0.0;                     // t(0.975, dof); NaN when dof == 0

  double lower95(std::size_t j) const { return beta[j] - t95 * standard_error[j]; }
  double upper95(std::size_t j) const { return beta[j] + t95 * standard_error[j]; }
};

/// `design` is n x p, row-major (n = y.size()). Throws std::invalid_argument when n < p or the
/// columns are linearly dependent (rank < p).
LinearFit least_squares(std::span<const double> design, std::span<const double> y);

/// Student's t distribution: P(T <= t) with `dof` degrees of freedom.
double student_t_cdf(double t, int dof);
/// The t with P(T <= t) = p, for 0 < p < 1.
double student_t_quantile(double p, int dof);

}  // namespace clustersim::calibration
