#include "calibration/least_squares.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <Eigen/Dense>

namespace clustersim::calibration {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Continued fraction of the incomplete beta function (modified Lentz).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double tiny = 1e-300;
  constexpr double epsilon = 1e-15;
  double c = 1.0;
  double d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::abs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const double md = m;
    const double even = md * (b - md) * x / ((a + 2.0 * md - 1.0) * (a + 2.0 * md));
    d = 1.0 + even * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + even / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    const double odd = -(a + md) * (a + b + md) * x / ((a + 2.0 * md) * (a + 2.0 * md + 1.0));
    d = 1.0 + odd * d;
    if (std::abs(d) < tiny) d = tiny;
    c = 1.0 + odd / c;
    if (std::abs(c) < tiny) c = tiny;
    d = 1.0 / d;
    const double step = d * c;
    h *= step;
    if (std::abs(step - 1.0) < epsilon) break;
  }
  return h;
}

// Regularized incomplete beta I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  const double log_front =
      std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * beta_continued_fraction(a, b, x) / a;
  return 1.0 - front * beta_continued_fraction(b, a, 1.0 - x) / b;
}

}  // namespace

double student_t_cdf(double t, int dof) {
  if (dof <= 0) throw std::invalid_argument("Student's t needs dof >= 1");
  const double v = dof;
  const double tail = 0.5 * incomplete_beta(v / 2.0, 0.5, v / (v + t * t));
  return t >= 0.0 ? 1.0 - tail : tail;
}

double student_t_quantile(double p, int dof) {
  if (!(p > 0.0 && p < 1.0)) throw std::invalid_argument("quantile needs 0 < p < 1");
  if (p < 0.5) return -student_t_quantile(1.0 - p, dof);
  // The cdf is increasing: bisect on [0, hi] after growing hi past the quantile.
  double lo = 0.0, hi = 1.0;
  while (student_t_cdf(hi, dof) < p) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, dof) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

LinearFit least_squares(std::span<const double> design, std::span<const double> y) {
  const auto n = static_cast<Eigen::Index>(y.size());
  if (n == 0 || design.size() % y.size() != 0) throw std::invalid_argument("least squares: design is not n x p");
  const auto p = static_cast<Eigen::Index>(design.size() / y.size());
  if (n < p) {
    throw std::invalid_argument("least squares: " + std::to_string(n) + " rows for " + std::to_string(p) +
                                " parameters");
  }
  const Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> x(design.data(), n, p);
  const Eigen::Map<const Eigen::VectorXd> rhs(y.data(), n);

  // Unit-norm columns: bytes and 1/time differ by ten orders of magnitude.
  const Eigen::VectorXd norms = x.colwise().norm().transpose();
  if ((norms.array() <= 0.0).any()) throw std::invalid_argument("least squares: a column is all zeros");
  const Eigen::MatrixXd scaled = x * norms.cwiseInverse().asDiagonal();
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(scaled);
  if (qr.rank() < p) throw std::invalid_argument("least squares: the columns are linearly dependent");
  const Eigen::VectorXd gamma = qr.solve(rhs);
  const Eigen::VectorXd beta = gamma.cwiseQuotient(norms);
  const Eigen::VectorXd residuals = rhs - x * beta;

  LinearFit fit;
  fit.beta.assign(beta.data(), beta.data() + p);
  fit.residuals.assign(residuals.data(), residuals.data() + n);
  fit.rss = residuals.squaredNorm();
  fit.dof = static_cast<int>(n - p);
  fit.standard_error.assign(static_cast<std::size_t>(p), kNaN);
  fit.covariance.assign(static_cast<std::size_t>(p * p), kNaN);
  fit.t95 = kNaN;
  if (fit.dof > 0) {
    const double s2 = fit.rss / fit.dof;
    const Eigen::MatrixXd inverse = (scaled.transpose() * scaled).inverse();
    const Eigen::MatrixXd covariance = s2 * norms.cwiseInverse().asDiagonal() * inverse * norms.cwiseInverse().asDiagonal();
    for (Eigen::Index i = 0; i < p; ++i) {
      fit.standard_error[static_cast<std::size_t>(i)] = std::sqrt(covariance(i, i));
      for (Eigen::Index j = 0; j < p; ++j) fit.covariance[static_cast<std::size_t>(i * p + j)] = covariance(i, j);
    }
    fit.t95 = student_t_quantile(0.975, fit.dof);
  }
  return fit;
}

}  // namespace clustersim::calibration
