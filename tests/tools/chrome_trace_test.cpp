// `clustersim run --trace`, read back as Perfetto's JSON importer reads it, on the golden cases'
// layouts (tests/golden/cases.txt: the default run, the flow fidelity, ZeRO-3, interleaved):
// - on every track (pid, tid) any two complete events nest or are disjoint, compared in whole
//   nanoseconds as the importer rounds ts x 1000 (an event overlapping another without nesting is
//   dropped there);
// - every track and process is named, a process for the ranks its stage stands for, and a track
//   holds one kind of work only;
// - every pipeline send has a flow arrow to the pass that waits for it, on the stage and chunk the
//   schedule's rule names;
// - every slice name says its pass, micro-batch, chunk and model layers, and the gradient buckets
//   and backward pieces split each chunk's layers without gap or overlap;
// - one slice per task of the step: a collective of many flows is one event, and the size stays
//   a few hundred bytes per event.
// The expected layers, ranks and micro-batches come from the run's own report (run --json) and the
// normalised scenario (run --print-scenario --json), not from the trace.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test::chrome_trace {
namespace {

// The golden cases' layouts (tests/golden/cases.txt), without --links and --json.
constexpr const char* kDefault = "";
constexpr const char* kFlow = "--set simulation.fidelity=flow";
constexpr const char* kZero3 = "--set parallelism.zero=3 --set parallelism.pp=1 --set parallelism.dp=32";
// 64 sequences on 8 data-parallel ranks: 8 micro-batches, two groups of pp, a trace small enough
// to check under the sanitizers.
constexpr const char* kInterleaved =
    "--set parallelism.vp=5 --set training.schedule=interleaved --set parallelism.pp=4 --set training.global_batch=64";

nlohmann::json run_json(const std::string& arguments) {
  const Outcome outcome = run_clustersim("run " + arguments);
  REQUIRE_MESSAGE(outcome.exit_code == 0, outcome.err);
  return nlohmann::json::parse(outcome.out);
}

/// What the trace must show, from the report and the scenario.
struct Layout {
  std::int64_t tp = 0, pp = 0, dp = 0, cp = 0, vp = 0, zero = 0;
  std::int64_t micro_batches = 0;
  std::vector<std::int64_t> first_layer, layers;  // by model block (chunk c of stage s: c x pp + s)
  bool overlap_grad_reduce = false;

  std::int64_t block(std::int64_t stage, std::int64_t chunk) const { return chunk * pp + stage; }
  std::pair<std::int64_t, std::int64_t> range(std::int64_t stage, std::int64_t chunk) const {
    const auto b = static_cast<std::size_t>(block(stage, chunk));
    return {first_layer[b], first_layer[b] + layers[b] - 1};
  }
  std::string stage_layers(std::int64_t stage) const {
    std::string out;
    for (std::int64_t c = 0; c < vp; ++c) {
      const auto [first, last] = range(stage, c);
      out += (c > 0 ? ",L" : "L") + std::to_string(first) + "-" + std::to_string(last);
    }
    return out;
  }
};

Layout layout_of(const std::string& arguments) {
  const nlohmann::json scenario = run_json(arguments + " --print-scenario --json")["scenario"];
  const nlohmann::json report = run_json(arguments + " --json");
  const nlohmann::json& p = scenario["parallelism"];
  Layout out;
  out.tp = p["tp"], out.pp = p["pp"], out.dp = p["dp"], out.cp = p["cp"], out.vp = p["vp"], out.zero = p["zero"];
  out.micro_batches = report["micro_batches"];
  out.overlap_grad_reduce = scenario["training"]["overlap_grad_reduce"];
  std::int64_t first = 0;
  for (const auto& n : report["layers_per_chunk"]) {
    out.first_layer.push_back(first);
    out.layers.push_back(n.get<std::int64_t>());
    first += n.get<std::int64_t>();
  }
  REQUIRE(out.layers.size() == static_cast<std::size_t>(out.pp * out.vp));
  return out;
}

std::int64_t nanos(const nlohmann::json& micros) { return std::llround(micros.get<double>() * 1000.0); }

struct Slice {
  std::string name, cat;
  std::int64_t pid = 0, tid = 0, begin = 0, end = 0;
  nlohmann::json args;
};

struct FlowEnd {
  std::int64_t pid = 0, tid = 0, ts = 0;
};

struct Trace {
  std::size_t bytes = 0, events = 0;
  std::vector<Slice> slices;
  std::map<std::int64_t, std::string> processes;
  std::map<std::pair<std::int64_t, std::int64_t>, std::string> threads;
  std::map<std::int64_t, FlowEnd> flow_starts, flow_finishes;
};

Trace trace_of(const std::string& arguments) {
  const Outcome outcome = run_clustersim("run " + arguments + " --trace -");
  REQUIRE_MESSAGE(outcome.exit_code == 0, outcome.err);
  const nlohmann::json json = nlohmann::json::parse(outcome.out);
  Trace out;
  out.bytes = outcome.out.size();
  out.events = json["traceEvents"].size();
  for (const nlohmann::json& e : json["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "process_name") {
      CHECK(out.processes.emplace(e["pid"], e["args"]["name"]).second);
    } else if (ph == "M" && e["name"] == "thread_name") {
      CHECK(out.threads.emplace(std::pair(e["pid"], e["tid"]), e["args"]["name"]).second);
    } else if (ph == "X") {
      const std::int64_t begin = nanos(e["ts"]);
      out.slices.push_back({.name = e["name"], .cat = e["cat"], .pid = e["pid"], .tid = e["tid"], .begin = begin,
                            .end = begin + nanos(e["dur"]), .args = e["args"]});
    } else if (ph == "s" || ph == "f") {
      if (ph == "f") CHECK(e["bp"] == "e");
      auto& ends = ph == "s" ? out.flow_starts : out.flow_finishes;
      CHECK(ends.emplace(e["id"].get<std::int64_t>(), FlowEnd{e["pid"], e["tid"], nanos(e["ts"])}).second);
    } else {
      CHECK_MESSAGE(ph == "M", "unexpected event phase " << ph);
    }
  }
  return out;
}

/// The deepest slice on a track that holds `ts`, or none.
const Slice* slice_at(const Trace& trace, std::int64_t pid, std::int64_t tid, std::int64_t ts) {
  const Slice* found = nullptr;
  for (const Slice& s : trace.slices)
    if (s.pid == pid && s.tid == tid && s.begin <= ts && ts <= s.end && (!found || s.begin >= found->begin))
      found = &s;
  return found;
}

void check_nesting(const Trace& trace) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<const Slice*>> tracks;
  for (const Slice& s : trace.slices) tracks[{s.pid, s.tid}].push_back(&s);
  for (auto& entry : tracks) {
    const auto& track = entry.first;  // not a structured binding: clang 14 cannot capture those in a lambda
    auto& slices = entry.second;
    std::sort(slices.begin(), slices.end(), [](const Slice* a, const Slice* b) {
      return a->begin != b->begin ? a->begin < b->begin : a->end > b->end;  // parents first
    });
    std::vector<const Slice*> open;
    for (const Slice* s : slices) {
      while (!open.empty() && open.back()->end <= s->begin) open.pop_back();
      if (!open.empty())
        CHECK_MESSAGE(s->end <= open.back()->end, "on track (" << track.first << ", " << track.second << ") \""
                                                               << s->name << "\" overlaps \"" << open.back()->name
                                                               << "\" without nesting in it");
      open.push_back(s);
    }
  }
}

/// The names, ranks and kinds of the processes and tracks.
void check_names(const Trace& trace, const Layout& layout) {
  const std::int64_t per_stage = layout.tp * layout.cp * layout.dp;
  for (std::int64_t s = 0; s < layout.pp; ++s) {
    const std::string expected = "stage " + std::to_string(s) + ": ranks " + std::to_string(s * per_stage) + "-" +
                                 std::to_string((s + 1) * per_stage - 1) + " (TP " + std::to_string(layout.tp) +
                                 " x CP " + std::to_string(layout.cp) + " x DP " + std::to_string(layout.dp) + ")";
    CHECK(trace.processes.count(s) == 1);
    if (trace.processes.count(s) == 1) CHECK(trace.processes.at(s) == expected);
  }
  const std::map<std::string, std::string> kinds{{"compute", "compute"}, {"tp comm", "tp_comm"},
                                                 {"ep comm", "ep_comm"}, {"cp comm", "cp_comm"},
                                                 {"pp send", "pp_comm"}, {"dp comm", "dp_comm"}};
  const std::regex thread(R"(^(compute|tp comm|ep comm|cp comm|pp send|dp comm)( lane \d+)?$)");
  std::map<std::int64_t, std::set<std::string>> names;
  for (const auto& thread_entry : trace.threads) {
    const auto& track = thread_entry.first;
    const std::string& name = thread_entry.second;
    CHECK_MESSAGE(std::regex_match(name, thread), name);
    CHECK_MESSAGE(names[track.first].insert(name).second, "two tracks named " << name);
  }
  for (const Slice& s : trace.slices) {
    REQUIRE_MESSAGE(trace.threads.count({s.pid, s.tid}) == 1, "no thread_name for " << s.pid << ", " << s.tid);
    CHECK_MESSAGE(trace.processes.count(s.pid) == 1, "no process_name for " << s.pid);
    const std::string& track = trace.threads.at({s.pid, s.tid});
    const std::string kind = kinds.at(track.substr(0, track.find(" lane")));
    CHECK_MESSAGE(s.cat == kind, "\"" << s.name << "\" (" << s.cat << ") on track " << track);
  }
}

/// What a pass's slice is, from its name: "F mb3 c1 L20-39 <rest>".
struct PassName {
  char pass = 'F';
  std::int64_t micro_batch = 0, chunk = 0, first = 0, last = 0;
  std::string rest;
};

std::optional<PassName> pass_name(const std::string& name) {
  static const std::regex pattern(R"(^([FB]) mb(\d+) c(\d+) L(\d+)-(\d+)(.*)$)");
  std::smatch m;
  if (!std::regex_match(name, m, pattern)) return std::nullopt;
  return PassName{m[1].str()[0], std::stoll(m[2]), std::stoll(m[3]), std::stoll(m[4]), std::stoll(m[5]), m[6]};
}

/// Pieces 1..n of a chunk's layers [first, last], piece 1 holding the last layers, each range one
/// after the other down to `first`.
void check_partition(const std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>& pieces,
                     std::int64_t count, std::pair<std::int64_t, std::int64_t> chunk, const std::string& what) {
  CAPTURE(what);
  REQUIRE(static_cast<std::int64_t>(pieces.size()) == count);
  std::int64_t next_last = chunk.second;
  for (std::int64_t k = 1; k <= count; ++k) {
    REQUIRE(pieces.count(k) == 1);
    const auto [first, last] = pieces.at(k);
    CHECK(last == next_last);
    CHECK(first <= last);
    next_last = first - 1;
  }
  CHECK(next_last == chunk.first - 1);
}

void check_slice_names(const Trace& trace, const Layout& layout) {
  const std::regex bucket(R"(^dp (reduce-scatter|all-reduce) c(\d+) bucket (\d+)/(\d+) L(\d+)-(\d+)$)");
  const std::regex stage_wide(R"(^(optimizer|dp all-gather params|dp reduce-scatter|dp all-reduce) stage (\d+) )"
                              R"((L[0-9,L-]+)( \(for the next step\))?$)");
  const std::regex piece(R"(^ piece (\d+)/(\d+)$)");
  const std::regex send(R"(^ send to stage (\d+)$)");
  const std::string grad_op = layout.zero == 0 ? "all-reduce" : "reduce-scatter";
  std::set<std::tuple<std::int64_t, char, std::int64_t, std::int64_t>> passes;
  using Parts = std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>>;  // piece or bucket -> layers
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t>, Parts> pieces, buckets;  // by stage, chunk, count
  std::smatch m;
  for (const Slice& s : trace.slices) {
    CAPTURE(s.name);
    if (const std::optional<PassName> p = pass_name(s.name)) {
      CHECK(s.args["micro_batch"] == p->micro_batch);
      CHECK(s.args["chunk"] == p->chunk);
      CHECK(p->micro_batch < layout.micro_batches);
      REQUIRE(p->chunk < layout.vp);
      CHECK(s.args["phase"] == (p->pass == 'F' ? "forward" : "backward"));
      const auto chunk = layout.range(s.pid, p->chunk);
      if (std::regex_match(p->rest, m, piece)) {  // a chunk's last backward, one piece per bucket
        CHECK(p->pass == 'B');
        CHECK(p->micro_batch == layout.micro_batches - 1);
        CHECK(s.cat == "compute");
        CHECK(pieces[{s.pid, p->chunk, std::stoll(m[2])}]
                  .emplace(std::stoll(m[1]), std::pair(p->first, p->last))
                  .second);
        passes.insert({s.pid, p->pass, p->micro_batch, p->chunk});
        continue;
      }
      CHECK(std::pair(p->first, p->last) == chunk);
      if (p->rest.empty()) {
        CHECK(s.cat == "compute");
        CHECK(passes.insert({s.pid, p->pass, p->micro_batch, p->chunk}).second);
      } else if (std::regex_match(p->rest, m, send)) {
        CHECK(s.cat == "pp_comm");
        const std::int64_t to = p->pass == 'F' ? (s.pid + 1) % layout.pp : (s.pid + layout.pp - 1) % layout.pp;
        CHECK(std::stoll(m[1]) == to);
      } else if (p->rest == " tp comm" || p->rest == " tp comm under the GEMMs") {
        CHECK(s.cat == "tp_comm");
      } else if (p->rest.starts_with(" zero3 ")) {
        CHECK(layout.zero == 3);
        CHECK(s.cat == "dp_comm");
      } else if (p->rest == " cp ring") {
        CHECK(s.cat == "cp_comm");
      } else if (p->rest == " ep all-to-all") {
        CHECK(s.cat == "ep_comm");
      } else {
        FAIL_CHECK("unknown pass slice");
      }
    } else if (std::regex_match(s.name, m, bucket)) {
      CHECK(m[1] == grad_op);
      CHECK(s.cat == "dp_comm");
      const std::int64_t chunk = std::stoll(m[2]);
      REQUIRE(chunk < layout.vp);
      CHECK(s.args["chunk"] == chunk);
      CHECK(s.args["micro_batch"] == layout.micro_batches - 1);  // released by the chunk's last backward
      CHECK(buckets[{s.pid, chunk, std::stoll(m[4])}]
                .emplace(std::stoll(m[3]), std::pair(std::stoll(m[5]), std::stoll(m[6])))
                .second);
    } else if (s.name.starts_with("deferred output-layer weight gradients, stage ")) {
      CHECK(s.name == "deferred output-layer weight gradients, stage " + std::to_string(layout.pp - 1));
      CHECK(s.pid == layout.pp - 1);
      CHECK(s.cat == "compute");
    } else if (std::regex_match(s.name, m, stage_wide)) {
      CHECK(std::stoll(m[2]) == s.pid);
      CHECK(m[3] == layout.stage_layers(s.pid));
      CHECK(s.cat == (m[1] == "optimizer" ? "compute" : "dp_comm"));
    } else {
      FAIL_CHECK("a slice name that says no pass, bucket or stage");
    }
  }
  // Every pass once: 2 x micro-batches x chunks per stage on each stage.
  CHECK(static_cast<std::int64_t>(passes.size()) == 2 * layout.micro_batches * layout.vp * layout.pp);
  for (const auto& [key, by_piece] : pieces) {
    const auto [stage, chunk, count] = key;
    check_partition(by_piece, count, layout.range(stage, chunk), "backward pieces");
  }
  // ZeRO 0-2 with overlap: every chunk's buckets split its layers as its last backward's pieces do.
  const bool bucketed = layout.zero < 3 && layout.overlap_grad_reduce;
  CHECK(buckets.size() == (bucketed ? static_cast<std::size_t>(layout.pp * layout.vp) : 0));
  for (const auto& [key, by_bucket] : buckets) {
    const auto [stage, chunk, count] = key;
    check_partition(by_bucket, count, layout.range(stage, chunk), "gradient buckets");
    if (count > 1) CHECK(pieces.count(key) == 1);
    if (pieces.count(key) == 1) CHECK(pieces.at(key) == by_bucket);
  }
}

/// Each flow from a pipeline send to the pass that waits for it: forward to the next stage (the
/// last stage to the first stage's next chunk), backward to the previous stage (the first stage to
/// the last stage's previous chunk); one each way per micro-batch and chunk boundary.
void check_flows(const Trace& trace, const Layout& layout) {
  CHECK(static_cast<std::int64_t>(trace.flow_starts.size()) == 2 * layout.micro_batches * (layout.pp * layout.vp - 1));
  CHECK(trace.flow_finishes.size() == trace.flow_starts.size());
  for (const auto& flow : trace.flow_starts) {
    const auto& id = flow.first;
    const auto& start = flow.second;
    CAPTURE(id);
    REQUIRE(trace.flow_finishes.count(id) == 1);
    const FlowEnd& finish = trace.flow_finishes.at(id);
    CHECK(finish.ts >= start.ts);
    CHECK(std::pair(finish.pid, finish.tid) != std::pair(start.pid, start.tid));
    const Slice* from = slice_at(trace, start.pid, start.tid, start.ts);
    const Slice* to = slice_at(trace, finish.pid, finish.tid, finish.ts);
    REQUIRE(from != nullptr);
    REQUIRE(to != nullptr);
    CAPTURE(from->name);
    CAPTURE(to->name);
    const std::optional<PassName> sent = pass_name(from->name), received = pass_name(to->name);
    REQUIRE(sent);
    REQUIRE(received);
    CHECK(from->cat == "pp_comm");
    CHECK(to->end >= from->end);
    CHECK(to->begin >= from->end);  // the receiving pass waits for the whole send
    CHECK(received->pass == sent->pass);
    CHECK(received->micro_batch == sent->micro_batch);
    const bool forward = sent->pass == 'F';
    const std::int64_t s = from->pid, c = sent->chunk;
    std::int64_t stage = forward ? s + 1 : s - 1, chunk = c;
    if (stage == layout.pp) stage = 0, chunk = c + 1;
    if (stage < 0) stage = layout.pp - 1, chunk = c - 1;
    CHECK(to->pid == stage);
    CHECK(received->chunk == chunk);
  }
}

std::size_t passes_of(const Layout& layout) {
  return static_cast<std::size_t>(2 * layout.micro_batches * layout.vp * layout.pp);
}

void check_trace(const Trace& trace, const Layout& layout) {
  check_nesting(trace);
  check_names(trace, layout);
  check_slice_names(trace, layout);
  check_flows(trace, layout);
  // A pass is at most ten slices (its compute; TP exposed and hidden; EP; the CP ring; ZeRO-3's
  // gathers before and beside, its reductions after and of the last unit; the send), the last
  // backward two per bucket (a piece and the bucket, at most one a layer); a step's optimizer and
  // once-a-step collectives a few per stage. A slice per flow would be hundreds a pass.
  const std::size_t max_layers = *std::max_element(layout.layers.begin(), layout.layers.end());
  const auto chunks = static_cast<std::size_t>(layout.pp * layout.vp);
  const auto stages = static_cast<std::size_t>(layout.pp);
  CHECK(trace.slices.size() <= passes_of(layout) * 10 + chunks * 2 * max_layers + stages * 4);
  CHECK(trace.bytes <= trace.events * 300);
}

TEST_CASE("chrome trace: the default run's tracks nest, its names say pass, layers and buckets, its sends flow") {
  const Layout layout = layout_of(kDefault);
  CHECK(layout.pp == 4);  // the layout the golden case shows: pipeline sends and 20-layer buckets
  check_trace(trace_of(kDefault), layout);
}

TEST_CASE("chrome trace: under the flow fidelity each collective is one slice on its own stage's stream") {
  const Layout layout = layout_of(kFlow);
  const Trace flow = trace_of(kFlow);
  check_trace(flow, layout);
  // The same tasks as the analytic run's, whatever the number of flows each is lowered to.
  const Trace analytic = trace_of(kDefault);
  std::multiset<std::tuple<std::int64_t, std::string, std::string>> a, f;
  for (const Slice& s : analytic.slices) a.insert({s.pid, s.name, s.cat});
  for (const Slice& s : flow.slices) f.insert({s.pid, s.name, s.cat});
  CHECK(a == f);
}

TEST_CASE("chrome trace: ZeRO-3's gathers and reduce-scatters beside the compute nest on lanes") {
  const Layout layout = layout_of(kZero3);
  CHECK(layout.pp == 1);
  const Trace trace = trace_of(kZero3);
  check_trace(trace, layout);
  std::size_t zero3 = 0;
  for (const Slice& s : trace.slices) zero3 += s.name.find(" zero3 ") != std::string::npos ? 1 : 0;
  CHECK(zero3 >= passes_of(layout));  // at least a gather for every pass
}

TEST_CASE("chrome trace: interleaved chunks name their model layers and flow from the last stage to the first") {
  const Layout layout = layout_of(kInterleaved);
  CHECK(layout.vp == 5);
  check_trace(trace_of(kInterleaved), layout);
}

TEST_CASE("chrome trace: a chunk the job's split leaves without a layer is named for its embedding or output layer") {
  const Trace first = trace_of("--set 'parallelism.layers_per_chunk=[0,27,27,26]' --set training.global_batch=64");
  const Trace last = trace_of("--set 'parallelism.layers_per_chunk=[27,27,26,0]' --set training.global_batch=64");
  std::size_t embedding = 0, output = 0;
  for (const Slice& s : first.slices) {
    CHECK(s.name.find("--1") == std::string::npos);
    if (s.pid == 0 && s.name.starts_with("F mb")) embedding += s.name.ends_with(" c0 embedding") ? 1 : 0;
  }
  for (const Slice& s : last.slices) {
    CHECK(s.name.find("--1") == std::string::npos);
    if (s.pid == 3 && s.name.starts_with("F mb")) output += s.name.ends_with(" c0 output layer") ? 1 : 0;
  }
  // 64 sequences on 8 data-parallel ranks: 8 micro-batches, each one forward pass of the chunk.
  CHECK(embedding == 8);
  CHECK(output == 8);
}

TEST_CASE("chrome trace: the deferred output-layer weight gradients are one slice on the last stage, after its passes") {
  const char* arguments = "--set training.defer_embedding_wgrad=true";
  const Layout layout = layout_of(arguments);
  const Trace trace = trace_of(arguments);
  check_trace(trace, layout);
  std::vector<const Slice*> drains;
  std::int64_t last_pass_end = 0;  // ns
  for (const Slice& s : trace.slices) {
    if (s.name.starts_with("deferred output-layer weight gradients")) drains.push_back(&s);
    if (s.pid == layout.pp - 1 && s.cat == "compute" && (s.name.starts_with("F mb") || s.name.starts_with("B mb")))
      last_pass_end = std::max(last_pass_end, s.end);
  }
  REQUIRE(drains.size() == 1);
  CHECK(drains[0]->pid == layout.pp - 1);
  CHECK(drains[0]->name == "deferred output-layer weight gradients, stage 3");
  CHECK(drains[0]->begin >= last_pass_end);
}

// The other streams and phases: context-parallel rings (all of a stage's forwards' rings at once,
// so many lanes), TP overlap, reductions after the backward, ZeRO-0's all-reduce in 300M-parameter
// buckets, MoE all-to-alls, ZeRO-3 with pipeline sends under the flow fidelity.
TEST_CASE("chrome trace: every stream and phase keeps the rules") {
  for (const char* arguments :
       {"--set parallelism.cp=2 --set parallelism.dp=4", "--set parallelism.tp_comm_overlap=true",
        "--set training.overlap_grad_reduce=false --set training.overlap_param_gather=false",
        "--set parallelism.zero=0 --set training.grad_bucket_params=300000000",
        "--set model.preset=deepseek-v3 --set parallelism.ep=8",
        "--set simulation.fidelity=flow --set parallelism.cp=2 --set parallelism.dp=4 --set parallelism.zero=3"}) {
    const std::string scenario = arguments;
    CAPTURE(scenario);
    check_trace(trace_of(arguments), layout_of(arguments));
  }
}

}  // namespace
}  // namespace clustersim::test::chrome_trace
