#include "calibration/calibrate.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "calibration/least_squares.hpp"
#include "calibration/nccl_tests_log.hpp"
#include "calibration/raw_inputs.hpp"
#include "scenarios/presets.hpp"

namespace clustersim::calibration {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::int64_t kLatencySizes = 64 * 1024;  // a fit reaching down to here shows the latency floor
constexpr std::string_view kBuiltIn = "built-in, not calibrated here: ";

// The GPU die a preset is built on. Presets of one die share their kernels' behaviour (the
// bundled H100 profile fits the GEMMs measured on an H200: both are GH100 with 132 SMs), so --gpu
// may name another preset of the die the inputs were measured on, never another die.
std::string chip_of(std::string_view preset) {
  if (preset.starts_with("a100")) return "Ampere GA100";
  if (preset.starts_with("h100") || preset.starts_with("h200")) return "Hopper GH100";
  if (preset.starts_with("b200") || preset.starts_with("gb200")) return "Blackwell B200";
  if (preset.starts_with("gb300") || preset.starts_with("b300")) return "Blackwell Ultra B300";
  return std::string(preset);
}

std::string choose_gpu(const CalibrateOptions& options, const RawInputs& in) {
  if (!options.gpu.empty()) {
    // A device the presets do not know is what --gpu is for; a known one must be the same chip.
    for (const auto& name : in.device_names) {
      const std::string preset = gpu_preset_for_device(name);
      if (!preset.empty() && chip_of(preset) != chip_of(options.gpu)) {
        throw std::invalid_argument(fmt::format("--gpu {} ({}): the inputs were measured on \"{}\" ({}, {}): "
                                                "calibrate them with --gpu {}, or leave --gpu out",
                                                options.gpu, chip_of(options.gpu), name, preset, chip_of(preset),
                                                preset));
      }
    }
    return options.gpu;
  }
  std::set<std::string> presets;
  for (const auto& name : in.device_names) {
    const std::string preset = gpu_preset_for_device(name);
    if (preset.empty()) throw std::invalid_argument(fmt::format("no GPU preset for device \"{}\": pass --gpu", name));
    presets.insert(preset);
  }
  if (presets.empty()) throw std::invalid_argument("the inputs do not name their GPU: pass --gpu");
  if (presets.size() > 1) {
    throw std::invalid_argument(fmt::format("the inputs come from different GPUs ({}): calibrate one type at a time",
                                            fmt::join(presets, ", ")));
  }
  return *presets.begin();
}

// Latency steps of models::collective_time_s, read off the model itself (unit hop latencies, no
// bandwidth term) so that the split below stays the model's.
std::pair<double, double> latency_steps(const CollectiveModel& c, const models::ClusterSpec& cluster) {
  models::ClusterSpec spec = cluster;
  spec.ideal_network = false;
  spec.gpus_per_node = c.ranks_per_node;
  spec.num_gpus = c.ranks;
  const models::CommGroup group{.ranks = c.ranks, .ranks_per_node = c.ranks_per_node};
  models::CommProfile unit{.nvlink_efficiency = 1.0, .network_efficiency = 1.0, .launch_latency_s = 0.0,
                           .nvlink_hop_latency_s = 1.0, .network_hop_latency_s = 0.0, .source = ""};
  constexpr double no_bytes = 1e-300;
  const double nvlink = models::collective_time_s(c.op, no_bytes, group, spec, unit);
  unit.nvlink_hop_latency_s = 0.0;
  unit.network_hop_latency_s = 1.0;
  const double network = models::collective_time_s(c.op, no_bytes, group, spec, unit);
  return {std::round(nvlink), std::round(network)};
}

class ProfileBuilder {
 public:
  ProfileBuilder(const std::string& gpu, const CalibrateOptions& options, Calibration& out)
      : options_(options), out_(out), gpu_(scenarios::gpu_preset(gpu)) {
    out_.profile.gpu = gpu;
    out_.profile.compute = models::default_compute_profile(scenarios::gpu_compute_profile(gpu));
    // FP4 only from nvfp4 GEMM records: without them the profile leaves the figure out and runs keep
    // the built-in one.
    out_.profile.compute.gemm_max_efficiency_fp4 = {0.0, "not fitted: no nvfp4 GEMM records"};
    cluster_.gpu = gpu_;
    cluster_.nic_bytes_per_s = options.nic_gbit_per_s * 1e9 / 8.0;
    cluster_.nics_per_node = options.nics_per_node;
    cluster_.fabric = options.fabric;
    const models::CommProfile defaults = models::default_comm_profile(cluster_);
    out_.profile.comm = defaults;
    for (const auto* f : {"nvlink_efficiency", "network_efficiency", "launch_latency_s", "nvlink_hop_latency_s",
                          "network_hop_latency_s", "nvls_algbw_efficiency", "tree_efficiency", "tree_coupling_exponent",
                          "network_bulk_hop_latency_s", "ll_base_latency_s", "ll_network_hop_latency_s",
                          "ll_network_efficiency", "all_to_all_base_latency_s", "all_to_all_peer_latency_s",
                          "p2p_network_latency_s", "p2p_network_share"}) {
      out_.profile.comm_sources[f] = std::string(kBuiltIn) + "models::default_comm_profile (InfiniBand): " + defaults.source;
    }
    auto& c = out_.profile.compute;
    for (auto* s : {&c.gemm_max_efficiency_bf16, &c.gemm_max_efficiency_fp8, &c.k_half, &c.attention_efficiency,
                    &c.hbm_efficiency, &c.launch_overhead_s, &c.sustained_clock_ratio, &c.attention_clock_factor,
                    &c.attention_cudnn_efficiency, &c.attention_flash3_efficiency, &c.attention_sdpa_flash_efficiency,
                    &c.attention_dropout_share}) {
      s->source = std::string(kBuiltIn) + s->source;
    }
    for (auto* s : {&c.sm_count, &c.tile_m, &c.tile_n}) s->source = std::string(kBuiltIn) + s->source;
  }

  void fit_overlap_samples(const RawInputs& in) {
    if (in.overlap.empty()) return;
    auto& o = out_.profile.compute.overlap;
    for (auto* s : {&o.sms_held, &o.hbm_bytes_per_bus_byte, &o.copy_hbm_bytes_per_byte}) {
      s->source = std::string(kBuiltIn) + s->source;
    }
    const models::OverlapInterference defaults = models::default_overlap_interference(scenarios::gpu_compute_profile(out_.profile.gpu));
    OverlapFit fit = fit_overlap(in.overlap, gpu_, out_.profile.compute.sm_count.value, defaults);
    for (const auto& e : fit.estimates) {
      if (!e.sets_constant) continue;
      auto& target = e.quantity == "sms_held"                 ? o.sms_held
                     : e.quantity == "hbm_bytes_per_bus_byte" ? o.hbm_bytes_per_bus_byte
                                                              : o.copy_hbm_bytes_per_byte;
      const std::string scale = e.quantity == "sms_held"
                                    ? fmt::format("{} SMs", out_.profile.compute.sm_count.value)
                                    : fmt::format("HBM {:.0f} GB/s / the transfer's rate", gpu_.hbm_bytes_per_s / 1e9);
      target = {e.value, fmt::format("measured: throughput lost by {} beside {} (1 - alone/overlapped, mean {:.3f}) x {}, "
                                     "mean of {} sample(s) in {}",
                                     e.victim == "gemm" ? "a GEMM" : "a copy kernel", e.comm, e.mean_lost, scale,
                                     e.samples, e.from)};
      set_ci("/overlap/" + e.quantity, e.lo, e.hi);
    }
    for (auto& note : fit.notes) out_.notes.push_back(note);
    out_.profile.overlap_section = true;
    out_.overlap = std::move(fit);
  }

  void fit_collectives(const RawInputs& in) {
    for (const auto& [key, group] : in.groups) {
      out_.collectives.push_back({.fit = fit_collective(group, options_.fit), .simulator_max_error = kNaN});
      CollectiveModel& model = out_.collectives.back().fit.model;
      model.aws_ofi_tuner =
          (options_.aws_ofi_tuner || models::fabric_runs_aws_ofi_tuner(options_.fabric)) && model.nodes() > 1;
      out_.profile.collectives.push_back(out_.collectives.back().fit.model);
    }
    for (const auto& group : in.single_rank) out_.single_rank.push_back(fit_single_rank(group));
    map_efficiency(LinkScope::nvlink);
    map_efficiency(LinkScope::network);
    map_latencies();
    map_point_to_point();
    for (auto& report : out_.collectives) report.simulator_max_error = simulator_error(report.fit);
  }

  void fit_compute(const RawInputs& in) {
    auto& c = out_.profile.compute;
    if (!in.sm_counts.empty()) {
      for (const auto& [where, count] : in.sm_counts) {
        if (count != in.sm_counts.front().second) {
          throw std::invalid_argument(fmt::format("device records disagree on the SM count: {} ({}) vs {} ({})",
                                                  in.sm_counts.front().second, in.sm_counts.front().first, count, where));
        }
      }
      c.sm_count = {in.sm_counts.front().second, fmt::format("measured: device record, {}", in.sm_counts.front().first)};
    }
    if (!in.gemm.empty()) fit_gemm_samples(in);
    if (!in.membw.empty()) {
      // STREAM-style: the best sustained rate of the large copies.
      double best = 0.0;
      int used = 0;
      const bool any_large = std::any_of(in.membw.begin(), in.membw.end(), [](const auto& s) { return s.bytes == 0 || s.bytes >= (64 << 20); });
      for (const auto& s : in.membw) {
        if (any_large && s.bytes != 0 && s.bytes < (64 << 20)) continue;
        best = std::max(best, s.gb_per_s);
        ++used;
      }
      c.hbm_efficiency = {best * 1e9 / gpu_.hbm_bytes_per_s,
                          fmt::format("measured: best device-to-device copy rate {:.0f} GB/s (read + write) of {} "
                                      "copies in {} / datasheet {:.0f} GB/s",
                                      best, used, in.membw_from.text(), gpu_.hbm_bytes_per_s / 1e9)};
    }
    if (!in.attention.empty()) fit_attention(in);
    if (!in.clocks.empty()) fit_clocks(in);
  }

 private:
  void set_ci(const std::string& pointer, double lo, double hi) {
    if (std::isfinite(lo) && std::isfinite(hi)) out_.profile.ci95[pointer] = {lo, hi};
  }

  // Each kernel's runs fit its own rate. Runs that give their shape, at two call sizes or more,
  // fit time = W / rate + t0 (W: the call's executed FLOPs; relative least squares, linear in
  // 1 / rate and t0): the rate is what each further FLOP costs, and t0 the time a synchronised
  // benchmark call spends outside the kernel (host dispatch, autograd), which a training step
  // hides by issuing ahead and is reported, not kept. Without two sizes the efficiency is the mean
  // TF/s of the runs.
  // Tensor-core work holds the sustained bf16 GEMM's clock ratio; fused attention holds its own
  // share of that, attention_clock_factor, since the clock a kernel holds at the power limit
  // follows the power it draws there: each attention record's held / first-second clock over the
  // GEMMs', their mean the factor. Each record is reported.
  void fit_clocks(const RawInputs& in) {
    double gemm_sum = 0.0;
    int gemms = 0;
    for (const auto& s : in.clocks) {
      out_.clocks.push_back(s);
      if (s.work == "gemm" && s.dtype == "bf16") {
        gemm_sum += s.sm_mhz / s.sm_mhz_first_s;
        ++gemms;
      }
    }
    if (gemms == 0) {
      out_.notes.push_back(
          "clock: no bf16 GEMM record, so sustained_clock_ratio and attention_clock_factor keep their built-in values");
      return;
    }
    const double gemm_ratio = gemm_sum / gemms;
    out_.profile.compute.sustained_clock_ratio = {
        gemm_ratio, fmt::format("measured: SM clock of back-to-back bf16 GEMMs over their first second's, mean of {} "
                                "run(s) in {}",
                                gemms, in.clocks_from.text())};
    double attention_sum = 0.0;
    int attentions = 0;
    for (const auto& s : in.clocks) {
      if (s.work != "attention") continue;
      const double held = s.sm_mhz / s.sm_mhz_first_s;
      attention_sum += held / gemm_ratio;
      ++attentions;
      out_.notes.push_back(fmt::format("clock: {} held {:.0f} MHz, {:.3f} of its first second's, at {:.0f} W: {:.3f} "
                                       "of the bf16 GEMMs' {:.3f}",
                                       s.kernel.empty() ? "attention" : s.kernel, s.sm_mhz, held, s.power_w,
                                       held / gemm_ratio, gemm_ratio));
    }
    if (attentions == 0) {
      out_.notes.push_back("clock: no attention record, so attention_clock_factor keeps its built-in value");
      return;
    }
    out_.profile.compute.attention_clock_factor = {
        attention_sum / attentions,
        fmt::format("measured: held / first-second SM clock of back-to-back attention over the bf16 GEMMs' {:.3f}, "
                    "mean of {} run(s) in {}",
                    gemm_ratio, attentions, in.clocks_from.text())};
  }

  void fit_attention(const RawInputs& in) {
    auto& c = out_.profile.compute;
    struct Kernel {
      models::AttentionKernel kernel;
      std::string_view name;
      models::Sourced<double>* efficiency;
    };
    for (const Kernel& k : {Kernel{models::AttentionKernel::flash2, "FlashAttention-2", &c.attention_efficiency},
                            Kernel{models::AttentionKernel::cudnn, "cuDNN fused attention", &c.attention_cudnn_efficiency},
                            Kernel{models::AttentionKernel::flash3, "FlashAttention-3", &c.attention_flash3_efficiency},
                            Kernel{models::AttentionKernel::sdpa_flash, "PyTorch scaled_dot_product_attention's flash backend",
                                   &c.attention_sdpa_flash_efficiency}}) {
      std::vector<AttentionSample> runs;
      for (const auto& s : in.attention)
        if (s.kernel == k.kernel && s.dropout == 0.0) runs.push_back(s);
      if (!runs.empty()) fit_attention_kernel(runs, in.attention_from.text(), k.name, *k.efficiency);
    }
    fit_attention_dropout(in);
  }

  // Dropout's cost to a fused kernel: each record with dropout against the record of the same
  // kernel and call shape without, the time it adds per FLOP in units of a FLOP's time at the bf16
  // peak, (time ratio - 1) / the kernel's fraction of the peak without dropout; the share is the
  // mean over the pairs. Records with dropout and no partner are reported, not fitted.
  void fit_attention_dropout(const RawInputs& in) {
    double sum = 0.0;
    int pairs = 0;
    for (const auto& d : in.attention) {
      if (d.dropout == 0.0) continue;
      const auto partner = std::find_if(in.attention.begin(), in.attention.end(), [&](const AttentionSample& s) {
        return s.dropout == 0.0 && s.kernel == d.kernel && s.shape && s.shape == d.shape;
      });
      if (partner == in.attention.end()) {
        out_.notes.push_back(fmt::format("attention: the dropout {} run of line {} has no run of its kernel and shape "
                                         "without dropout, so it is not fitted",
                                         d.dropout, d.line));
        continue;
      }
      const double ratio = partner->tflops / d.tflops;  // same FLOPs: the time ratio
      const double efficiency = partner->tflops * 1e12 / gpu_.bf16_flops_per_s;
      sum += (ratio - 1.0) / efficiency;
      ++pairs;
      out_.notes.push_back(fmt::format("attention: with dropout {} the call of line {} takes {:.3f} x its time without "
                                       "(line {}, at {:.3f} of the bf16 peak)",
                                       d.dropout, d.line, ratio, partner->line, efficiency));
    }
    if (pairs == 0) return;
    out_.profile.compute.attention_dropout_share = {
        sum / pairs, fmt::format("measured: (time with dropout / time without - 1) / the call's fraction of the bf16 "
                                 "peak without, of fused attention calls alike but for dropout, mean of {} pair(s) in {}",
                                 pairs, in.attention_from.text())};
  }

  void fit_attention_kernel(const std::vector<AttentionSample>& runs, const std::string& from, std::string_view kernel,
                            models::Sourced<double>& efficiency) {
    const double peak = gpu_.bf16_flops_per_s;
    std::vector<AttentionSample> shaped;
    std::set<double> sizes;
    for (const auto& s : runs) {
      if (s.shape) {
        shaped.push_back(s);
        sizes.insert(s.shape->call_flops());
      }
    }
    if (sizes.size() < 2) {
      double sum = 0.0;
      for (const auto& s : runs) sum += s.tflops;
      const double mean = sum / static_cast<double>(runs.size());
      efficiency = {mean * 1e12 / peak, fmt::format("measured: {}, mean {:.1f} TF/s of {} runs in {} / bf16 peak {:.0f} TF/s",
                                                    kernel, mean, runs.size(), from, peak / 1e12)};
      return;
    }
    // Minimise sum (a x_i + b y_i - 1)^2 with x = W / t, y = 1 / t (t the measured time): a = 1 / rate, b = t0.
    double xx = 0.0, xy = 0.0, yy = 0.0, x1 = 0.0, y1 = 0.0;
    for (const auto& s : shaped) {
      const double w = s.shape->call_flops(), t = w / (s.tflops * 1e12);
      const double x = w / t, y = 1.0 / t;
      xx += x * x;
      xy += x * y;
      yy += y * y;
      x1 += x;
      y1 += y;
    }
    const double det = xx * yy - xy * xy;
    const double a = (x1 * yy - y1 * xy) / det, t0 = (xx * y1 - xy * x1) / det;
    double sq = 0.0;
    for (const auto& s : shaped) {
      const double w = s.shape->call_flops(), t = w / (s.tflops * 1e12);
      sq += std::pow((a * w + t0) / t - 1.0, 2.0);
    }
    const double rms = std::sqrt(sq / static_cast<double>(shaped.size()));
    efficiency = {1.0 / a / peak,
                  fmt::format("fit: {} time = W / rate + t0 over {} runs with their shape in {} (W: executed FLOPs of "
                              "the forward + backward call): rate {:.1f} TF/s / bf16 peak {:.0f} TF/s, t0 {:.0f} us a "
                              "call, not charged (host time of synchronised benchmark calls, or a short call's "
                              "tail), rms {:.1f}%",
                              kernel, shaped.size(), from, 1.0 / a / 1e12, peak / 1e12, t0 * 1e6, 100.0 * rms)};
    if (shaped.size() < runs.size())
      out_.notes.push_back(fmt::format("attention ({}): {} runs without their shape (batch, seq, heads, head_dim) are not fitted",
                                       kernel, runs.size() - shaped.size()));
  }

  void fit_gemm_samples(const RawInputs& in) {
    auto& c = out_.profile.compute;
    const GemmFitInputs inputs{
        .shape = {.tile_m = c.tile_m.value, .tile_n = c.tile_n.value, .sm_count = c.sm_count.value},
        .bf16_peak_flops_per_s = gpu_.bf16_flops_per_s,
        .fp8_peak_flops_per_s = gpu_.fp8_flops_per_s,
        .fp4_peak_flops_per_s = gpu_.fp4_flops_per_s,
        .k_half_prior = c.k_half.value};
    out_.gemm = fit_gemm(in.gemm, inputs);
    const GemmFit& g = *out_.gemm;
    const std::string how = fmt::format(
        "fit: GEMM model e_max x tile_fill x k/(k+k_half x r), r = 2 for fp8{}, tile {}x{}, {} SMs, relative least squares over {} GEMMs "
        "({}), rms {:.1f}%",
        g.e_max_fp4.fitted ? ", 4 for nvfp4" : "", inputs.shape.tile_m, inputs.shape.tile_n, inputs.shape.sm_count, in.gemm.size(),
        in.gemm_from.text(),
        100.0 * g.rms_relative);
    const auto apply = [&](const FittedValue& v, models::Sourced<double>& target, const std::string& pointer,
                           std::string_view what) {
      if (!v.fitted) return;
      target = {v.value, fmt::format("{}; {} from {} samples", how, what, v.samples)};
      set_ci(pointer, v.lo, v.hi);
    };
    apply(g.e_max_bf16, c.gemm_max_efficiency_bf16, "/compute/gemm_max_efficiency_bf16", "bf16/fp16 e_max");
    apply(g.e_max_fp8, c.gemm_max_efficiency_fp8, "/compute/gemm_max_efficiency_fp8", "fp8 e_max");
    apply(g.e_max_fp4, c.gemm_max_efficiency_fp4, "/compute/gemm_max_efficiency_fp4", "nvfp4 e_max");
    apply(g.k_half, c.k_half, "/compute/k_half", "k_half");
    if (!g.k_half.fitted) out_.notes.push_back("k_half: the GEMM samples do not vary k, so it keeps the built-in value");
  }

  // What the fitted curve says at the largest measured size: busbw there and its 95 % interval.
  // (Not the last segment's slope: that extrapolates past the data, and a jump between the last
  // few sizes can make it run away.)
  void map_efficiency(LinkScope scope) {
    const bool nvlink = scope == LinkScope::nvlink;
    const double line_rate = nvlink ? gpu_.nvlink_bytes_per_s : cluster_.nic_bytes_per_s * static_cast<double>(cluster_.nics_per_node);
    std::vector<const CollectiveFit*> chosen;
    for (const auto& report : out_.collectives) {
      // A send/receive across nodes measures one rank's path through NCCL's network proxy, not
      // the node's NICs (map_point_to_point).
      if (report.fit.model.scope() == scope && !crosses_nodes_point_to_point(report.fit.model)) {
        chosen.push_back(&report.fit);
      }
    }
    if (chosen.empty()) return;
    if (std::any_of(chosen.begin(), chosen.end(), [](const auto* f) { return f->model.op == models::CollectiveOp::all_reduce; })) {
      std::erase_if(chosen, [](const auto* f) { return f->model.op != models::CollectiveOp::all_reduce; });
    }
    // The interval spans the inputs' intervals; one input without an interval leaves none.
    double sum = 0.0, lo = std::numeric_limits<double>::infinity(), hi = 0.0;
    std::string from;
    for (const auto* f : chosen) {
      const std::size_t last = f->model.segments.size() - 1;
      const auto bytes = static_cast<double>(f->points.back().bytes);
      const double busbw = f->model.predict_busbw_gb_per_s(bytes);
      const auto [busbw_lo, busbw_hi] = busbw_interval(*f, last, bytes);
      const double rate = nvlink ? line_rate : network_busbw_at_line_rate(f->model);
      sum += busbw * 1e9 / rate;
      lo = std::isnan(busbw_lo) ? kNaN : std::min(lo, busbw_lo * 1e9 / rate);
      hi = std::isnan(busbw_hi) ? kNaN : std::max(hi, busbw_hi * 1e9 / rate);
      from += fmt::format("{}{:.1f} GB/s for {} on {} ranks ({} per node) at {} B from {}", from.empty() ? "" : "; ",
                          busbw, collective_name(f->model.op), f->model.ranks, f->model.ranks_per_node,
                          f->points.back().bytes, f->model.source);
      if (!nvlink && rate != line_rate) from += fmt::format(" (busbw at line rate {:.0f} GB/s)", rate / 1e9);
    }
    const double value = sum / static_cast<double>(chosen.size());
    // An all-reduce inside an NVSwitch node that can reduce in the switch ran NVLS, not a ring
    // (NCCL's default there): its rate is NVLS's algbw, and the ring constant keeps its value.
    const bool nvls = nvlink && out_.profile.comm.nvls_algbw_efficiency > 0.0 &&
                      chosen.front()->model.op == models::CollectiveOp::all_reduce;
    const double factor = nvls ? chosen.front()->model.bus_factor() : 1.0;
    const std::string name = nvls ? "nvls_algbw_efficiency" : nvlink ? "nvlink_efficiency" : "network_efficiency";
    (nvls ? out_.profile.comm.nvls_algbw_efficiency
          : nvlink ? out_.profile.comm.nvlink_efficiency : out_.profile.comm.network_efficiency) = value / factor;
    const std::string denominator =
        nvlink ? fmt::format("NVLink line rate {:.0f} GB/s", line_rate / 1e9)
               : fmt::format("its busbw at the NICs' line rate (a ring's or tree's: the node's NICs, {:.0f} GB/s)",
                             line_rate / 1e9);
    out_.profile.comm_sources[name] =
        fmt::format("fit: {} of the alpha-beta fit at the largest measured size / {}{}: {}",
                    nvls ? "algbw (busbw / bus factor)" : "busbw", denominator,
                    chosen.size() > 1 ? " (mean over inputs)" : "", from);
    set_ci("/comm/" + name, lo / factor, hi / factor);
    if (value / factor > 1.0) {
      out_.notes.push_back(fmt::format("{} = {:.3f} > 1: faster than the line rate; check the inputs", name, value / factor));
    }
  }

  // The busbw a collective across nodes would reach with the NICs at their line rate, as the step
  // model prices it (models::collective_time_s): the node's NICs carry a ring's or a tree's bytes;
  // an all-to-all's remote share, (n - k) / n of each rank's buffer, goes through the rank's own
  // share of them, so its busbw ((n - 1) / n of the buffer over the time) reaches that share
  // x (n - 1) / (n - k).
  double network_busbw_at_line_rate(const CollectiveModel& m) const {
    if (m.op != models::CollectiveOp::all_to_all) {
      models::ClusterSpec spec = cluster_;
      spec.gpus_per_node = m.ranks_per_node;
      return models::node_nic_line_rate({.ranks = m.ranks, .ranks_per_node = m.ranks_per_node}, spec);
    }
    const auto n = static_cast<double>(m.ranks), k = static_cast<double>(m.ranks_per_node);
    return rank_nic_line_rate(m.ranks_per_node) * (n - 1.0) / (n - k);
  }

  // One rank's share of its node's NICs at their line rate, with `ranks_per_node` ranks a node.
  double rank_nic_line_rate(std::int64_t ranks_per_node) const {
    models::ClusterSpec spec = cluster_;
    spec.gpus_per_node = ranks_per_node;
    return models::node_nic_line_rate({.ranks = 2, .ranks_per_node = 1}, spec);
  }

  // On one rank a collective is a local copy (or nothing): its small sizes give NCCL's cost per
  // call, the largest the copy rate.
  static SingleRankReport fit_single_rank(const CollectiveGroup& group) {
    std::vector<CollectivePoint> small;
    for (const auto& p : group.points) {
      if (p.bytes <= kLatencySizes) small.push_back(p);
    }
    if (small.size() < 2) {
      throw std::invalid_argument(fmt::format("{}: a one-rank log needs two or more sizes up to {} B for its per-call cost",
                                              group.source, kLatencySizes));
    }
    const auto largest = std::max_element(group.points.begin(), group.points.end(),
                                          [](const auto& a, const auto& b) { return a.bytes < b.bytes; });
    return {.op = group.op,
            .source = group.source,
            .latency = fit_alpha_beta(small, 1.0),
            .copy_bytes = largest->bytes,
            .copy_gb_per_s = static_cast<double>(largest->bytes) / largest->time_us / 1e3};
  }

  void map_latencies() {
    struct Floor {
      double alpha_s, lo_s, hi_s, nvlink_steps, network_steps;
      std::string what;
    };
    std::vector<Floor> single, multi;
    for (const auto& r : out_.single_rank) {
      const AlphaBetaSegment& a = r.latency;
      single.push_back({a.alpha_us * 1e-6, a.alpha_lo_us * 1e-6, a.alpha_hi_us * 1e-6, 0.0, 0.0,
                        fmt::format("{} on 1 rank: alpha {:.2f} us over {}-{} B (out-of-place), {}",
                                    collective_name(r.op), a.alpha_us, a.min_bytes, a.max_bytes, r.source)});
    }
    for (const auto& m : out_.profile.collectives) {
      const AlphaBetaSegment& first = m.segments.front();
      // Point-to-point across nodes pays NCCL's proxy (map_point_to_point), an all-to-all its
      // per-call and per-peer costs (all_to_all_*_latency_s, kept): neither is the hop's.
      if (first.min_bytes > kLatencySizes || crosses_nodes_point_to_point(m) ||
          (m.op == models::CollectiveOp::all_to_all && m.scope() == LinkScope::network)) {
        continue;
      }
      const auto [nvlink_steps, network_steps] = latency_steps(m, cluster_);
      Floor f{first.alpha_us * 1e-6, first.alpha_lo_us * 1e-6, first.alpha_hi_us * 1e-6, nvlink_steps, network_steps,
              fmt::format("{} on {} ranks ({} per node): alpha {:.2f} us over {}-{} B, {} NVLink + {} network steps, {}",
                          collective_name(m.op), m.ranks, m.ranks_per_node, first.alpha_us, first.min_bytes,
                          first.max_bytes, nvlink_steps, network_steps, m.source)};
      (network_steps > 0 ? multi : single).push_back(std::move(f));
    }
    auto& comm = out_.profile.comm;
    auto& sources = out_.profile.comm_sources;
    if (!single.empty()) {
      std::set<double> distinct;
      for (const auto& f : single) distinct.insert(f.nvlink_steps);
      std::string from;
      for (const auto& f : single) from += (from.empty() ? "" : "; ") + f.what;
      if (distinct.size() >= 2) {
        std::vector<double> design, y;
        for (const auto& f : single) {
          design.insert(design.end(), {1.0, f.nvlink_steps});
          y.push_back(f.alpha_s);
        }
        const LinearFit fit = least_squares(design, y);
        comm.launch_latency_s = fit.beta[0];
        comm.nvlink_hop_latency_s = fit.beta[1];
        sources["launch_latency_s"] = "fit: least squares of alpha = launch + steps x hop over " + from;
        sources["nvlink_hop_latency_s"] = sources["launch_latency_s"];
        if (fit.dof > 0) {
          set_ci("/comm/launch_latency_s", fit.lower95(0), fit.upper95(0));
          set_ci("/comm/nvlink_hop_latency_s", fit.lower95(1), fit.upper95(1));
        }
      } else {
        // One step count only: the mean alpha (and interval ends) of the floors.
        double sum = 0.0, lo = 0.0, hi = 0.0;
        for (const auto& f : single) {
          sum += f.alpha_s;
          lo += f.lo_s;
          hi += f.hi_s;
        }
        const double n = static_cast<double>(single.size());
        const double steps = *distinct.begin();
        if (steps == 0.0) {  // one-rank logs: each alpha is a launch latency
          comm.launch_latency_s = sum / n;
          sources["launch_latency_s"] = "measured: mean per-call cost (alpha) of one-rank collectives: " + from;
          set_ci("/comm/launch_latency_s", lo / n, hi / n);
        } else {
          comm.nvlink_hop_latency_s = (sum / n - comm.launch_latency_s) / steps;
          sources["nvlink_hop_latency_s"] =
              fmt::format("fit: (alpha - launch {:.2f} us, held at the built-in value) / steps over {}",
                          comm.launch_latency_s * 1e6, from);
          set_ci("/comm/nvlink_hop_latency_s", (lo / n - comm.launch_latency_s) / steps,
                 (hi / n - comm.launch_latency_s) / steps);
        }
      }
      clamp_latency("nvlink_hop_latency_s", comm.nvlink_hop_latency_s);
    }
    if (!multi.empty()) {
      double sum = 0.0, lo = 0.0, hi = 0.0;
      std::string from;
      for (const auto& f : multi) {
        const double base = comm.launch_latency_s + f.nvlink_steps * comm.nvlink_hop_latency_s;
        sum += (f.alpha_s - base) / f.network_steps;
        lo += (f.lo_s - base) / f.network_steps;
        hi += (f.hi_s - base) / f.network_steps;
        from += (from.empty() ? "" : "; ") + f.what;
      }
      const double n = static_cast<double>(multi.size());
      comm.network_hop_latency_s = sum / n;
      sources["network_hop_latency_s"] = fmt::format(
          "fit: (alpha - launch - NVLink steps x NVLink hop) / network steps, launch {:.2f} us, NVLink hop {:.3f} us, "
          "over {}",
          comm.launch_latency_s * 1e6, comm.nvlink_hop_latency_s * 1e6, from);
      set_ci("/comm/network_hop_latency_s", lo / n, hi / n);
      clamp_latency("network_hop_latency_s", comm.network_hop_latency_s);
    }
  }

  static bool crosses_nodes_point_to_point(const CollectiveModel& m) {
    return m.op == models::CollectiveOp::send_recv && m.scope() == LinkScope::network;
  }

  // Send/receive across nodes (sendrecv_perf's ring: its slowest hops go from one rank to a rank
  // on another node): the bulk rate at the largest measured size over the rank's share of its
  // node's NICs and the network efficiency is p2p_network_share; the small sizes' alpha less the
  // line's launch and network hop is p2p_network_latency_s (models::CommProfile). Several logs: the
  // mean.
  void map_point_to_point() {
    auto& comm = out_.profile.comm;
    auto& sources = out_.profile.comm_sources;
    double share_sum = 0.0, share_lo = 0.0, share_hi = 0.0, latency_sum = 0.0, latency_lo = 0.0, latency_hi = 0.0;
    int shares = 0, latencies = 0;
    std::string share_from, latency_from;
    for (const auto& report : out_.collectives) {
      const CollectiveFit& f = report.fit;
      if (!crosses_nodes_point_to_point(f.model)) continue;
      const double per_rank = rank_nic_line_rate(f.model.ranks_per_node) * comm.network_efficiency;
      const auto bytes = static_cast<double>(f.points.back().bytes);
      const double busbw = f.model.predict_busbw_gb_per_s(bytes);
      const auto [lo, hi] = busbw_interval(f, f.model.segments.size() - 1, bytes);
      share_sum += busbw * 1e9 / per_rank;
      share_lo += lo * 1e9 / per_rank;
      share_hi += hi * 1e9 / per_rank;
      ++shares;
      share_from += fmt::format("{}{:.1f} GB/s at {} B from {}", share_from.empty() ? "" : "; ", busbw,
                                f.points.back().bytes, f.model.source);
      const AlphaBetaSegment& first = f.model.segments.front();
      if (first.min_bytes > kLatencySizes) continue;
      const double line = comm.launch_latency_s + comm.network_hop_latency_s;
      latency_sum += first.alpha_us * 1e-6 - line;
      latency_lo += first.alpha_lo_us * 1e-6 - line;
      latency_hi += first.alpha_hi_us * 1e-6 - line;
      ++latencies;
      latency_from += fmt::format("{}alpha {:.2f} us over {}-{} B from {}", latency_from.empty() ? "" : "; ",
                                  first.alpha_us, first.min_bytes, first.max_bytes, f.model.source);
    }
    if (shares > 0) {
      const double n = shares;
      comm.p2p_network_share = share_sum / n;
      sources["p2p_network_share"] = fmt::format(
          "fit: send/receive busbw across nodes at the largest measured size / (the rank's NIC line rate x "
          "network_efficiency {:.3f}){}: {}",
          comm.network_efficiency, shares > 1 ? " (mean over inputs)" : "", share_from);
      set_ci("/comm/p2p_network_share", share_lo / n, share_hi / n);
      if (comm.p2p_network_share > 1.0) {
        out_.notes.push_back(fmt::format("p2p_network_share = {:.3f} > 1: a send faster than the network's collectives; "
                                         "check --nic-gbit-per-s and --nics-per-node",
                                         comm.p2p_network_share));
      }
    }
    if (latencies > 0) {
      const double n = latencies;
      comm.p2p_network_latency_s = latency_sum / n;
      sources["p2p_network_latency_s"] = fmt::format(
          "fit: send/receive alpha across nodes - launch {:.2f} us - network hop {:.2f} us{}: {}",
          comm.launch_latency_s * 1e6, comm.network_hop_latency_s * 1e6, latencies > 1 ? " (mean over inputs)" : "",
          latency_from);
      set_ci("/comm/p2p_network_latency_s", latency_lo / n, latency_hi / n);
      clamp_latency("p2p_network_latency_s", comm.p2p_network_latency_s);
    }
  }

  void clamp_latency(const std::string& name, double& value) {
    if (value >= 0.0) return;
    out_.notes.push_back(fmt::format("{} came out negative ({:.3g} s): set to 0", name, value));
    value = 0.0;
  }

  // The step model's own prediction (models::collective_time_s with the fitted CommProfile) against
  // the measurements of >= 1 MiB.
  double simulator_error(const CollectiveFit& fit) const {
    models::ClusterSpec spec = cluster_;
    spec.num_gpus = fit.model.ranks;
    spec.gpus_per_node = fit.model.ranks_per_node;
    // sendrecv_perf's ring waits for its hops across the network, two ranks each.
    const models::CommGroup group = crosses_nodes_point_to_point(fit.model)
                                        ? models::CommGroup{.ranks = 2, .ranks_per_node = 1}
                                        : models::CommGroup{.ranks = fit.model.ranks, .ranks_per_node = fit.model.ranks_per_node};
    double worst = kNaN;
    for (const auto& p : fit.points) {
      if (p.bytes < (1 << 20)) continue;
      const double predicted = models::collective_time_s(fit.model.op, static_cast<double>(p.bytes), group, spec,
                                                         out_.profile.comm) * 1e6;
      const double error = std::abs(p.time_us / predicted - 1.0);  // busbw ratio
      worst = std::isnan(worst) ? error : std::max(worst, error);
    }
    return worst;
  }

  const CalibrateOptions& options_;
  Calibration& out_;
  models::GpuSpec gpu_;
  models::ClusterSpec cluster_;
};

}  // namespace

std::string gpu_preset_for_device(std::string_view name) {
  const auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
  if (has("GB300")) return "gb300";
  if (has("GB200")) return "gb200";
  if (has("B200")) return "b200";
  if (has("H200")) return "h200-sxm";
  if (has("H100") && (has("HBM3") || has("SXM"))) return "h100-sxm";
  if (has("A100") && has("80GB") && !has("PCIe")) return "a100-80gb";
  return "";
}

Calibration calibrate(std::span<const std::string> inputs, const CalibrateOptions& options) {
  RawInputs in = read_raw_inputs(inputs, options.collective);
  Calibration out;
  ProfileBuilder builder(choose_gpu(options, in), options, out);
  builder.fit_compute(in);
  builder.fit_overlap_samples(in);
  builder.fit_collectives(in);
  out.profile.metadata.arguments = options.arguments;
  out.profile.metadata.note = options.note;
  out.profile.network = models::MeasuredNetwork{
      .fabric = options.fabric, .nic_bytes_per_s = options.nic_gbit_per_s * 1e9 / 8.0, .nics_per_node = options.nics_per_node};
  out.profile.network_source =
      options.network_source.empty() ? "as given to calibrate (--fabric, --nic-gbit-per-s, --nics-per-node)" : options.network_source;
  out.profile.metadata.inputs = std::move(in.files);
  if (in.groups.empty() && in.single_rank.empty()) {
    out.notes.push_back("no collective measurements: the comm constants keep their built-in values");
  } else if (in.groups.empty()) {
    out.notes.push_back("one-rank collectives only: they give the launch latency; the link efficiencies and hop "
                        "latencies keep their built-in values (measure 8 GPUs, and 2+ nodes, for those)");
  }
  if (in.gemm.empty()) out.notes.push_back("no GEMM measurements: e_max and k_half keep their built-in values");
  return out;
}

}  // namespace clustersim::calibration
