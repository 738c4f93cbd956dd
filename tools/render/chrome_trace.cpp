#include "tools/render/chrome_trace.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "models/step/step_labels.hpp"
#include "models/step/step_pieces.hpp"

namespace clustersim::tools {

std::string chrome_trace_json(const models::StepGraph& step, const sim::Timeline& timeline) {
  using nlohmann::ordered_json;
  ordered_json events = ordered_json::array();
  constexpr const char* streams[] = {"compute", "nvlink", "network"};
  for (std::size_t s = 0; s < step.stages.size(); ++s) {
    events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", s},
                      {"args", {{"name", fmt::format("stage {}", s)}}}});
    for (int stream = 0; stream < 3; ++stream)
      events.push_back({{"name", "thread_name"}, {"ph", "M"}, {"pid", s}, {"tid", stream},
                        {"args", {{"name", streams[stream]}}}});
  }
  models::for_each_piece(step, timeline, [&](const sim::TaskLabel& label, models::TaskKind kind, sim::ResourceId r,
                                              std::int64_t begin, std::int64_t end) {
    const auto& res = step.stages[static_cast<std::size_t>(label.stage)];
    const int stream = r == res.compute ? 0 : r == res.nvlink ? 1 : 2;
    const auto phase = static_cast<models::TaskPhase>(label.phase);
    std::string name;
    if (phase == models::TaskPhase::forward || phase == models::TaskPhase::backward) {
      name = fmt::format("{}{}", phase == models::TaskPhase::forward ? 'F' : 'B', label.micro_batch);
      if (label.layer > 0) name += fmt::format(".c{}", label.layer);
      if (kind != models::TaskKind::compute) name += fmt::format(" {}", models::kind_name(kind));
    } else {
      name = fmt::format("{} {}", models::phase_name(phase), models::kind_name(kind));
    }
    events.push_back({{"name", name},
                      {"cat", models::kind_name(kind)},
                      {"ph", "X"},
                      {"ts", static_cast<double>(begin) * 1e-3},
                      {"dur", static_cast<double>(end - begin) * 1e-3},
                      {"pid", label.stage},
                      {"tid", stream},
                      {"args", {{"micro_batch", label.micro_batch}, {"chunk", label.layer},
                                {"phase", models::phase_name(phase)}}}});
  });
  ordered_json trace;
  trace["displayTimeUnit"] = "ms";
  trace["traceEvents"] = std::move(events);
  return trace.dump() + '\n';
}

}  // namespace clustersim::tools
