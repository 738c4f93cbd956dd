#pragma once
/// The pictures of `clustersim tco`: the cumulative cost of building and of each way of renting,
/// month by month over the horizon, with each break-even month marked where the build's curve
/// meets the rent's ("cost-curves"); and the sensitivity tornado, the horizon saving of building
/// over the cheapest rent with each input at -20 % and +20 % ("tornado").

#include <string>
#include <vector>

#include "models/cost/tco.hpp"

namespace clustersim::tools::charts {

std::string cost_curves_svg(const models::Tco& tco);
std::string tornado_svg(const models::Tco& tco, const std::vector<models::SensitivityRow>& rows);

}  // namespace clustersim::tools::charts
