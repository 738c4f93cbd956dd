#include "calibration/profile.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "calibration/nccl_tests_log.hpp"
#include "calibration/profile_overlap.hpp"
#include "scenarios/scenario_bounds.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/bounded_input.hpp"
#include "scenarios/json_input.hpp"
#include "sim/hashing.hpp"

namespace clustersim::calibration {
namespace {

using ordered_json = nlohmann::ordered_json;
using scenarios::ScenarioError;

constexpr std::string_view kFormat = "clustersim calibration profile";
constexpr int kVersion = 1;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

struct DoubleField {
  std::string_view name;
  models::Sourced<double> models::ComputeProfile::*member;
  double if_missing = kNaN;  // added after version 1 was first written: a missing one takes this
  std::string_view missing_means{};  // and this source
  std::string_view missing_copies{};  // or the value of this earlier field
  bool written_unmeasured = true;     // false: a profile that did not measure it (value 0) leaves it out
};
struct IntField {
  std::string_view name;
  models::Sourced<int> models::ComputeProfile::*member;
};
struct CommField {
  std::string_view name;
  double models::CommProfile::*member;
  bool optional = false;  // added after version 1 was first written: a missing one keeps 0 (not modelled)
};

constexpr std::array kComputeDoubles{
    DoubleField{"gemm_max_efficiency_bf16", &models::ComputeProfile::gemm_max_efficiency_bf16},
    DoubleField{"gemm_max_efficiency_fp8", &models::ComputeProfile::gemm_max_efficiency_fp8},
    DoubleField{"k_half", &models::ComputeProfile::k_half},
    DoubleField{"attention_efficiency", &models::ComputeProfile::attention_efficiency},
    DoubleField{"hbm_efficiency", &models::ComputeProfile::hbm_efficiency},
    DoubleField{"launch_overhead_s", &models::ComputeProfile::launch_overhead_s},
    DoubleField{"sustained_clock_ratio", &models::ComputeProfile::sustained_clock_ratio, 1.0,
                "not in the profile: the constants are taken at the clock they run at"},
    DoubleField{"attention_clock_factor", &models::ComputeProfile::attention_clock_factor, 1.0,
                "not in the profile: attention holds the GEMMs' clock (sustained_clock_ratio)"},
    // Profiles written before attention was told apart by kernel measured one kernel.
    DoubleField{"attention_cudnn_efficiency", &models::ComputeProfile::attention_cudnn_efficiency, kNaN,
                "not in the profile: as FlashAttention-2 (attention_efficiency)", "attention_efficiency"},
    DoubleField{"attention_flash3_efficiency", &models::ComputeProfile::attention_flash3_efficiency, kNaN,
                "not in the profile: as FlashAttention-2 (attention_efficiency)", "attention_efficiency"},
    DoubleField{"attention_sdpa_flash_efficiency", &models::ComputeProfile::attention_sdpa_flash_efficiency, kNaN,
                "not in the profile: as FlashAttention-2 (attention_efficiency)", "attention_efficiency"},
    DoubleField{"attention_dropout_share", &models::ComputeProfile::attention_dropout_share, 0.0,
                "not in the profile: dropout taken to cost the attention kernel nothing"},
    // Fitted from nvfp4 GEMM records only: a profile without the figure keeps the built-in one.
    DoubleField{"gemm_max_efficiency_fp4", &models::ComputeProfile::gemm_max_efficiency_fp4, 0.0,
                "not in the profile: the built-in NVFP4 GEMM rate, where the GPU has one", {}, false},
};
constexpr std::array kComputeInts{
    IntField{"sm_count", &models::ComputeProfile::sm_count},
    IntField{"tile_m", &models::ComputeProfile::tile_m},
    IntField{"tile_n", &models::ComputeProfile::tile_n},
};
constexpr std::array kCommFields{
    CommField{"nvlink_efficiency", &models::CommProfile::nvlink_efficiency},
    CommField{"network_efficiency", &models::CommProfile::network_efficiency},
    CommField{"launch_latency_s", &models::CommProfile::launch_latency_s},
    CommField{"nvlink_hop_latency_s", &models::CommProfile::nvlink_hop_latency_s},
    CommField{"network_hop_latency_s", &models::CommProfile::network_hop_latency_s},
    CommField{"nvls_algbw_efficiency", &models::CommProfile::nvls_algbw_efficiency},
    CommField{"tree_efficiency", &models::CommProfile::tree_efficiency},
    CommField{"network_bulk_hop_latency_s", &models::CommProfile::network_bulk_hop_latency_s},
    CommField{"ll_base_latency_s", &models::CommProfile::ll_base_latency_s, true},
    CommField{"ll_network_hop_latency_s", &models::CommProfile::ll_network_hop_latency_s, true},
    CommField{"ll_network_efficiency", &models::CommProfile::ll_network_efficiency, true},
    CommField{"tree_coupling_exponent", &models::CommProfile::tree_coupling_exponent, true},
    CommField{"all_to_all_base_latency_s", &models::CommProfile::all_to_all_base_latency_s, true},
    CommField{"all_to_all_peer_latency_s", &models::CommProfile::all_to_all_peer_latency_s, true},
    CommField{"p2p_network_latency_s", &models::CommProfile::p2p_network_latency_s, true},
    CommField{"p2p_network_share", &models::CommProfile::p2p_network_share, true},
};

// The physical range of each constant, checked where it is read, so that a profile cannot turn
// a step into 105 % MFU or infinite time. Efficiencies are achieved over peak: above 0 (a step
// divides by them), at most 1; 0 only where it means "not modelled". Latencies: a kernel launch
// or a hop takes microseconds, a link across a continent 30 ms; 1 s is past any.
constexpr scenarios::Bounds kEfficiency{.min = 0, .min_exclusive = true, .max = 1};
constexpr scenarios::Bounds kEfficiencyOrNone{.min = 0, .max = 1};
constexpr scenarios::Bounds kLatencyS{.min = 0, .max = 1};

struct FieldRange {
  std::string_view name;
  scenarios::Bounds bounds;
};
constexpr std::array kRanges{
    FieldRange{"gemm_max_efficiency_bf16", kEfficiency},
    FieldRange{"gemm_max_efficiency_fp8", kEfficiencyOrNone},  // 0: no FP8 tensor cores
    FieldRange{"gemm_max_efficiency_fp4", kEfficiencyOrNone},  // 0: none measured
    // The reduction length of half fill: a few hundred elements on Ampere to Blackwell.
    FieldRange{"k_half", {.min = 0, .min_exclusive = true, .max = 1e6}},
    FieldRange{"attention_efficiency", kEfficiency},
    FieldRange{"attention_cudnn_efficiency", kEfficiency},
    FieldRange{"attention_flash3_efficiency", kEfficiency},
    FieldRange{"attention_sdpa_flash_efficiency", kEfficiency},
    FieldRange{"hbm_efficiency", kEfficiency},
    FieldRange{"launch_overhead_s", kLatencyS},
    // Sustained over measured clock: 0.84 on Hopper at its power limit; 2 allows a measurement
    // taken at a throttled clock.
    FieldRange{"sustained_clock_ratio", {.min = 0, .min_exclusive = true, .max = 2}},
    // Attention's held clock over the GEMMs': it cannot pass the boost clock, 1 / sustained_clock_ratio
    // (1.19 on Hopper); 2 leaves room for a board the GEMMs throttle harder.
    FieldRange{"attention_clock_factor", {.min = 0, .min_exclusive = true, .max = 2}},
    // Time per FLOP at the peak: dropout adds work to the kernel (a measurement may read a hair
    // under 0, a call a hair faster with it); 4 is past the slowest published reading (the GB200's
    // backward at 60 % of its rate, 1.3 of the peak's time per FLOP at its kernel's 0.5).
    FieldRange{"attention_dropout_share", {.min = -0.1, .max = 4}},
    FieldRange{"nvlink_efficiency", kEfficiency},
    FieldRange{"network_efficiency", kEfficiency},
    FieldRange{"launch_latency_s", kLatencyS},
    FieldRange{"nvlink_hop_latency_s", kLatencyS},
    FieldRange{"network_hop_latency_s", kLatencyS},
    FieldRange{"nvls_algbw_efficiency", kEfficiencyOrNone},  // 0: no NVLS
    FieldRange{"tree_efficiency", kEfficiency},
    FieldRange{"network_bulk_hop_latency_s", kLatencyS},
    FieldRange{"ll_base_latency_s", kLatencyS},
    FieldRange{"ll_network_hop_latency_s", kLatencyS},
    FieldRange{"ll_network_efficiency", kEfficiencyOrNone},  // 0: not modelled
    // The soft minimum's exponent: 4 in the bundled profiles; 0: the plain minimum.
    FieldRange{"tree_coupling_exponent", {.min = 0, .max = 64}},
    FieldRange{"all_to_all_base_latency_s", kLatencyS},
    FieldRange{"all_to_all_peer_latency_s", kLatencyS},
    FieldRange{"p2p_network_latency_s", kLatencyS},
    FieldRange{"p2p_network_share", kEfficiencyOrNone},  // 0: not modelled
};

const scenarios::Bounds& range_of(std::string_view name) {
  for (const FieldRange& r : kRanges)
    if (r.name == name) return r.bounds;
  throw std::logic_error("calibration profile field without a range: " + std::string(name));
}

/// The names of the fields in one or more of the tables above: a section's allowed keys.
template <class... Tables>
std::vector<std::string_view> field_names(const Tables&... tables) {
  std::vector<std::string_view> names;
  (..., [&] {
    for (const auto& f : tables) names.push_back(f.name);
  }());
  return names;
}

// JSON has no NaN or infinity: both are written as null.
ordered_json number_or_null(double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(nullptr); }

ordered_json constant(double value, const std::string& source, const CalibrationProfile& p, const std::string& pointer) {
  ordered_json j;
  j["value"] = value;
  j["source"] = source;
  if (const auto it = p.ci95.find(pointer); it != p.ci95.end()) {
    j["ci95"] = ordered_json::array({number_or_null(it->second.first), number_or_null(it->second.second)});
  }
  return j;
}

ordered_json segment_json(const AlphaBetaSegment& s) {
  ordered_json j;
  j["min_bytes"] = s.min_bytes;
  j["max_bytes"] = s.max_bytes;
  j["points"] = s.points;
  j["alpha_us"] = s.alpha_us;
  if (std::isfinite(s.alpha_lo_us)) j["alpha_us_ci95"] = ordered_json::array({s.alpha_lo_us, s.alpha_hi_us});
  j["busbw_gb_per_s"] = number_or_null(s.busbw_gb_per_s);
  if (std::isfinite(s.busbw_lo)) {
    j["busbw_gb_per_s_ci95"] = ordered_json::array({s.busbw_lo, number_or_null(s.busbw_hi)});
  }
  j["r2_log"] = s.r2_log;
  j["rms_relative"] = s.rms_relative;
  j["max_relative"] = s.max_relative;
  return j;
}

// Reading with the JSON pointer of every value at hand, so each error can name it.
class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& pointer, const std::string& rule) const {
    throw ScenarioError(source_, pointer, rule);
  }

  const ordered_json& member(const ordered_json& object, const std::string& pointer, std::string_view key) const {
    const auto it = object.find(std::string(key));
    if (it == object.end()) fail(pointer, fmt::format("\"{}\" is required", key));
    return *it;
  }

  void only_keys(const ordered_json& object, const std::string& pointer, std::initializer_list<std::string_view> keys) const {
    only_keys(object, pointer, std::span<const std::string_view>(keys.begin(), keys.size()));
  }
  void only_keys(const ordered_json& object, const std::string& pointer, std::span<const std::string_view> keys) const {
    if (!object.is_object()) fail(pointer, "must be an object");
    for (const auto& [key, value] : object.items()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) fail(pointer + "/" + key, "unknown key");
    }
  }

  double number(const ordered_json& value, const std::string& pointer, bool null_is_nan = false) const {
    if (null_is_nan && value.is_null()) return kNaN;
    if (!value.is_number()) fail(pointer, "must be a number");
    return value.get<double>();
  }

  bool boolean(const ordered_json& value, const std::string& pointer) const {
    if (!value.is_boolean()) fail(pointer, "must be true or false");
    return value.get<bool>();
  }

  std::int64_t integer(const ordered_json& value, const std::string& pointer, std::int64_t min) const {
    if (!value.is_number_integer() || value.get<std::int64_t>() < min) {
      fail(pointer, fmt::format("must be an integer >= {}", min));
    }
    return value.get<std::int64_t>();
  }

  // A number read already, against its range: "must be a number in (0, 1], got 1e+308".
  void in_range(double value, const scenarios::Bounds& bounds, const std::string& pointer) const {
    if (!bounds.contains(value)) fail(pointer, fmt::format("must be a number in {}, got {}", bounds.text(false), value));
  }

  std::string text(const ordered_json& value, const std::string& pointer) const {
    if (!value.is_string()) fail(pointer, "must be a string");
    return value.get<std::string>();
  }

  std::pair<double, double> interval(const ordered_json& value, const std::string& pointer, bool open_hi) const {
    if (!value.is_array() || value.size() != 2) fail(pointer, "must be [lo, hi]");
    const double lo = number(value[0], pointer + "/0");
    const double hi = open_hi && value[1].is_null() ? kInf : number(value[1], pointer + "/1");
    if (hi < lo) fail(pointer, "hi must be >= lo");
    return {lo, hi};
  }

  // {"value", "source", "ci95"?}: returns value and source, records the interval.
  std::pair<double, std::string> constant(const ordered_json& object, const std::string& pointer,
                                          CalibrationProfile& profile) const {
    only_keys(object, pointer, {"value", "source", "ci95"});
    const double value = number(member(object, pointer, "value"), pointer + "/value");
    if (!std::isfinite(value) || value < 0.0) fail(pointer + "/value", "must be a finite number >= 0");
    const std::string source = text(member(object, pointer, "source"), pointer + "/source");
    if (source.empty()) fail(pointer + "/source", "must say where the value comes from");
    if (object.contains("ci95")) profile.ci95[pointer] = interval(object.at("ci95"), pointer + "/ci95", false);
    return {value, source};
  }

 private:
  const std::string& source_;
};

AlphaBetaSegment read_segment(const Reader& r, const ordered_json& j, const std::string& pointer) {
  r.only_keys(j, pointer, {"min_bytes", "max_bytes", "points", "alpha_us", "alpha_us_ci95", "busbw_gb_per_s",
                           "busbw_gb_per_s_ci95", "r2_log", "rms_relative", "max_relative"});
  AlphaBetaSegment s;
  s.min_bytes = r.integer(r.member(j, pointer, "min_bytes"), pointer + "/min_bytes", 0);
  s.max_bytes = r.integer(r.member(j, pointer, "max_bytes"), pointer + "/max_bytes", s.min_bytes);
  s.points = static_cast<int>(r.integer(r.member(j, pointer, "points"), pointer + "/points", 1));
  s.alpha_us = r.number(r.member(j, pointer, "alpha_us"), pointer + "/alpha_us");
  r.in_range(s.alpha_us, {.min = 0, .max = 1e6}, pointer + "/alpha_us");  // us: 1 s, as kLatencyS
  s.alpha_lo_us = s.alpha_hi_us = kNaN;
  if (j.contains("alpha_us_ci95")) {
    std::tie(s.alpha_lo_us, s.alpha_hi_us) = r.interval(j.at("alpha_us_ci95"), pointer + "/alpha_us_ci95", false);
  }
  s.busbw_gb_per_s = r.number(r.member(j, pointer, "busbw_gb_per_s"), pointer + "/busbw_gb_per_s", true);
  // Bus bandwidth: the bundled profiles reach about 2,000 GB/s; 100 TB/s is fifty times that.
  if (!std::isnan(s.busbw_gb_per_s) && !(s.busbw_gb_per_s > 0.0 && s.busbw_gb_per_s <= 1e5)) {
    r.fail(pointer + "/busbw_gb_per_s", fmt::format("must be null or a number in (0, 100000] GB/s, got {}", s.busbw_gb_per_s));
  }
  s.busbw_lo = s.busbw_hi = kNaN;
  if (j.contains("busbw_gb_per_s_ci95")) {
    std::tie(s.busbw_lo, s.busbw_hi) = r.interval(j.at("busbw_gb_per_s_ci95"), pointer + "/busbw_gb_per_s_ci95", true);
  }
  s.r2_log = r.number(r.member(j, pointer, "r2_log"), pointer + "/r2_log");
  s.rms_relative = r.number(r.member(j, pointer, "rms_relative"), pointer + "/rms_relative");
  s.max_relative = r.number(r.member(j, pointer, "max_relative"), pointer + "/max_relative");
  return s;
}

}  // namespace

std::string fnv1a64(std::string_view bytes) { return fmt::format("{:016x}", sim::fnv1a64(bytes)); }

std::string profile_to_json(const CalibrationProfile& p) {
  ordered_json root;
  root["format"] = kFormat;
  root["version"] = kVersion;
  root["gpu"] = p.gpu;
  ordered_json compute = ordered_json::object();
  for (const auto& f : kComputeDoubles) {
    const auto& c = p.compute.*f.member;
    if (!f.written_unmeasured && !(c.value > 0.0)) continue;
    compute[std::string(f.name)] = constant(c.value, c.source, p, "/compute/" + std::string(f.name));
  }
  for (const auto& f : kComputeInts) {
    const auto& c = p.compute.*f.member;
    compute[std::string(f.name)] = constant(c.value, c.source, p, "/compute/" + std::string(f.name));
    compute[std::string(f.name)]["value"] = c.value;  // an integer, not 132.0
  }
  root["compute"] = std::move(compute);
  ordered_json comm = ordered_json::object();
  for (const auto& f : kCommFields) {
    const auto it = p.comm_sources.find(f.name);
    const std::string source = it != p.comm_sources.end() ? it->second : p.comm.source;
    comm[std::string(f.name)] = constant(p.comm.*f.member, source, p, "/comm/" + std::string(f.name));
  }
  root["comm"] = std::move(comm);
  if (p.overlap_section) root["overlap"] = overlap_section_json(p.compute.overlap, p.ci95);
  ordered_json collectives = ordered_json::array();
  for (const auto& c : p.collectives) {
    ordered_json j;
    j["op"] = collective_name(c.op);
    j["scope"] = scope_name(c.scope());
    j["ranks"] = c.ranks;
    j["ranks_per_node"] = c.ranks_per_node;
    j["bus_factor"] = c.bus_factor();
    j["source"] = c.source;
    if (c.aws_ofi_tuner) j["aws_ofi_tuner"] = true;
    ordered_json segments = ordered_json::array();
    for (const auto& s : c.segments) segments.push_back(segment_json(s));
    j["segments"] = std::move(segments);
    collectives.push_back(std::move(j));
  }
  root["collectives"] = std::move(collectives);
  if (p.network) {
    ordered_json network;
    network["fabric"] = std::string(models::fabric_name(p.network->fabric));
    network["nic_gbit_per_s"] = p.network->nic_bytes_per_s * 8.0 / 1e9;
    network["nics_per_node"] = p.network->nics_per_node;
    network["source"] = p.network_source;
    root["network"] = std::move(network);
  }
  ordered_json metadata;
  metadata["created_by"] = p.metadata.created_by;
  metadata["arguments"] = p.metadata.arguments;
  ordered_json inputs = ordered_json::array();
  for (const auto& in : p.metadata.inputs) {
    inputs.push_back({{"path", in.path}, {"kind", in.kind}, {"fnv1a64", in.fnv1a64}, {"records", in.records}});
  }
  metadata["inputs"] = std::move(inputs);
  if (!p.metadata.note.empty()) metadata["note"] = p.metadata.note;
  root["metadata"] = std::move(metadata);
  return root.dump(2) + "\n";
}

CalibrationProfile parse_profile(std::string_view text, const std::string& source) {
  const Reader r(source);
  ordered_json root;
  try {
    root = scenarios::parse_ordered_json_input(text);
  } catch (const scenarios::JsonInputError& e) {
    throw ScenarioError(source, e.pointer(), e.rule());
  }
  r.only_keys(root, "", {"format", "version", "gpu", "compute", "comm", "overlap", "collectives", "network", "metadata"});
  if (r.text(r.member(root, "", "format"), "/format") != kFormat) {
    r.fail("/format", fmt::format("must be \"{}\"", kFormat));
  }
  if (r.integer(r.member(root, "", "version"), "/version", 1) != kVersion) {
    r.fail("/version", fmt::format("this clustersim reads version {}", kVersion));
  }
  CalibrationProfile p;
  p.gpu = r.text(r.member(root, "", "gpu"), "/gpu");
  if (p.gpu.empty()) r.fail("/gpu", "must name the GPU preset");
  p.compute.gpu = p.gpu;

  const ordered_json& compute = r.member(root, "", "compute");
  r.only_keys(compute, "/compute", field_names(kComputeDoubles, kComputeInts));
  for (const auto& f : kComputeDoubles) {
    const std::string pointer = "/compute/" + std::string(f.name);
    if (!std::isnan(f.if_missing) && !compute.contains(f.name)) {
      p.compute.*f.member = {f.if_missing, std::string(f.missing_means)};
      continue;
    }
    if (!f.missing_copies.empty() && !compute.contains(f.name)) {
      const auto copied = std::find_if(kComputeDoubles.begin(), kComputeDoubles.end(),
                                       [&](const DoubleField& g) { return g.name == f.missing_copies; });
      p.compute.*f.member = {(p.compute.*(copied->member)).value, std::string(f.missing_means)};
      continue;
    }
    const auto [value, from] = r.constant(r.member(compute, "/compute", f.name), pointer, p);
    r.in_range(value, range_of(f.name), pointer + "/value");
    p.compute.*f.member = {value, from};
  }
  for (const auto& f : kComputeInts) {
    const std::string pointer = "/compute/" + std::string(f.name);
    const ordered_json& object = r.member(compute, "/compute", f.name);
    const auto [value, from] = r.constant(object, pointer, p);
    const auto count = r.integer(object.at("value"), pointer + "/value", 1);
    if (count > 1'000'000) r.fail(pointer + "/value", "must be <= 1000000");
    (void)value;
    p.compute.*f.member = {static_cast<int>(count), from};
  }
  p.overlap_section = root.contains("overlap");
  p.compute.overlap = p.overlap_section ? read_overlap_section(root.at("overlap"), source, p.ci95)
                                        : models::default_overlap_interference(p.gpu);

  const ordered_json& comm = r.member(root, "", "comm");
  r.only_keys(comm, "/comm", field_names(kCommFields));
  std::string joined;
  for (const auto& f : kCommFields) {
    if (f.optional && !comm.contains(f.name)) continue;
    const std::string pointer = "/comm/" + std::string(f.name);
    const auto [value, from] = r.constant(r.member(comm, "/comm", f.name), pointer, p);
    r.in_range(value, range_of(f.name), pointer + "/value");
    p.comm.*f.member = value;
    p.comm_sources[std::string(f.name)] = from;
    joined += fmt::format("{}{}: {}", joined.empty() ? "" : "; ", f.name, from);
  }
  p.comm.source = fmt::format("calibration profile {}: {}", source, joined);

  const ordered_json& collectives = r.member(root, "", "collectives");
  if (!collectives.is_array()) r.fail("/collectives", "must be an array");
  for (std::size_t i = 0; i < collectives.size(); ++i) {
    const std::string pointer = fmt::format("/collectives/{}", i);
    const ordered_json& c = collectives[i];
    r.only_keys(c, pointer, {"op", "scope", "ranks", "ranks_per_node", "bus_factor", "source", "aws_ofi_tuner", "segments"});
    CollectiveModel model;
    const std::string op = r.text(r.member(c, pointer, "op"), pointer + "/op");
    const auto parsed = parse_collective_name(op);
    if (!parsed) r.fail(pointer + "/op", fmt::format("\"{}\" is not a collective", op));
    model.op = *parsed;
    model.ranks = r.integer(r.member(c, pointer, "ranks"), pointer + "/ranks", 2);
    model.ranks_per_node = r.integer(r.member(c, pointer, "ranks_per_node"), pointer + "/ranks_per_node", 1);
    if (model.ranks % model.ranks_per_node != 0) r.fail(pointer + "/ranks_per_node", "must divide ranks");
    if (c.contains("scope") && r.text(c.at("scope"), pointer + "/scope") != scope_name(model.scope())) {
      r.fail(pointer + "/scope", fmt::format("must be \"{}\" for this layout", scope_name(model.scope())));
    }
    if (c.contains("bus_factor") && std::abs(r.number(c.at("bus_factor"), pointer + "/bus_factor") - model.bus_factor()) > 1e-9) {
      r.fail(pointer + "/bus_factor", fmt::format("must be {} for {} on {} ranks", model.bus_factor(), op, model.ranks));
    }
    model.source = r.text(r.member(c, pointer, "source"), pointer + "/source");
    if (c.contains("aws_ofi_tuner")) {
      model.aws_ofi_tuner = r.boolean(c.at("aws_ofi_tuner"), pointer + "/aws_ofi_tuner");
      if (model.aws_ofi_tuner && model.nodes() < 2) r.fail(pointer + "/aws_ofi_tuner", "only a curve across nodes has a tuner of its own");
    }
    const ordered_json& segments = r.member(c, pointer, "segments");
    if (!segments.is_array() || segments.empty()) r.fail(pointer + "/segments", "must be a non-empty array");
    for (std::size_t s = 0; s < segments.size(); ++s) {
      model.segments.push_back(read_segment(r, segments[s], fmt::format("{}/segments/{}", pointer, s)));
    }
    p.collectives.push_back(std::move(model));
  }

  if (root.contains("network")) {
    const ordered_json& network = root.at("network");
    r.only_keys(network, "/network", {"fabric", "nic_gbit_per_s", "nics_per_node", "source"});
    const std::string fabric = r.text(r.member(network, "/network", "fabric"), "/network/fabric");
    const std::optional<models::Fabric> measured_fabric = models::fabric_from_name(fabric);
    if (!measured_fabric) {
      r.fail("/network/fabric", fmt::format("must be one of \"{}\"", fmt::join(models::kFabricNames, "\", \"")));
    }
    const double gbit = r.number(r.member(network, "/network", "nic_gbit_per_s"), "/network/nic_gbit_per_s");
    r.in_range(gbit, scenarios::key_bounds::nic_gbit_per_s, "/network/nic_gbit_per_s");
    p.network = models::MeasuredNetwork{
        .fabric = *measured_fabric,  // r.fail throws on any other name
        .nic_bytes_per_s = gbit * 1e9 / 8.0,
        .nics_per_node = r.integer(r.member(network, "/network", "nics_per_node"), "/network/nics_per_node", 1)};
    r.in_range(static_cast<double>(p.network->nics_per_node), scenarios::key_bounds::nics_per_node,
               "/network/nics_per_node");
    p.network_source = r.text(r.member(network, "/network", "source"), "/network/source");
  }

  const ordered_json& metadata = r.member(root, "", "metadata");
  r.only_keys(metadata, "/metadata", {"created_by", "arguments", "inputs", "note"});
  if (metadata.contains("note")) p.metadata.note = r.text(metadata.at("note"), "/metadata/note");
  p.metadata.created_by = r.text(r.member(metadata, "/metadata", "created_by"), "/metadata/created_by");
  const ordered_json& arguments = r.member(metadata, "/metadata", "arguments");
  if (!arguments.is_array()) r.fail("/metadata/arguments", "must be an array of strings");
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    p.metadata.arguments.push_back(r.text(arguments[i], fmt::format("/metadata/arguments/{}", i)));
  }
  const ordered_json& inputs = r.member(metadata, "/metadata", "inputs");
  if (!inputs.is_array()) r.fail("/metadata/inputs", "must be an array");
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string pointer = fmt::format("/metadata/inputs/{}", i);
    r.only_keys(inputs[i], pointer, {"path", "kind", "fnv1a64", "records"});
    p.metadata.inputs.push_back({.path = r.text(r.member(inputs[i], pointer, "path"), pointer + "/path"),
                                 .kind = r.text(r.member(inputs[i], pointer, "kind"), pointer + "/kind"),
                                 .fnv1a64 = r.text(r.member(inputs[i], pointer, "fnv1a64"), pointer + "/fnv1a64"),
                                 .records = static_cast<int>(r.integer(r.member(inputs[i], pointer, "records"),
                                                                       pointer + "/records", 0))});
  }
  return p;
}

CalibrationProfile load_profile(const std::filesystem::path& path) {
  return parse_profile(scenarios::read_input_file_bounded(path), path.string());
}

}  // namespace clustersim::calibration
