#include "tools/render/calibration_report.hpp"

#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "calibration/nccl_tests_log.hpp"

namespace clustersim::tools {
namespace {

using ordered_json = nlohmann::ordered_json;
namespace cal = calibration;

std::string size_text(std::int64_t bytes) {
  constexpr std::array units{"B", "KiB", "MiB", "GiB", "TiB"};
  std::size_t unit = 0;
  std::int64_t value = bytes;
  while (unit + 1 < units.size() && value >= 1024 && value % 1024 == 0) {
    value /= 1024;
    ++unit;
  }
  return fmt::format("{} {}", value, units[unit]);
}

std::string fit_percent(double fraction) {
  return std::isnan(fraction) ? "-" : fmt::format("{:.1f}%", 100.0 * fraction);
}

std::string ci_text(double lo, double hi, int digits) {
  if (std::isnan(lo) || std::isnan(hi)) return "-";
  const std::string upper = std::isinf(hi) ? "inf" : fmt::format("{:.{}f}", hi, digits);
  return fmt::format("[{:.{}f}, {}]", lo, digits, upper);
}

double measured_busbw(const cal::CollectiveModel& m, const cal::CollectivePoint& p) {
  return static_cast<double>(p.bytes) * m.bus_factor() / p.time_us / 1e3;
}

std::string render_collective(const cal::CollectiveReport& report) {
  const auto& fit = report.fit;
  const auto& m = fit.model;
  std::string text = fmt::format("{} over {} ({} ranks, {} per node), from {}\n", cal::collective_name(m.op),
                                 cal::scope_name(m.scope()), m.ranks, m.ranks_per_node, m.source);
  text += fmt::format("  {:<21}  {:>6}  {:>9}  {:<20}  {:>10}  {:<20}  {:>7}  {:>6}  {:>6}\n", "SIZES", "POINTS",
                      "ALPHA_US", "95% CI", "BUSBW_GB/S", "95% CI", "R2_LOG", "RMS", "MAX");
  for (const auto& s : m.segments) {
    text += fmt::format("  {:<21}  {:>6}  {:>9.2f}  {:<20}  {:>10}  {:<20}  {:>7.4f}  {:>6}  {:>6}\n",
                        size_text(s.min_bytes) + " - " + size_text(s.max_bytes), s.points, s.alpha_us,
                        ci_text(s.alpha_lo_us, s.alpha_hi_us, 2),
                        std::isnan(s.busbw_gb_per_s) ? std::string("latency") : fmt::format("{:.2f}", s.busbw_gb_per_s),
                        ci_text(s.busbw_lo, s.busbw_hi, 2), s.r2_log, fit_percent(s.rms_relative),
                        fit_percent(s.max_relative));
  }
  text += fmt::format("  time error over all {} sizes: rms {}, max {}; the step model's single alpha-beta line "
                      "(fitted CommProfile) is off by up to {} in busbw at >= 1 MiB\n",
                      fit.points.size(), fit_percent(fit.rms_relative), fit_percent(fit.max_relative),
                      fit_percent(report.simulator_max_error));
  text += fmt::format("  {:>10}  {:>8}  {:>11}  {:>12}  {:>13}  {:>6}\n", "SIZE", "LINE", "MEASURED_US",
                      "MEASURED_BUS", "PREDICTED_BUS", "ERROR");
  for (std::size_t i = 0; i < fit.points.size(); ++i) {
    const auto& p = fit.points[i];
    const double measured = measured_busbw(m, p);
    const double predicted = static_cast<double>(p.bytes) * m.bus_factor() / fit.predicted_us[i] / 1e3;
    text += fmt::format("  {:>10}  {:>8}  {:>11.2f}  {:>12.2f}  {:>13.2f}  {:>+6.1f}%\n", size_text(p.bytes), p.line,
                        p.time_us, measured, predicted, 100.0 * (predicted / measured - 1.0));
  }
  return text;
}

std::string fitted_value(const cal::FittedValue& v, int digits) {
  if (!v.fitted) return fmt::format("{:.{}f} (not fitted)", v.value, digits);
  return fmt::format("{:.{}f} {}", v.value, digits, ci_text(v.lo, v.hi, digits));
}

std::string render_gemm(const cal::GemmFit& g) {
  const std::string fp4 = g.e_max_fp4.fitted ? fmt::format(", e_max nvfp4 {}", fitted_value(g.e_max_fp4, 3)) : "";
  std::string text = fmt::format(
      "GEMM efficiency = e_max x tile_fill x k/(k+k_half x r) (r = 2 for fp8{}), relative least squares, {} samples, {} dof\n"
      "  e_max bf16 {}, e_max fp8 {}{}, k_half {}; error rms {}, max {}\n",
      g.e_max_fp4.fitted ? ", 4 for nvfp4" : "", g.points.size(), g.dof, fitted_value(g.e_max_bf16, 3),
      fitted_value(g.e_max_fp8, 3), fp4, fitted_value(g.k_half, 0), fit_percent(g.rms_relative), fit_percent(g.max_relative));
  text += fmt::format("  {:>7}  {:>7}  {:>7}  {:<8}  {:>9}  {:>9}  {:>6}  {:>9}  {:>6}\n", "M", "N", "K", "DTYPE",
                      "MEASURED", "PREDICTED", "ERROR", "TILE_FILL", "K_FILL");
  for (const auto& p : g.points) {
    text += fmt::format("  {:>7}  {:>7}  {:>7}  {:<8}  {:>9.3f}  {:>9.3f}  {:>+5.1f}%  {:>9.3f}  {:>6.3f}\n",
                        p.sample.m, p.sample.n, p.sample.k, p.sample.dtype, p.measured, p.predicted,
                        100.0 * (p.predicted / p.measured - 1.0), p.tile_fill, p.k_fill);
  }
  text += "  tile/wave check (same fit under other tile shapes):";
  for (std::size_t i = 0; i < g.tile_check.size(); ++i) {
    const auto& t = g.tile_check[i];
    text += fmt::format(" {}x{} rms {}{}", t.shape.tile_m, t.shape.tile_n, fit_percent(t.rms_relative),
                        i == 0 ? " (profile's)" : "");
    text += i + 1 < g.tile_check.size() ? "," : "\n";
  }
  if (!g.below_one_wave.empty()) {
    // A plain loop: clang 14 cannot instantiate libstdc++ 12's views over a vector.
    std::vector<std::string> shapes;
    for (const cal::GemmSample& s : g.below_one_wave) shapes.push_back(fmt::format("{}x{}x{} {}", s.m, s.n, s.k, s.dtype));
    text += fmt::format("  not fitted, under one wave of output tiles (split-K/stream-K kernels, not modelled): {}\n",
                        fmt::join(shapes, ", "));
  }
  return text;
}

std::string render_constants(const cal::CalibrationProfile& p) {
  const auto& c = p.compute;
  std::string text = "Profile constants:\n";
  const auto row = [&](std::string_view pointer, double value, const std::string& source) {
    const auto it = p.ci95.find(pointer);
    const std::string ci = it == p.ci95.end() ? "" : fmt::format(" [{:.4g}, {:.4g}]", it->second.first, it->second.second);
    text += fmt::format("  {:<34} {:.6g}{}\n      {}\n", pointer, value, ci, source);
  };
  row("/compute/gemm_max_efficiency_bf16", c.gemm_max_efficiency_bf16.value, c.gemm_max_efficiency_bf16.source);
  row("/compute/gemm_max_efficiency_fp8", c.gemm_max_efficiency_fp8.value, c.gemm_max_efficiency_fp8.source);
  if (c.gemm_max_efficiency_fp4.value > 0.0)
    row("/compute/gemm_max_efficiency_fp4", c.gemm_max_efficiency_fp4.value, c.gemm_max_efficiency_fp4.source);
  row("/compute/k_half", c.k_half.value, c.k_half.source);
  row("/compute/sm_count", c.sm_count.value, c.sm_count.source);
  row("/compute/tile_m", c.tile_m.value, c.tile_m.source);
  row("/compute/tile_n", c.tile_n.value, c.tile_n.source);
  row("/compute/attention_efficiency", c.attention_efficiency.value, c.attention_efficiency.source);
  row("/compute/attention_cudnn_efficiency", c.attention_cudnn_efficiency.value, c.attention_cudnn_efficiency.source);
  row("/compute/attention_flash3_efficiency", c.attention_flash3_efficiency.value, c.attention_flash3_efficiency.source);
  row("/compute/attention_sdpa_flash_efficiency", c.attention_sdpa_flash_efficiency.value,
      c.attention_sdpa_flash_efficiency.source);
  row("/compute/attention_dropout_share", c.attention_dropout_share.value, c.attention_dropout_share.source);
  row("/compute/hbm_efficiency", c.hbm_efficiency.value, c.hbm_efficiency.source);
  row("/compute/launch_overhead_s", c.launch_overhead_s.value, c.launch_overhead_s.source);
  row("/compute/sustained_clock_ratio", c.sustained_clock_ratio.value, c.sustained_clock_ratio.source);
  row("/compute/attention_clock_factor", c.attention_clock_factor.value, c.attention_clock_factor.source);
  const auto comm = [&](std::string_view name, double value) {
    row(fmt::format("/comm/{}", name), value, p.comm_sources.at(std::string(name)));
  };
  comm("nvlink_efficiency", p.comm.nvlink_efficiency);
  comm("network_efficiency", p.comm.network_efficiency);
  comm("launch_latency_s", p.comm.launch_latency_s);
  comm("nvlink_hop_latency_s", p.comm.nvlink_hop_latency_s);
  comm("network_hop_latency_s", p.comm.network_hop_latency_s);
  comm("nvls_algbw_efficiency", p.comm.nvls_algbw_efficiency);
  comm("tree_efficiency", p.comm.tree_efficiency);
  comm("tree_coupling_exponent", p.comm.tree_coupling_exponent);
  comm("network_bulk_hop_latency_s", p.comm.network_bulk_hop_latency_s);
  comm("ll_base_latency_s", p.comm.ll_base_latency_s);
  comm("ll_network_hop_latency_s", p.comm.ll_network_hop_latency_s);
  comm("ll_network_efficiency", p.comm.ll_network_efficiency);
  if (p.overlap_section) {
    const auto& o = c.overlap;
    row("/overlap/sms_held", o.sms_held.value, o.sms_held.source);
    row("/overlap/hbm_bytes_per_bus_byte", o.hbm_bytes_per_bus_byte.value, o.hbm_bytes_per_bus_byte.source);
    row("/overlap/copy_hbm_bytes_per_byte", o.copy_hbm_bytes_per_byte.value, o.copy_hbm_bytes_per_byte.source);
  }
  return text;
}

std::string render_overlap(const cal::OverlapFit& fit) {
  std::string text = "Overlap: victim kernels alone and beside a transfer on another stream; throughput lost =\n"
                     "1 - alone/overlapped; SMs = lost x sm_count, HBM bytes per byte = lost x HBM bandwidth / rate.\n";
  text += fmt::format("  {:<52} {:<7} {:<16} {:>3} {:>7} {:>9} {:<20} {:>7}  {}\n", "QUANTITY", "VICTIM", "TRANSFER", "N",
                      "LOST", "VALUE", "95% CI", "MODEL", "FROM");
  for (const auto& e : fit.estimates) {
    text += fmt::format("  {:<52} {:<7} {:<16} {:>3} {:>6.1f}% {:>9.3f} {:<20} {:>7}  {}\n", e.quantity, e.victim, e.comm,
                        e.samples, 100.0 * e.mean_lost, e.value, ci_text(e.lo, e.hi, 3),
                        std::isnan(e.model) ? std::string("-") : fmt::format("{:.3f}", e.model), e.from);
  }
  return text;
}

std::string render_clocks(const std::vector<cal::ClockSample>& clocks) {
  std::string text = "Clocks under sustained load: median SM clock of the first second and of the last half of each\n"
                     "back-to-back run, the board's power then; HELD = last half / first second.\n";
  text += fmt::format("  {:<10} {:<5} {:>9} {:>9} {:>6} {:>8} {:>8}  {}\n", "WORK", "DTYPE", "FIRST_MHZ", "HELD_MHZ",
                      "HELD", "POWER_W", "RATE", "KERNEL");
  for (const auto& s : clocks) {
    text += fmt::format("  {:<10} {:<5} {:>9.0f} {:>9.0f} {:>6.3f} {:>8.1f} {:>8}  {}\n", s.work, s.dtype,
                        s.sm_mhz_first_s, s.sm_mhz, s.sm_mhz / s.sm_mhz_first_s, s.power_w,
                        s.rate > 0.0 ? fmt::format("{:.1f}", s.rate) : std::string("-"), s.kernel);
  }
  return text;
}

}  // namespace

std::string calibration_report_text(const cal::Calibration& result, const std::string& out_path) {
  std::string text = fmt::format("Calibration profile for {} from {} input(s), written to {}\n\n", result.profile.gpu,
                                 result.profile.metadata.inputs.size(), out_path);
  if (!result.collectives.empty()) {
    text += "Collectives: time = alpha + bytes x bus factor / busbw per size segment, relative least squares;\n"
            "each input size's time is the faster of out-of-place and in-place.\n\n";
  }
  for (const auto& c : result.collectives) text += render_collective(c) + "\n";
  if (!result.single_rank.empty()) {
    text += "One-rank collectives (one GPU, out-of-place): no bus; per-call cost from the sizes <= 64 KiB,\n"
            "and the local copy rate (algbw) at the largest size.\n";
    text += fmt::format("  {:<15} {:>10} {:>20} {:>14} {:>12}  {}\n", "OP", "ALPHA_US", "95%", "LARGEST_B", "COPY_GB/S",
                        "SOURCE");
    for (const auto& r : result.single_rank) {
      text += fmt::format("  {:<15} {:>10.2f} {:>20} {:>14} {:>12.1f}  {}\n", cal::collective_name(r.op),
                          r.latency.alpha_us, ci_text(r.latency.alpha_lo_us, r.latency.alpha_hi_us, 2),
                          r.copy_bytes, r.copy_gb_per_s, r.source);
    }
    text += "\n";
  }
  if (result.gemm) text += render_gemm(*result.gemm) + "\n";
  if (result.overlap) text += render_overlap(*result.overlap) + "\n";
  if (!result.clocks.empty()) text += render_clocks(result.clocks) + "\n";
  text += render_constants(result.profile);
  if (!result.notes.empty()) {
    text += "\nNotes:\n";
    for (const auto& note : result.notes) text += "  " + note + "\n";
  }
  return text;
}

namespace {

ordered_json nan_as_null(double x) { return std::isfinite(x) ? ordered_json(x) : ordered_json(nullptr); }

}  // namespace

std::string calibration_report_json(const cal::Calibration& result, const std::string& out_path,
                                    const std::string& profile_text) {
  ordered_json j;
  j["profile_path"] = out_path;
  j["gpu"] = result.profile.gpu;
  ordered_json collectives = ordered_json::array();
  for (const auto& c : result.collectives) {
    const auto& m = c.fit.model;
    ordered_json points = ordered_json::array();
    for (std::size_t i = 0; i < c.fit.points.size(); ++i) {
      const auto& p = c.fit.points[i];
      points.push_back({{"bytes", p.bytes},
                        {"line", p.line},
                        {"time_us", p.time_us},
                        {"predicted_time_us", c.fit.predicted_us[i]},
                        {"measured_busbw_gb_per_s", measured_busbw(m, p)},
                        {"predicted_busbw_gb_per_s", static_cast<double>(p.bytes) * m.bus_factor() / c.fit.predicted_us[i] / 1e3}});
    }
    collectives.push_back({{"op", cal::collective_name(m.op)},
                           {"scope", cal::scope_name(m.scope())},
                           {"ranks", m.ranks},
                           {"ranks_per_node", m.ranks_per_node},
                           {"source", m.source},
                           {"rms_relative", c.fit.rms_relative},
                           {"max_relative", c.fit.max_relative},
                           {"step_model_max_busbw_error_ge_1mib", nan_as_null(c.simulator_max_error)},
                           {"points", std::move(points)}});
  }
  j["collectives"] = std::move(collectives);
  ordered_json single = ordered_json::array();
  for (const auto& r : result.single_rank) {
    single.push_back({{"op", cal::collective_name(r.op)},
                      {"source", r.source},
                      {"alpha_us", r.latency.alpha_us},
                      {"alpha_ci95_us", {nan_as_null(r.latency.alpha_lo_us), nan_as_null(r.latency.alpha_hi_us)}},
                      {"copy_bytes", r.copy_bytes},
                      {"copy_gb_per_s", r.copy_gb_per_s}});
  }
  j["single_rank"] = std::move(single);
  if (result.gemm) {
    const auto& g = *result.gemm;
    ordered_json points = ordered_json::array();
    for (const auto& p : g.points) {
      points.push_back({{"m", p.sample.m}, {"n", p.sample.n}, {"k", p.sample.k}, {"dtype", p.sample.dtype},
                        {"measured_efficiency", p.measured}, {"predicted_efficiency", p.predicted},
                        {"tile_fill", p.tile_fill}, {"k_fill", p.k_fill}});
    }
    ordered_json tiles = ordered_json::array();
    for (const auto& t : g.tile_check) {
      tiles.push_back({{"tile_m", t.shape.tile_m}, {"tile_n", t.shape.tile_n}, {"rms_relative", t.rms_relative}});
    }
    ordered_json below = ordered_json::array();
    for (const auto& s : g.below_one_wave) below.push_back({{"m", s.m}, {"n", s.n}, {"k", s.k}, {"dtype", s.dtype}});
    j["gemm"] = {{"dof", g.dof}, {"rms_relative", g.rms_relative}, {"max_relative", g.max_relative},
                 {"points", std::move(points)}, {"tile_check", std::move(tiles)}, {"below_one_wave", std::move(below)}};
  }
  if (result.overlap) {
    ordered_json estimates = ordered_json::array();
    for (const auto& e : result.overlap->estimates) {
      estimates.push_back({{"quantity", e.quantity}, {"victim", e.victim}, {"comm", e.comm}, {"samples", e.samples},
                           {"mean_lost", e.mean_lost}, {"value", e.value},
                           {"ci95", {nan_as_null(e.lo), nan_as_null(e.hi)}}, {"model", nan_as_null(e.model)},
                           {"sets_constant", e.sets_constant}, {"from", e.from}});
    }
    j["overlap"] = std::move(estimates);
  }
  ordered_json clocks = ordered_json::array();
  for (const auto& s : result.clocks) {
    clocks.push_back({{"work", s.work}, {"dtype", s.dtype}, {"kernel", s.kernel}, {"sm_mhz_first_s", s.sm_mhz_first_s},
                      {"sm_mhz", s.sm_mhz}, {"held", s.sm_mhz / s.sm_mhz_first_s}, {"power_w", s.power_w},
                      {"power_limit_w", s.power_limit_w > 0.0 ? ordered_json(s.power_limit_w) : ordered_json(nullptr)},
                      {"rate", s.rate > 0.0 ? ordered_json(s.rate) : ordered_json(nullptr)}});
  }
  j["clocks"] = std::move(clocks);
  j["notes"] = result.notes;
  j["profile"] = ordered_json::parse(profile_text);
  return j.dump(2) + "\n";
}

}  // namespace clustersim::tools
