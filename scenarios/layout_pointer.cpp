#include "scenarios/layout_pointer.hpp"

#include <algorithm>

namespace clustersim::scenarios {

std::string json_pointer(models::LayoutField field) {
  std::string pointer = "/" + std::string(models::field_path(field));
  std::replace(pointer.begin(), pointer.end(), '.', '/');
  return pointer;
}

}  // namespace clustersim::scenarios
