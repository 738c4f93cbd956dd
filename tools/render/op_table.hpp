#pragma once
/// `run --ops`: the compute of one micro-batch on one GPU, op by op (models/step/op_breakdown.hpp),
/// as a table to set against a profiler's kernel summary and as an `ops` JSON array.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/step/op_breakdown.hpp"

namespace clustersim::tools {

nlohmann::ordered_json ops_json(const std::vector<models::TimedOp>& ops);
std::string ops_text(const std::vector<models::TimedOp>& ops);

}  // namespace clustersim::tools
