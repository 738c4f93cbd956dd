#include "models/run/failure_model.hpp"

namespace clustersim::models {

std::string_view to_string(FailureKind kind) {
  switch (kind) {
    case FailureKind::gpu: return "gpu";
    case FailureKind::host: return "host";
    case FailureKind::nic: return "nic";
    case FailureKind::link: return "link";
    case FailureKind::network_switch: return "switch";
    case FailureKind::software: return "software";
    case FailureKind::rack: return "rack";
    case FailureKind::planned: return "planned";
    case FailureKind::spot: return "spot";
  }
  return "?";
}

std::array<double, failure_kind_count> job_failure_rates(const FailureSpec& spec, double nodes) {
  std::array<double, failure_kind_count> rates{};
  const auto set = [&rates](FailureKind kind, double rate) {
    rates[static_cast<std::size_t>(kind)] = rate;
  };
  set(FailureKind::gpu, spec.gpu.rate() * nodes);
  set(FailureKind::host, spec.host.rate() * nodes);
  set(FailureKind::nic, spec.nic.rate() * nodes);
  set(FailureKind::link, spec.link.rate() * nodes);
  set(FailureKind::network_switch, spec.network_switch.rate() * nodes);
  set(FailureKind::software, spec.software.rate() * nodes);
  // A partly filled rack still fails as a rack; racks = nodes / nodes_per_rack, rounded up.
  const double racks = spec.nodes_per_rack > 0
                           ? static_cast<double>(static_cast<std::int64_t>(
                                 (nodes + static_cast<double>(spec.nodes_per_rack) - 1.0) /
                                 static_cast<double>(spec.nodes_per_rack)))
                           : 0.0;
  set(FailureKind::rack, spec.rack_per_rack_s * racks);
  set(FailureKind::planned, spec.planned_per_s);
  return rates;
}

double job_interruption_rate(const FailureSpec& spec, double nodes) {
  const auto rates = job_failure_rates(spec, nodes);
  double total = 0.0;
  for (std::size_t i = 0; i < failure_kind_count; ++i) {
    const bool rerouted_links = static_cast<FailureKind>(i) == FailureKind::link;
    total += rerouted_links ? rates[i] * (1.0 - spec.link_reroute_fraction) : rates[i];
  }
  return total;
}

}  // namespace clustersim::models
