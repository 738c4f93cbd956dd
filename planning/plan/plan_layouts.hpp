#pragma once
/// The layouts a plan simulates on one cluster: tensor parallelism inside a node (powers of two),
/// no context parallelism, micro-batches of 1 and 2, sequence parallelism with tensor parallelism;
/// every pipeline depth and interleaving search_layouts enumerates. Of ZeRO-1 + selective
/// recompute, ZeRO-1 + full, ZeRO-3 + selective and ZeRO-3 + full only the first that fits is kept
/// per (tp, pp, vp, micro-batch): each is slower than the one before wherever both fit, so the rest
/// cannot be the best layout.
/// Limitations: the memory estimate decides what fits; nothing is simulated here.

#include <vector>

#include "planning/search/layout_search.hpp"

namespace clustersim::planning {

/// The kept layouts of `base`, in search_layouts' enumeration order.
std::vector<Layout> plan_layouts(const models::StepInputs& base);

}  // namespace clustersim::planning
