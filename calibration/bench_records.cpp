#include "calibration/bench_records.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "calibration/input_error.hpp"
#include "calibration/input_file.hpp"
#include "calibration/nccl_tests_log.hpp"
#include "models/compute/transformer_costs.hpp"
#include "scenarios/json_input.hpp"

namespace clustersim::calibration {

double AttentionShape::call_flops() const {
  const auto b = static_cast<double>(batch), s = static_cast<double>(seq), h = static_cast<double>(heads),
             d = static_cast<double>(head_dim);
  return 4.0 * b * h * s * s * d * (causal ? models::kCausalFraction : 1.0) * (1.0 + models::kFlashBackwardFactor);
}

namespace {

using json = nlohmann::json;

// One record being read: every access names its key, so errors carry the JSON pointer.
class Record {
 public:
  Record(const json& object, const std::string& file, int line) : object_(object), file_(file), line_(line) {}

  [[noreturn]] void fail(std::string_view key, const std::string& rule) const {
    throw InputError(file_, line_, key.empty() ? rule : fmt::format("/{}: {}", key, rule));
  }

  void allow_only(std::initializer_list<std::string_view> keys) const {
    static const std::set<std::string_view> common = {"bench", "source", "note", "host", "date", "gpu"};
    for (const auto& [key, value] : object_.items()) {
      if (common.contains(key)) continue;
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        fail(key, fmt::format("unknown key for a \"{}\" record", object_.at("bench").get<std::string>()));
      }
    }
  }

  bool has(std::string_view key) const { return object_.contains(std::string(key)); }

  std::string text(std::string_view key, std::string fallback = {}) const {
    if (!has(key)) return fallback;
    const json& value = object_.at(std::string(key));
    if (!value.is_string()) fail(key, "must be a string");
    return value.get<std::string>();
  }

  std::string required_text(std::string_view key) const {
    if (!has(key)) fail(key, "is required");
    return text(key);
  }

  std::int64_t positive_integer(std::string_view key) const {
    if (!has(key)) fail(key, "is required");
    const json& value = object_.at(std::string(key));
    if (!value.is_number_integer() || value.get<std::int64_t>() <= 0) fail(key, "must be a positive integer");
    return value.get<std::int64_t>();
  }

  double positive_number(std::string_view key) const {
    if (!has(key)) fail(key, "is required");
    const json& value = object_.at(std::string(key));
    if (!value.is_number() || !(value.get<double>() > 0.0) || !std::isfinite(value.get<double>())) {
      fail(key, "must be a positive number");
    }
    return value.get<double>();
  }

  // A time and a rate that imply each other (rate = work / time): either, or both if they agree.
  std::pair<double, double> time_and_rate(std::string_view rate_key, double work_per_us_unit) const {
    const bool has_time = has("time_us"), has_rate = has(rate_key);
    if (!has_time && !has_rate) fail("", fmt::format("needs time_us or {}", rate_key));
    double time = has_time ? positive_number("time_us") : 0.0;
    double rate = has_rate ? positive_number(rate_key) : 0.0;
    if (!has_time) time = work_per_us_unit / rate;
    if (!has_rate) rate = work_per_us_unit / time;
    if (has_time && has_rate && std::abs(work_per_us_unit / time / rate - 1.0) > 0.01) {
      fail(rate_key, fmt::format("{} disagrees with time_us by more than 1% (time_us implies {:.6g})", rate,
                                 work_per_us_unit / time));
    }
    return {time, rate};
  }

  // A probability: 0 <= p < 1.
  double probability(std::string_view key) const {
    const json& value = object_.at(std::string(key));
    if (!value.is_number() || !(value.get<double>() >= 0.0) || !(value.get<double>() < 1.0))
      fail(key, "must be a number in [0, 1)");
    return value.get<double>();
  }

  bool boolean(std::string_view key) const {
    const json& value = object_.at(std::string(key));
    if (!value.is_boolean()) fail(key, "must be true or false");
    return value.get<bool>();
  }

  int line() const { return line_; }

 private:
  const json& object_;
  const std::string& file_;
  int line_;
};

void read_device(const Record& r, BenchRecords& out) {
  r.allow_only({"name", "sm_count", "compute_capability", "memory_bytes", "clock_mhz", "driver", "cuda", "nccl",
                "cublaslt"});
  DeviceRecord device{.line = r.line(), .name = r.required_text("name"), .sm_count = 0};
  if (r.has("sm_count")) device.sm_count = static_cast<int>(std::min<std::int64_t>(r.positive_integer("sm_count"), 100000));
  out.devices.push_back(std::move(device));
}

void read_gemm(const Record& r, BenchRecords& out) {
  r.allow_only({"m", "n", "k", "dtype", "time_us", "tflops", "iters", "warmup", "algos", "algo_rank", "layout", "shape"});
  GemmSample s{.line = r.line(), .m = r.positive_integer("m"), .n = r.positive_integer("n"),
               .k = r.positive_integer("k"), .dtype = r.required_text("dtype")};
  if (s.dtype == "bf16" || s.dtype == "fp16") {
    s.precision = models::Precision::bf16;
  } else if (s.dtype == "fp8_e4m3" || s.dtype == "fp8") {
    s.precision = models::Precision::fp8;
  } else if (s.dtype == "nvfp4") {
    s.precision = models::Precision::nvfp4;
  } else {
    r.fail("dtype", fmt::format("\"{}\" is not bf16, fp16, fp8_e4m3 or nvfp4", s.dtype));
  }
  // tflops = 2mnk / (time_us x 1e-6) / 1e12 = 2mnk / time_us / 1e6.
  const double flops_per_us = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) / 1e6;
  std::tie(s.time_us, s.tflops) = r.time_and_rate("tflops", flops_per_us);
  s.source = r.text("source");
  out.gemm.push_back(std::move(s));
}

void read_membw(const Record& r, BenchRecords& out) {
  r.allow_only({"op", "bytes", "time_us", "gb_per_s", "iters", "warmup"});
  if (r.text("op", "copy") != "copy") r.fail("op", "only \"copy\" is supported");
  MembwSample s{.line = r.line()};
  if (r.has("bytes")) {
    s.bytes = r.positive_integer("bytes");
    // gb_per_s = 2 x bytes / (time_us x 1e-6) / 1e9 = 2 x bytes / time_us / 1e3.
    std::tie(s.time_us, s.gb_per_s) = r.time_and_rate("gb_per_s", 2.0 * static_cast<double>(s.bytes) / 1e3);
  } else {
    // Published rates often omit the array size: then the rate alone, without a time.
    if (r.has("time_us")) r.fail("bytes", "is required with time_us");
    if (!r.has("gb_per_s")) r.fail("gb_per_s", "is required (bytes is not given)");
    s.gb_per_s = r.positive_number("gb_per_s");
  }
  out.membw.push_back(s);
}

void read_attention(const Record& r, BenchRecords& out) {
  r.allow_only({"dtype", "tflops", "batch", "seq", "heads", "head_dim", "causal", "kernel", "dropout"});
  AttentionSample s{.line = r.line(), .dtype = r.required_text("dtype"), .tflops = 0.0, .source = r.text("source")};
  if (s.dtype != "bf16" && s.dtype != "fp16") r.fail("dtype", "attention efficiency is against the bf16 peak: bf16 or fp16");
  if (!r.has("tflops")) r.fail("tflops", "is required");
  s.tflops = r.positive_number("tflops");
  if (r.has("batch") && r.has("seq") && r.has("heads") && r.has("head_dim")) {
    s.shape = AttentionShape{.batch = r.positive_integer("batch"), .seq = r.positive_integer("seq"),
                             .heads = r.positive_integer("heads"), .head_dim = r.positive_integer("head_dim"),
                             .causal = !r.has("causal") || r.boolean("causal")};
  }
  if (r.has("dropout")) s.dropout = r.probability("dropout");
  const std::string kernel = r.text("kernel");
  if (kernel.find("cudnn") != std::string::npos) s.kernel = models::AttentionKernel::cudnn;
  else if (kernel.find("flash-attention-3") != std::string::npos || kernel.find("flash3") != std::string::npos)
    s.kernel = models::AttentionKernel::flash3;
  else if (kernel.find("sdpa") != std::string::npos)
    s.kernel = models::AttentionKernel::sdpa_flash;
  out.attention.push_back(std::move(s));
}

void read_nccl(const Record& r, BenchRecords& out) {
  r.allow_only({"op", "ranks", "ranks_per_node", "nodes", "bytes", "count", "type", "time_us", "algbw_gb_per_s",
                "busbw_gb_per_s", "in_place", "iters", "warmup"});
  const std::string name = r.required_text("op");
  const auto op = parse_collective_name(name);
  if (!op) r.fail("op", fmt::format("\"{}\" is not all_reduce, all_gather, reduce_scatter, all_to_all or send_recv", name));
  CollectiveSample s{.line = r.line(), .op = *op, .ranks = r.positive_integer("ranks")};
  s.ranks_per_node = r.has("ranks_per_node") ? r.positive_integer("ranks_per_node") : s.ranks;
  if (s.ranks < 2) r.fail("ranks", "a collective needs at least 2 ranks");
  if (s.ranks % s.ranks_per_node != 0) r.fail("ranks_per_node", "must divide ranks");
  if (r.has("nodes") && r.positive_integer("nodes") * s.ranks_per_node != s.ranks) {
    r.fail("nodes", "must be ranks / ranks_per_node");
  }
  s.bytes = r.positive_integer("bytes");
  // busbw = bytes x factor / (time_us x 1e-6) / 1e9 = bytes x factor / time_us / 1e3.
  const double work = static_cast<double>(s.bytes) * models::bus_factor(s.op, s.ranks) / 1e3;
  s.time_derived = !r.has("time_us");
  std::tie(s.time_us, s.busbw_gb_per_s) = r.time_and_rate("busbw_gb_per_s", work);
  out.collectives.push_back(s);
}

void read_overlap(const Record& r, BenchRecords& out) {
  r.allow_only({"victim", "comm", "ranks", "comm_bytes", "alone_s", "overlapped_s", "comm_alone_s", "comm_overlapped_s",
                "comm_gb_per_s", "nccl_channels", "ctas", "covered", "m", "n", "k", "dtype", "bytes", "reps", "iters"});
  OverlapSample s{.line = r.line(), .victim = r.required_text("victim"), .comm = r.required_text("comm")};
  if (s.victim != "gemm" && s.victim != "memory") r.fail("victim", fmt::format("\"{}\" is not gemm or memory", s.victim));
  if (s.comm != "nccl_all_reduce" && s.comm != "memcpy_d2d" && s.comm != "memcpy_d2h" && s.comm != "sm_copy") {
    r.fail("comm", fmt::format("\"{}\" is not nccl_all_reduce, memcpy_d2d, memcpy_d2h or sm_copy", s.comm));
  }
  if (r.has("ranks")) s.ranks = r.positive_integer("ranks");
  if (r.has("comm_bytes")) s.comm_bytes = r.positive_integer("comm_bytes");
  if (!r.has("alone_s")) r.fail("alone_s", "is required");
  if (!r.has("overlapped_s")) r.fail("overlapped_s", "is required");
  s.alone_s = r.positive_number("alone_s");
  s.overlapped_s = r.positive_number("overlapped_s");
  if (!r.has("comm_gb_per_s")) r.fail("comm_gb_per_s", "is required");
  s.comm_gb_per_s = r.positive_number("comm_gb_per_s");
  if (r.has("ctas")) s.ctas = r.positive_integer("ctas");
  else if (r.has("nccl_channels")) s.ctas = r.positive_integer("nccl_channels");
  if (r.has("covered")) s.covered = r.boolean("covered");
  out.overlap.push_back(std::move(s));
}

void read_clock(const Record& r, BenchRecords& out) {
  r.allow_only({"work", "dtype", "kernel", "sm_mhz_first_s", "sm_mhz", "power_w", "power_limit_w", "seconds", "tflops",
                "gb_per_s"});
  ClockSample s{.line = r.line(), .work = r.required_text("work"), .dtype = r.text("dtype"), .kernel = r.text("kernel")};
  if (s.work != "gemm" && s.work != "attention" && s.work != "copy" && s.work != "idle")
    r.fail("work", fmt::format("\"{}\" is not gemm, attention, copy or idle", s.work));
  if (s.work == "gemm" && s.dtype != "bf16" && s.dtype != "fp8")
    r.fail("dtype", fmt::format("a GEMM's is bf16 or fp8, not \"{}\"", s.dtype));
  s.sm_mhz_first_s = r.positive_number("sm_mhz_first_s");
  s.sm_mhz = r.positive_number("sm_mhz");
  s.power_w = r.positive_number("power_w");
  if (r.has("power_limit_w")) s.power_limit_w = r.positive_number("power_limit_w");
  if (r.has("tflops")) s.rate = r.positive_number("tflops");
  else if (r.has("gb_per_s")) s.rate = r.positive_number("gb_per_s");
  out.clocks.push_back(std::move(s));
}

}  // namespace

BenchRecords parse_bench_records(std::string_view text, const std::string& file) {
  BenchRecords records{.file = file};
  const auto lines = split_lines(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const int number = static_cast<int>(i + 1);
    const std::string_view line = trim(lines[i]);
    if (line.empty() || line.starts_with('#')) continue;
    json object;
    try {
      object = scenarios::parse_json_input(line);
    } catch (const scenarios::JsonInputError& e) {
      // A value out of range names its pointer; a syntax error says what the line should be.
      throw InputError(file, number, e.pointer().empty() ? fmt::format("not a JSON object: {}", e.what()) : e.what());
    }
    if (!object.is_object()) throw InputError(file, number, "each line must be one JSON object");
    const Record record(object, file, number);
    if (!object.contains("bench") || !object.at("bench").is_string()) {
      record.fail("bench", "is required: device, gemm, membw, attention, nccl, overlap or clock");
    }
    const std::string kind = object.at("bench").get<std::string>();
    if (kind == "device") read_device(record, records);
    else if (kind == "gemm") read_gemm(record, records);
    else if (kind == "membw") read_membw(record, records);
    else if (kind == "attention") read_attention(record, records);
    else if (kind == "nccl") read_nccl(record, records);
    else if (kind == "overlap") read_overlap(record, records);
    else if (kind == "clock") read_clock(record, records);
    else record.fail("bench", fmt::format("\"{}\" is not device, gemm, membw, attention, nccl, overlap or clock", kind));
  }
  return records;
}

BenchRecords read_bench_records(const std::filesystem::path& path) {
  return parse_bench_records(read_input_file(path), path.string());
}

}  // namespace clustersim::calibration
