#pragma once
/// A plan that cannot be made from its request: an unknown GPU type, a GPU type with no price,
/// an empty or inverted size range, or a model that fits on none of the clusters searched. The
/// message names the command-line option that fixes it.

#include <stdexcept>

namespace clustersim::planning {

class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace clustersim::planning
