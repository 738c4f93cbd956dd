#pragma once
/// JSON-lines results of the calibration benchmarks (calibration/bench: gemm_bench, membw_bench,
/// nccl_bench --json) and of published tables transcribed in the same form: one JSON object per
/// line, "bench" saying which kind; blank lines and lines starting with '#' (a header naming the
/// source) are skipped.
///   {"bench":"device","name":"NVIDIA H100 80GB HBM3","sm_count":132}
///   {"bench":"gemm","m":8192,"n":8192,"k":8192,"dtype":"bf16","time_us":1450.2,"tflops":758.2}
///   {"bench":"membw","bytes":4294967296,"time_us":2950.0,"gb_per_s":2912.0}
///   {"bench":"attention","dtype":"bf16","tflops":327.9}   (optional: batch, seq, heads, head_dim,
///   causal, kernel, dropout)
///   {"bench":"nccl","op":"all_reduce","ranks":8,"ranks_per_node":8,"bytes":1048576,"time_us":27.4}
///   {"bench":"overlap","victim":"gemm","comm":"nccl_all_reduce","ranks":8,"alone_s":1.2e-3,
///    "overlapped_s":1.5e-3,"comm_gb_per_s":310.0, ...}   (calibration/bench/overlap_bench)
///   {"bench":"clock","work":"gemm","dtype":"bf16","sm_mhz_first_s":1980,"sm_mhz":1590,"power_w":699,
///    ...}   (calibration/bench/clock_under_load.py)
/// Units: bytes, microseconds, TFLOP/s (1e12 FLOP/s, 2 per multiply-add), GB/s (1e9 bytes/s).
/// membw's gb_per_s counts bytes read plus bytes written (2 x bytes per copy), as STREAM's Copy.
/// Where a record gives only a rate (published tables often do), the time is derived from it
/// (gemm: 2mnk / tflops; nccl: bytes x bus factor / busbw; membw: 2 x bytes / gb_per_s).
/// Limitations: unknown keys are errors, so a benchmark that adds a field must add it here too.
/// Source: field names chosen here; calibration/bench writes them.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/comm/collectives.hpp"
#include "models/spec/parallelism_spec.hpp"

namespace clustersim::calibration {

struct DeviceRecord {
  int line = 0;
  std::string name{};  // as the driver reports it
  int sm_count = 0;  // 0 where not given
};

struct GemmSample {
  int line = 0;
  std::int64_t m = 0, n = 0, k = 0;  // C[m x n] = A[m x k] B[k x n]
  std::string dtype{};                 // "bf16", "fp16", "fp8_e4m3"
  models::Precision precision = models::Precision::bf16;  // fp16 runs at the bf16 peak
  double time_us = 0.0;
  double tflops = 0.0;
  std::string source{};  // optional per-row provenance
};

struct MembwSample {
  int line = 0;
  std::int64_t bytes = 0;  // copied; 0: not given (published rates)
  double time_us = 0.0;    // 0 when bytes is not given
  double gb_per_s = 0.0;  // read + written
};

/// One attention call's shape, as a record gives it.
struct AttentionShape {
  std::int64_t batch = 0, seq = 0, heads = 0, head_dim = 0;
  bool causal = true;
  bool operator==(const AttentionShape&) const = default;
  /// Executed FLOPs of the forward and backward call (causal: half the square; backward 2.5 x
  /// forward).
  double call_flops() const;
};

struct AttentionSample {
  int line = 0;
  std::string dtype{};
  double tflops = 0.0;
  std::string source{};
  std::optional<AttentionShape> shape{};  // where the record gives batch, seq, heads and head_dim
  // The kernel measured, from the record's "kernel" text: cuDNN fused attention when it names
  // cudnn, FlashAttention-3 when it names flash3 or flash-attention-3, PyTorch's flash backend when
  // it names sdpa (scaled_dot_product_attention), else FlashAttention-2 as the flash-attn package
  // builds it (the kernel of every record that predates the field).
  models::AttentionKernel kernel = models::AttentionKernel::flash2;
  // The probability the call drops (0: none); a record with dropout is paired with the one of the
  // same kernel and shape without it, and only the pair's time ratio is fitted.
  double dropout = 0.0;
};

struct CollectiveSample {
  int line = 0;
  models::CollectiveOp op = models::CollectiveOp::all_reduce;
  std::int64_t ranks = 0;
  std::int64_t ranks_per_node = 0;
  std::int64_t bytes = 0;  // nccl-tests' "size": the full buffer
  double time_us = 0.0;
  double busbw_gb_per_s = 0.0;
  bool time_derived = false;  // true: the record gave busbw only
};

/// One overlap_bench measurement: a victim kernel timed alone and beside a transfer on another
/// stream. comm_gb_per_s is the transfer's rate while overlapped: busbw for an NCCL collective
/// (algbw on one rank, where NCCL copies locally), bytes moved per second for a copy.
struct OverlapSample {
  int line = 0;
  std::string victim{};  // "gemm" (compute-bound) or "memory" (a copy kernel, memory-bound)
  std::string comm{};    // "nccl_all_reduce", "memcpy_d2d", "memcpy_d2h" or "sm_copy"
  std::int64_t ranks = 1;  // NCCL communicator ranks
  std::int64_t comm_bytes = 0;
  double alone_s = 0.0;
  double overlapped_s = 0.0;
  double comm_gb_per_s = 0.0;
  std::int64_t ctas = 0;  // CTAs the transfer's kernel is known to use (sm_copy, NCCL_MAX_CTAS); 0: unknown
  bool covered = true;    // the transfer ran for the whole of the victim's timed interval
};

/// The SM clock one kind of work holds when run back to back for seconds: the median of its first
/// second (the clock a short benchmark call sees) and of its last half, with the board's power then.
struct ClockSample {
  int line = 0;
  std::string work{};    // "gemm", "attention", "copy" or "idle"
  std::string dtype{};   // gemm: "bf16" or "fp8"; empty otherwise
  std::string kernel{};  // free text: what ran
  double sm_mhz_first_s = 0.0;
  double sm_mhz = 0.0;
  double power_w = 0.0;
  double power_limit_w = 0.0;  // 0: not given
  double rate = 0.0;           // tflops (gemm, attention) or gb_per_s (copy); 0: not given
};

struct BenchRecords {
  std::string file{};
  std::vector<DeviceRecord> devices{};
  std::vector<GemmSample> gemm{};
  std::vector<MembwSample> membw{};
  std::vector<AttentionSample> attention{};
  std::vector<CollectiveSample> collectives{};
  std::vector<OverlapSample> overlap{};
  std::vector<ClockSample> clocks{};
};

/// Parses JSON-lines text; `file` names it in errors: InputError "<file>:<line>: <pointer>: <rule>".
BenchRecords parse_bench_records(std::string_view text, const std::string& file);
BenchRecords read_bench_records(const std::filesystem::path& path);

}  // namespace clustersim::calibration
