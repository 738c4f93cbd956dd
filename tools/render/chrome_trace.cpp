#include "tools/render/chrome_trace.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/step/step_labels.hpp"
#include "models/step/step_pieces.hpp"
#include "models/step/step_trace_record.hpp"

namespace clustersim::tools {

namespace {

using models::CommRole;
using models::TaskKind;
using models::TaskPhase;

/// A stage's streams, in the order their tracks are listed.
enum class Track : std::uint8_t { compute, tp, ep, cp, pp_send, dp };
constexpr std::size_t kTracks = 6;
constexpr std::array<std::string_view, kTracks> kTrackNames = {"compute", "tp comm", "ep comm",
                                                               "cp comm", "pp send", "dp comm"};

Track track_of(CommRole role) {
  switch (role) {
    case CommRole::tp:
    case CommRole::tp_hidden: return Track::tp;
    case CommRole::cp: return Track::cp;
    case CommRole::ep: return Track::ep;
    case CommRole::pp_send: return Track::pp_send;
    case CommRole::zero3_before:
    case CommRole::zero3_beside:
    case CommRole::zero3_after:
    case CommRole::zero3_tail:
    case CommRole::grad_bucket:
    case CommRole::grad_reduce:
    case CommRole::tied_grad_reduce:
    case CommRole::param_gather: return Track::dp;
  }
  return Track::dp;
}

/// A task the builder made outside any communication span: compute, or the analytic fidelity's
/// compute_then_tp (whose collectives go to the tp track).
Track track_of(TaskKind kind) {
  switch (kind) {
    case TaskKind::compute:
    case TaskKind::compute_then_tp: return Track::compute;
    case TaskKind::tp_comm: return Track::tp;
    case TaskKind::pp_comm: return Track::pp_send;
    case TaskKind::dp_comm: return Track::dp;
    case TaskKind::cp_comm: return Track::cp;
    case TaskKind::ep_comm: return Track::ep;
  }
  return Track::compute;
}

std::string_view op_name(models::CollectiveOp op) {
  switch (op) {
    case models::CollectiveOp::all_reduce: return "all-reduce";
    case models::CollectiveOp::reduce_scatter: return "reduce-scatter";
    case models::CollectiveOp::all_gather: return "all-gather";
    case models::CollectiveOp::all_to_all: return "all-to-all";
    case models::CollectiveOp::send_recv: return "send";
  }
  return "?";
}

struct Slice {
  std::string name;
  std::string_view cat;
  sim::TaskLabel label;
  Track track = Track::compute;
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;
  std::int64_t tid = 0;  // lane-assigned track
  std::int32_t part = 0;   // a bucket or compute piece: its index from 0, and the count
  std::int32_t parts = 0;
};

/// Microseconds with the nanoseconds as three exact decimals (the header says why).
double micros(std::int64_t ns) { return static_cast<double>(ns) / 1000.0; }

class TraceWriter {
 public:
  TraceWriter(const models::StepGraph& step, const sim::Timeline& timeline)
      : step_(step), timeline_(timeline), record_(step.trace), vp_(static_cast<std::int32_t>(step.chunks_per_stage)) {}

  std::string write() {
    collect_slices();
    assign_lanes();
    nlohmann::ordered_json events = nlohmann::ordered_json::array();
    metadata(events);
    for (const Slice& s : slices_) {
      nlohmann::ordered_json args{{"micro_batch", s.label.micro_batch},
                                  {"chunk", s.label.layer},
                                  {"phase", models::phase_name(static_cast<TaskPhase>(s.label.phase))}};
      if (s.parts > 0) args["part"] = fmt::format("{}/{}", s.part + 1, s.parts);
      events.push_back({{"name", s.name},
                        {"cat", s.cat},
                        {"ph", "X"},
                        {"ts", micros(s.begin_ns)},
                        {"dur", micros(s.end_ns - s.begin_ns)},
                        {"pid", s.label.stage},
                        {"tid", s.tid},
                        {"args", std::move(args)}});
    }
    flows(events);
    nlohmann::ordered_json trace;
    trace["displayTimeUnit"] = "ms";
    trace["traceEvents"] = std::move(events);
    return trace.dump() + '\n';
  }

 private:
  std::size_t chunk_index(std::int32_t stage, std::int32_t chunk) const {
    return static_cast<std::size_t>(stage * vp_ + chunk);
  }
  /// "L{first}-{last}" of `part` of `parts` equal shares of a chunk's layers, counted from its
  /// last layer (the backward's and the buckets' order); the whole chunk for parts == 0. A share
  /// of no layer is the chunk's end of the model: the embedding (the first chunk) or the output
  /// layer (the last), which a job's split may leave alone in its chunk.
  std::string layers(std::int32_t stage, std::int32_t chunk, std::int32_t part = 0, std::int32_t parts = 0) const {
    const std::size_t at = chunk_index(stage, chunk);
    if (at >= record_.chunk_layers.size()) return "L?";
    const std::int64_t first = record_.chunk_first_layer[at], count = record_.chunk_layers[at];
    std::int64_t lo = 0, hi = count;
    if (parts > 0) {
      lo = count * (parts - 1 - part) / parts;
      hi = count * (parts - part) / parts;
    }
    if (hi <= lo) return stage == 0 && chunk == 0 ? "embedding" : "output layer";
    return fmt::format("L{}-{}", first + lo, first + hi - 1);
  }
  std::string stage_layers(std::int32_t stage) const {
    std::string out;
    for (std::int32_t c = 0; c < vp_; ++c) out += (c > 0 ? "," : "") + layers(stage, c);
    return out;
  }
  /// "F mb3 c1 L20-39": the pass a label names, or the stage's phase outside passes.
  std::string pass_name(const sim::TaskLabel& label, std::int32_t part = 0, std::int32_t parts = 0) const {
    const auto phase = static_cast<TaskPhase>(label.phase);
    // A backward task of no micro-batch is the drain's deferred output-layer weight gradients
    // (training.defer_embedding_wgrad).
    if (label.micro_batch < 0 && phase == TaskPhase::backward)
      return fmt::format("deferred output-layer weight gradients, stage {}", label.stage);
    if (label.micro_batch < 0 || (phase != TaskPhase::forward && phase != TaskPhase::backward))
      return fmt::format("{} stage {} {}", models::phase_name(phase), label.stage, stage_layers(label.stage));
    return fmt::format("{} mb{} c{} {}", phase == TaskPhase::forward ? 'F' : 'B', label.micro_batch, label.layer,
                       layers(label.stage, label.layer, part, parts));
  }

  std::string span_name(const models::CommSpan& span, const sim::TaskLabel& label) const {
    const bool forward = static_cast<TaskPhase>(label.phase) == TaskPhase::forward;
    const std::int64_t pp = static_cast<std::int64_t>(step_.stages.size());
    switch (span.role) {
      case CommRole::tp: return pass_name(label) + " tp comm";
      case CommRole::tp_hidden: return pass_name(label) + " tp comm under the GEMMs";
      case CommRole::cp: return pass_name(label) + " cp ring";
      case CommRole::ep: return pass_name(label) + " ep all-to-all";
      case CommRole::pp_send:
        return fmt::format("{} send to stage {}", pass_name(label),
                           forward ? (label.stage + 1) % pp : (label.stage + pp - 1) % pp);
      case CommRole::zero3_before: return pass_name(label) + " zero3 gather";
      case CommRole::zero3_beside:
        return pass_name(label) + (forward ? " zero3 gathers ahead" : " zero3 gathers ahead + reduce-scatters");
      case CommRole::zero3_after: return pass_name(label) + " zero3 reduce-scatter";
      case CommRole::zero3_tail: return pass_name(label) + " zero3 reduce-scatter of the last unit";
      case CommRole::grad_bucket:
        return fmt::format("dp {} c{} bucket {}/{} {}", op_name(record_.grad_reduce_op), label.layer,
                           span.bucket + 1, span.buckets, layers(label.stage, label.layer, span.bucket, span.buckets));
      case CommRole::grad_reduce:
        return fmt::format("dp {} stage {} {}", op_name(record_.grad_reduce_op), label.stage,
                           stage_layers(label.stage));
      case CommRole::param_gather:
        return fmt::format("dp all-gather params stage {} {}{}", label.stage, stage_layers(label.stage),
                           forward ? " (for the next step)" : "");
      case CommRole::tied_grad_reduce:
        return fmt::format("all-reduce of the tied embedding's gradient, stage {} with stage {}", label.stage,
                           label.stage == 0 ? pp - 1 : 0);
    }
    return pass_name(label);
  }

  void add(Slice slice, sim::TaskId first, sim::TaskId last) {
    task_slice_[first] = static_cast<std::int64_t>(slices_.size());
    task_slice_[last] = static_cast<std::int64_t>(slices_.size());
    slices_.push_back(std::move(slice));
  }

  void collect_slices() {
    const std::size_t tasks = step_.graph.size();
    task_slice_.assign(tasks, -1);
    // The pieces of each pass (a chunk's last backward runs in one per gradient bucket).
    std::map<std::tuple<std::int32_t, std::int32_t, std::int32_t, std::uint8_t>, std::int32_t> pieces, seen;
    const auto key = [](const sim::TaskLabel& l) { return std::tuple(l.stage, l.layer, l.micro_batch, l.phase); };
    const auto& spans = record_.comm_spans;
    for (std::size_t t = 0, k = 0; t < tasks; ++t) {
      if (k < spans.size() && t == spans[k].first) {
        t = spans[k++].last;
        continue;
      }
      ++pieces[key(step_.graph.label(static_cast<sim::TaskId>(t)))];
    }
    std::size_t k = 0;
    for (sim::TaskId t = 0; t < tasks; ++t) {
      const sim::TaskLabel& label = step_.graph.label(t);
      const auto kind = static_cast<TaskKind>(label.kind);
      const std::int64_t begin = timeline_.tasks[t].start.ns();
      if (k < spans.size() && t == spans[k].first) {
        const models::CommSpan& span = spans[k++];
        Slice slice{.name = span_name(span, label),
                    .cat = models::kind_name(kind),
                    .label = label,
                    .track = track_of(span.role),
                    .begin_ns = begin,
                    .end_ns = timeline_.tasks[span.last].finish.ns()};
        if (span.role == CommRole::grad_bucket) {
          slice.part = span.bucket;
          slice.parts = span.buckets;
        }
        add(std::move(slice), span.first, span.last);
        t = span.last;
        continue;
      }
      const std::int64_t end = timeline_.tasks[t].finish.ns();
      const std::int32_t parts = pieces[key(label)];
      const std::int32_t part = parts > 1 ? seen[key(label)]++ : 0;
      Slice slice{.name = parts > 1 ? fmt::format("{} piece {}/{}", pass_name(label, part, parts), part + 1, parts)
                                    : pass_name(label),
                  .cat = models::kind_name(kind == TaskKind::compute_then_tp ? TaskKind::compute : kind),
                  .label = label,
                  .track = track_of(kind),
                  .begin_ns = begin,
                  .end_ns = end,
                  .part = part,
                  .parts = parts > 1 ? parts : 0};
      if (kind != TaskKind::compute_then_tp) {
        add(std::move(slice), t, t);
        continue;
      }
      // The analytic fidelity's pass of compute and its collectives, after it and beside it: a slice
      // each (step_pieces.hpp).
      const auto [split, beside_end] = models::compute_then_tp_split(step_, label, begin, end);
      slice.end_ns = split;
      const auto tp_slice = [&](std::string name, std::int64_t from, std::int64_t to) {
        return Slice{.name = std::move(name),
                     .cat = models::kind_name(TaskKind::tp_comm),
                     .label = label,
                     .track = Track::tp,
                     .begin_ns = from,
                     .end_ns = to};
      };
      add(std::move(slice), t, t);
      if (beside_end > begin) slices_.push_back(tp_slice(pass_name(label) + " tp comm under the GEMMs", begin, beside_end));
      if (split < end) slices_.push_back(tp_slice(pass_name(label) + " tp comm", split, end));
    }
  }

  /// Per stage and stream, each slice in order of start takes the first lane free by then; the
  /// lanes of a stage's streams are numbered in the streams' order.
  void assign_lanes() {
    const std::size_t stages = step_.stages.size();
    std::vector<std::vector<std::size_t>> by_track(stages * kTracks);
    for (std::size_t i = 0; i < slices_.size(); ++i)
      by_track[static_cast<std::size_t>(slices_[i].label.stage) * kTracks + static_cast<std::size_t>(slices_[i].track)]
          .push_back(i);
    lanes_.assign(stages * kTracks, 0);
    first_tid_.assign(stages * kTracks, 0);
    for (std::size_t s = 0; s < stages; ++s) {
      std::int64_t tid = 0;
      for (std::size_t k = 0; k < kTracks; ++k) {
        std::vector<std::size_t>& order = by_track[s * kTracks + k];
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
          return std::tie(slices_[a].begin_ns, slices_[a].end_ns) < std::tie(slices_[b].begin_ns, slices_[b].end_ns);
        });
        std::vector<std::int64_t> free_at;  // by lane: when its last slice ends
        for (const std::size_t i : order) {
          std::size_t lane = 0;
          while (lane < free_at.size() && free_at[lane] > slices_[i].begin_ns) ++lane;
          if (lane == free_at.size()) free_at.push_back(0);
          free_at[lane] = slices_[i].end_ns;
          slices_[i].tid = tid + static_cast<std::int64_t>(lane);
        }
        first_tid_[s * kTracks + k] = tid;
        lanes_[s * kTracks + k] = static_cast<std::int64_t>(free_at.size());
        tid += static_cast<std::int64_t>(free_at.size());
      }
    }
  }

  void metadata(nlohmann::ordered_json& events) const {
    const models::StageRanks& ranks = record_.ranks;
    for (std::size_t s = 0; s < step_.stages.size(); ++s) {
      const auto stage = static_cast<std::int64_t>(s);
      const std::string name =
          ranks.per_stage() > 0
              ? fmt::format("stage {}: ranks {}-{} (TP {} x CP {} x DP {})", s, stage * ranks.per_stage(),
                            (stage + 1) * ranks.per_stage() - 1, ranks.tp, ranks.cp, ranks.dp)
              : fmt::format("stage {}", s);
      events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", s}, {"args", {{"name", name}}}});
      events.push_back({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", s}, {"args", {{"sort_index", s}}}});
      for (std::size_t k = 0; k < kTracks; ++k) {
        const std::int64_t lanes = lanes_[s * kTracks + k];
        for (std::int64_t lane = 0; lane < lanes; ++lane) {
          const std::int64_t tid = first_tid_[s * kTracks + k] + lane;
          const std::string thread =
              lanes == 1 ? std::string(kTrackNames[k]) : fmt::format("{} lane {}", kTrackNames[k], lane);
          events.push_back(
              {{"name", "thread_name"}, {"ph", "M"}, {"pid", s}, {"tid", tid}, {"args", {{"name", thread}}}});
          events.push_back({{"name", "thread_sort_index"},
                            {"ph", "M"},
                            {"pid", s},
                            {"tid", tid},
                            {"args", {{"sort_index", tid}}}});
        }
      }
    }
  }

  /// Each pipeline send to the pass that waits for it: a flow from the middle of the send's slice
  /// to the middle of the receiving slice, so that each end lies inside the slice it binds to.
  void flows(nlohmann::ordered_json& events) const {
    std::int64_t id = 0;
    for (const models::PipelineHop& hop : record_.hops) {
      const std::int64_t from = task_slice_[hop.send], to = task_slice_[hop.receive];
      if (from < 0 || to < 0) continue;
      const Slice& send = slices_[static_cast<std::size_t>(from)];
      const Slice& receive = slices_[static_cast<std::size_t>(to)];
      ++id;
      const auto middle = [](const Slice& s) { return s.begin_ns + (s.end_ns - s.begin_ns) / 2; };
      events.push_back({{"name", "pp send"}, {"cat", "pipeline"}, {"ph", "s"}, {"id", id},
                        {"ts", micros(middle(send))}, {"pid", send.label.stage}, {"tid", send.tid}});
      events.push_back({{"name", "pp send"}, {"cat", "pipeline"}, {"ph", "f"}, {"bp", "e"}, {"id", id},
                        {"ts", micros(middle(receive))}, {"pid", receive.label.stage}, {"tid", receive.tid}});
    }
  }

  const models::StepGraph& step_;
  const sim::Timeline& timeline_;
  const models::StepTraceRecord& record_;
  const std::int32_t vp_;
  std::vector<Slice> slices_;
  std::vector<std::int64_t> task_slice_;  // by task: the slice that starts or ends with it, -1 if none
  std::vector<std::int64_t> lanes_;       // by stage x track
  std::vector<std::int64_t> first_tid_;
};

}  // namespace

std::string chrome_trace_json(const models::StepGraph& step, const sim::Timeline& timeline) {
  return TraceWriter(step, timeline).write();
}

}  // namespace clustersim::tools
