#include "scenarios/run_options_validation.hpp"

namespace clustersim::scenarios {

std::optional<Violation> run_options_violation(const Scenario& s) {
  using models::SecondTarget;
  using models::StorageKind;
  const auto& c = s.checkpoint;
  if ((c.interval_s > 0) == (c.interval_steps > 0)) {
    return Violation{"/checkpoint/interval_minutes",
                     "give exactly one of interval_minutes and interval_steps (the other 0)"};
  }
  if (c.target == StorageKind::local_nvme && c.second_target == SecondTarget::none) {
    return Violation{"/checkpoint/second_target",
                     "a checkpoint only on local_nvme is lost with its node; name a second target"};
  }
  const bool same = (c.target == StorageKind::nfs && c.second_target == SecondTarget::nfs) ||
                    (c.target == StorageKind::lustre && c.second_target == SecondTarget::lustre) ||
                    (c.target == StorageKind::local_nvme && c.second_target == SecondTarget::local_nvme);
  if (same) return Violation{"/checkpoint/second_target", "must differ from target"};
  return std::nullopt;
}

}  // namespace clustersim::scenarios
