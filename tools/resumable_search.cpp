#include "tools/resumable_search.hpp"

#include <algorithm>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "tools/command.hpp"
#include "tools/render/sweep_table.hpp"
#include "tools/resume_file.hpp"

namespace clustersim::tools {

std::vector<planning::SweepRow> run_search_resumable(const std::string& path, std::string_view job,
                                                     const planning::SweepHeader& header,
                                                     const models::StepInputs& base,
                                                     const std::vector<planning::LayoutCandidate>& candidates,
                                                     const planning::PredictionBands& bands,
                                                     const planning::Shard& shard, unsigned jobs,
                                                     const planning::ProgressFn& progress, std::size_t keep_top) {
  std::vector<std::size_t> fitting;  // the shard's layouts to simulate, which set the chunks' sizes
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (shard.contains(i) && candidates[i].memory.fits) fitting.push_back(i);
  }
  const std::size_t chunks = chunk_count(fitting.size(), kMaxSearchChunks);
  // Chunk c holds the layouts from its first fitting one up to the next chunk's first.
  const auto chunk_start = [&](std::size_t c) -> std::size_t {
    if (c == 0) return 0;
    if (c == chunks) return candidates.size();
    return fitting[chunk_begin(fitting.size(), chunks, c)];
  };
  ResumeFile resume(path, job, chunks);
  std::vector<planning::SweepRow> rows;
  for (std::size_t c = 0; c < chunks; ++c) {
    const std::string* kept = resume.find(c);
    std::string text;
    if (kept == nullptr) {
      planning::Shard part = shard;
      part.begin = chunk_start(c);
      part.end = chunk_start(c + 1);
      const std::vector<planning::SweepRow> computed =
          planning::run_search(base, candidates, bands, part, jobs, progress, keep_top);
      text = sweep_json(header, computed, TableOptions{.top = 0}).dump();
      resume.add(c, text);
    } else {
      text = *kept;
    }
    planning::SweepHeader chunk_header;
    std::vector<planning::SweepRow> chunk_rows;
    try {
      read_sweep_json(nlohmann::json::parse(text), chunk_header, chunk_rows);
    } catch (const std::exception& error) {
      throw CliError("--resume " + path + ": chunk " + std::to_string(c) + " is malformed: " + error.what());
    }
    if (kept != nullptr && progress) {
      progress(static_cast<std::size_t>(std::count_if(chunk_rows.begin(), chunk_rows.end(), [](const planning::SweepRow& row) {
        return row.status != planning::RowStatus::too_large;
      })));
    }
    rows.insert(rows.end(), chunk_rows.begin(), chunk_rows.end());
  }
  // In enumeration order, as one run_search over the shard returns them (the rank's ties keep it).
  std::stable_sort(rows.begin(), rows.end(),
                   [](const planning::SweepRow& a, const planning::SweepRow& b) { return a.index < b.index; });
  return rows;
}

}  // namespace clustersim::tools
