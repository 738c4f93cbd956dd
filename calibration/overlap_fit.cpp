#include "calibration/overlap_fit.hpp"

#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "calibration/least_squares.hpp"
#include "calibration/raw_inputs.hpp"

namespace clustersim::calibration {
namespace {

constexpr double kNoInterval = std::numeric_limits<double>::quiet_NaN();

// One (victim, transfer) pair and what its samples estimate.
struct Pairing {
  std::string_view quantity;
  std::string_view victim;
  std::string_view comm;
  bool nccl_ranks;  // needs an NCCL communicator of 2+ ranks
  bool sms;         // the quantity is SMs (lost x sm_count); else HBM bytes per byte moved
  bool sets_constant;
};

constexpr std::array kPairings{
    Pairing{"sms_held", "gemm", "nccl_all_reduce", true, true, true},
    Pairing{"hbm_bytes_per_bus_byte", "memory", "nccl_all_reduce", true, false, true},
    Pairing{"copy_hbm_bytes_per_byte", "memory", "memcpy_d2d", false, false, true},
    Pairing{"check: SMs a device-to-device copy takes", "gemm", "memcpy_d2d", false, true, false},
    Pairing{"check: SMs a device-to-host copy takes", "gemm", "memcpy_d2h", false, true, false},
    Pairing{"check: SMs a copy kernel takes", "gemm", "sm_copy", false, true, false},
    Pairing{"check: HBM bytes per byte of a device-to-host copy", "memory", "memcpy_d2h", false, false, false},
    Pairing{"check: HBM bytes per byte of a copy kernel", "memory", "sm_copy", false, false, false},
};

double model_value(const Pairing& p, const models::OverlapInterference& defaults, double mean_ctas) {
  if (p.quantity == "sms_held") return defaults.sms_held.value;
  if (p.quantity == "hbm_bytes_per_bus_byte") return defaults.hbm_bytes_per_bus_byte.value;
  if (p.quantity == "copy_hbm_bytes_per_byte" || p.comm == "sm_copy") {
    return p.sms ? mean_ctas : defaults.copy_hbm_bytes_per_byte.value;
  }
  if (p.comm == "memcpy_d2h" && !p.sms) return defaults.copy_hbm_bytes_per_byte.value / 2.0;  // read once
  return 0.0;  // a copy engine holds no SM
}

}  // namespace

OverlapFit fit_overlap(std::span<const OverlapInput> samples, const models::GpuSpec& gpu, int sm_count,
                       const models::OverlapInterference& defaults) {
  OverlapFit fit;
  int uncovered = 0, one_rank = 0;
  for (const auto& in : samples) {
    if (!in.sample.covered) ++uncovered;
    else if (in.sample.comm == "nccl_all_reduce" && in.sample.ranks < 2) ++one_rank;
  }
  if (uncovered > 0) {
    fit.notes.push_back(fmt::format("overlap: {} sample(s) whose transfer ended before the victim did are left out",
                                    uncovered));
  }
  if (one_rank > 0) {
    fit.notes.push_back(fmt::format("overlap: {} one-rank NCCL sample(s) left out: on one rank NCCL copies locally, "
                                    "so no NCCL kernel and no bus are measured (run overlap_bench on 2+ GPUs)",
                                    one_rank));
  }
  for (const Pairing& p : kPairings) {
    std::vector<double> values;
    double lost_sum = 0.0, ctas_sum = 0.0;
    int ctas_known = 0;
    Provenance from;
    for (const auto& in : samples) {
      const OverlapSample& s = in.sample;
      if (!s.covered || s.victim != p.victim || s.comm != p.comm) continue;
      if (p.nccl_ranks && s.ranks < 2) continue;
      const double lost = 1.0 - s.alone_s / s.overlapped_s;
      values.push_back(p.sms ? lost * sm_count : lost * gpu.hbm_bytes_per_s / (s.comm_gb_per_s * 1e9));
      lost_sum += lost;
      if (s.ctas > 0) {
        ctas_sum += static_cast<double>(s.ctas);
        ++ctas_known;
      }
      from.add(in.file, s.line);
    }
    if (values.empty()) continue;
    const auto n = static_cast<double>(values.size());
    double mean = 0.0;
    for (const double v : values) mean += v;
    mean /= n;
    double lo = kNoInterval, hi = kNoInterval;
    if (values.size() >= 2) {
      double ss = 0.0;
      for (const double v : values) ss += (v - mean) * (v - mean);
      const double half = student_t_quantile(0.975, static_cast<int>(values.size()) - 1) * std::sqrt(ss / (n - 1.0) / n);
      lo = mean - half;
      hi = mean + half;
    }
    const double mean_ctas = ctas_known > 0 ? ctas_sum / ctas_known : kNoInterval;
    fit.estimates.push_back({.quantity = std::string(p.quantity),
                             .victim = std::string(p.victim),
                             .comm = std::string(p.comm),
                             .samples = static_cast<int>(values.size()),
                             .mean_lost = lost_sum / n,
                             .value = mean,
                             .lo = lo,
                             .hi = hi,
                             .model = model_value(p, defaults, mean_ctas),
                             .sets_constant = p.sets_constant,
                             .from = from.text()});
  }
  return fit;
}

}  // namespace clustersim::calibration
