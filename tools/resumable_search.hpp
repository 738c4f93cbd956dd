#pragma once
/// `sweep --search --resume FILE`: the search of planning::run_search, split into chunks of
/// contiguous layouts (about equal numbers of layouts that fit) whose rows are kept in a resume file
/// (tools/resume_file.hpp) as the sweep JSON that merge reads. A run killed midway and started again
/// with the same FILE simulates only the chunks not yet kept; either way every chunk's rows are read
/// back from their JSON, so the output does not depend on where a run was interrupted. A chunk's
/// rows are those of the shard restricted to its layouts, as a search shard's are.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "planning/search/layout_search.hpp"
#include "planning/search/sweep_rows.hpp"
#include "planning/search/sweep_runner.hpp"

namespace clustersim::tools {

/// Most chunks a search is split into: enough that a kill loses little, few enough that the file's
/// rewrites (all kept rows, after every chunk) cost little next to the simulations.
inline constexpr std::size_t kMaxSearchChunks = 32;

/// The rows of the shard, in enumeration order. `job` identifies the search (its fingerprint and
/// options); `path` is the resume file, left in place (the caller removes it after the output).
std::vector<planning::SweepRow> run_search_resumable(const std::string& path, std::string_view job,
                                                     const planning::SweepHeader& header,
                                                     const models::StepInputs& base,
                                                     const std::vector<planning::LayoutCandidate>& candidates,
                                                     const planning::PredictionBands& bands,
                                                     const planning::Shard& shard, unsigned jobs,
                                                     const planning::ProgressFn& progress, std::size_t keep_top);

}  // namespace clustersim::tools
