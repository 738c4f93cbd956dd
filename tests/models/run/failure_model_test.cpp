#include <doctest/doctest.h>

#include "models/run/failure_model.hpp"

namespace clustersim::models {
namespace {

TEST_CASE("failures: the default rates are Llama 3's 419 interruptions on 2,048 nodes in 54 days") {
  // Table 5 counts (GPU 268, host 46, NIC 7, switch/cable 35, software 63) sum to 419.
  const FailureSpec spec{};
  const double per_54_days = job_interruption_rate(spec, 2048) * 54 * 86400.0;
  CHECK(per_54_days == doctest::Approx(419.0));
  // 3.79 per 1000 node-days, MTTI 3.09 h (measurements.md section 3.1).
  CHECK(1.0 / job_interruption_rate(spec, 2048) / 3600.0 == doctest::Approx(3.09).epsilon(0.005));
}

TEST_CASE("failures: an MTBF in hours replaces the rate, routed-around links do not interrupt") {
  FailureSpec spec{};
  spec.gpu.mtbf_s = 1000.0 * 3600.0;
  const auto rates = job_failure_rates(spec, 10);
  CHECK(rates[static_cast<std::size_t>(FailureKind::gpu)] == doctest::Approx(10.0 / (1000.0 * 3600.0)));

  FailureSpec links{.gpu = {}, .host = {}, .nic = {}, .link = {.per_node_s = 1e-6}, .software = {}};
  links.link_reroute_fraction = 0.75;
  CHECK(job_interruption_rate(links, 4) == doctest::Approx(1e-6));
}

TEST_CASE("failures: Meta's RSC-1 rate gives the projected 1.8 h MTTI at 16,384 GPUs") {
  // Kokolis et al.: 6.5 failures per 1000 node-days; 2,048 nodes -> 1 / (2048 x 6.5e-3) days = 1.80 h.
  FailureSpec spec{.gpu = {.per_node_s = per_1000_node_days(6.5)}, .host = {}, .nic = {}, .link = {}, .software = {}};
  CHECK(1.0 / job_interruption_rate(spec, 2048) / 3600.0 == doctest::Approx(1.80).epsilon(0.005));
  // Rack events count per rack: 2048 nodes in racks of 2 = 1024 racks.
  spec = FailureSpec{.gpu = {}, .host = {}, .nic = {}, .link = {}, .software = {}, .rack_per_rack_s = 1e-7};
  CHECK(job_failure_rates(spec, 2048)[static_cast<std::size_t>(FailureKind::rack)] == doctest::Approx(1024e-7));
}

}  // namespace
}  // namespace clustersim::models
