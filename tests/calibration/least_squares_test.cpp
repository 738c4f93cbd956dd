#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "calibration/least_squares.hpp"

namespace {

using clustersim::calibration::least_squares;
using clustersim::calibration::student_t_cdf;
using clustersim::calibration::student_t_quantile;

TEST_CASE("least squares: Student's t quantiles match the printed tables") {
  // t(0.975) for 1, 2, 10 and 30 degrees of freedom: 12.706, 4.303, 2.228, 2.042; the normal
  // limit is 1.960.
  CHECK(student_t_quantile(0.975, 1) == doctest::Approx(12.7062).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 2) == doctest::Approx(4.3027).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 10) == doctest::Approx(2.2281).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 30) == doctest::Approx(2.0423).epsilon(1e-4));
  CHECK(student_t_quantile(0.975, 100000) == doctest::Approx(1.95996).epsilon(1e-4));
  CHECK(student_t_quantile(0.025, 10) == doctest::Approx(-2.2281).epsilon(1e-4));
  // With one degree of freedom t is Cauchy: P(T <= 1) = 3/4.
  CHECK(student_t_cdf(1.0, 1) == doctest::Approx(0.75));
}

TEST_CASE("least squares: a line through four points, with its standard errors by hand") {
  // x = 0, 1, 2, 3; y = 1, 3, 3, 5. Mean x 1.5, mean y 3, Sxx = 5, Sxy = 6: slope 6/5 = 1.2,
  // intercept 3 - 1.2 x 1.5 = 1.2. Residuals -0.2, 0.6, -0.6, 0.2: RSS 0.8, 2 dof, s^2 = 0.4.
  // se(slope) = sqrt(s^2 / Sxx) = sqrt(0.08); se(intercept) = sqrt(s^2 (1/n + mean_x^2 / Sxx))
  // = sqrt(0.4 x 0.7) = sqrt(0.28).
  const std::vector<double> design = {1, 0, 1, 1, 1, 2, 1, 3};
  const std::vector<double> y = {1, 3, 3, 5};
  const auto fit = least_squares(design, y);
  CHECK(fit.beta[0] == doctest::Approx(1.2));
  CHECK(fit.beta[1] == doctest::Approx(1.2));
  CHECK(fit.rss == doctest::Approx(0.8));
  CHECK(fit.dof == 2);
  CHECK(fit.standard_error[0] == doctest::Approx(std::sqrt(0.28)));
  CHECK(fit.standard_error[1] == doctest::Approx(std::sqrt(0.08)));
  CHECK(fit.t95 == doctest::Approx(4.3027).epsilon(1e-4));
  CHECK(fit.upper95(1) == doctest::Approx(1.2 + 4.30265 * std::sqrt(0.08)).epsilon(1e-5));
  CHECK(fit.residuals[1] == doctest::Approx(0.6));
}

TEST_CASE("least squares: exact fits have no interval, dependent columns are refused") {
  const auto exact = least_squares(std::vector<double>{1, 1, 1, 2}, std::vector<double>{3, 5});
  CHECK(exact.beta[1] == doctest::Approx(2.0));
  CHECK(exact.dof == 0);
  CHECK(std::isnan(exact.standard_error[0]));
  CHECK_THROWS_AS(least_squares(std::vector<double>{1, 2, 1, 2, 1, 2}, std::vector<double>{1, 2, 3}),
                  std::invalid_argument);
  CHECK_THROWS_AS(least_squares(std::vector<double>{1, 2}, std::vector<double>{1}), std::invalid_argument);
}

}  // namespace
