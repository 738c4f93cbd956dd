// grouped_gemm_bench: cuBLAS grouped GEMM throughput (BF16) over a mixture-of-experts layer's expert
// GEMMs, as JSON lines beside gemm_bench's.
// A MoE layer multiplies each of a rank's experts by the rows routed to it: `groups` problems of the
// same m x n x k in one call (cublasGemmGroupedBatchedEx, one group of `groups` problems), the way
// Megatron-Core's grouped GEMM and Transformer Engine's GroupedLinear run them. Shapes: the expert
// GEMMs that models::moe_layer_costs prices for a model preset at an EP (and ETP) degree, forward and
// backward, and a sweep of the rows per expert at the first expert GEMM's n, k and groups, where
// small per-expert GEMMs fall below the dense rate. Each shape: random non-zero inputs, warm-up
// runs, then CUDA-event timing of every run and the median. Layout as gemm_bench's: C[m x n] =
// A[m x k] B[k x n] with A stored k x m and transposed ("TN"), bf16 output, fp32 accumulation.

#include <cublas_v2.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "calibration/bench/bench_common.hpp"
#include "calibration/bench/device_fill.hpp"
#include "models/compute/transformer_costs.hpp"
#include "models/spec/moe.hpp"
#include "scenarios/presets.hpp"

namespace {

using namespace clustersim::bench;

constexpr const char* kUsage =
    "Usage: grouped_gemm_bench [--model NAME] [--ep N] [--etp N] [--seq N] [--micro-batch N] [--rows MIN:MAX]\n"
    "                          [--iters N] [--warmup N] [--device N]\n"
    "\n"
    "Times cuBLAS grouped GEMMs (bf16, fp32 accumulation) and prints one JSON line per shape (groups,\n"
    "m, n, k, time_us, tflops over all groups), after one line describing the GPU. Shapes: the expert\n"
    "GEMMs of one MoE layer on one rank (forward, dgrad and wgrad of the experts' up and down\n"
    "projections, each of its experts one problem of the group) for a model preset at an EP degree,\n"
    "and a sweep of the rows per expert from MIN to MAX in powers of two at the up projection's n, k\n"
    "and groups (--rows; 0 skips it). Inputs are random and non-zero.\n"
    "\n"
    "  --model NAME       mixture-of-experts preset (default deepseek-v3)\n"
    "  --ep N             expert-parallel degree: the rank holds experts / N experts (default 8)\n"
    "  --etp N            tensor parallelism inside an expert (default 1)\n"
    "  --seq N            sequence length (default 4096); --micro-batch N (default 1)\n"
    "  --rows MIN:MAX     rows-per-expert sweep (default 64:8192; 0 for none)\n"
    "  --iters N          timed runs per shape, at least 20 (default 50); --warmup N (default 10)\n"
    "  --device N         CUDA device (default 0)\n"
    "  --list-shapes      print the shapes (groups, m, n, k, shape) and stop (touches no GPU)\n"
    "  --help             this text (touches no GPU)\n"
    "Exits 3 when no GPU is visible.\n";

struct Shape {
  std::int64_t groups, m, n, k;
  std::string label;
};

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cublasGetStatusString(status));
}
#define CUBLAS_CHECK(call) check_cublas((call), #call)

/// The expert GEMMs of one MoE layer's forward and backward on one rank, as the step model prices
/// them (models::moe_layer_costs: each op's shape is one expert's, gemm_groups the rank's experts).
std::vector<Shape> model_shapes(const Options& options) {
  const std::string preset = options.text("--model", "deepseek-v3");
  const clustersim::models::TransformerSpec model = clustersim::scenarios::model_preset(preset);
  if (!clustersim::models::is_moe(model)) throw UsageError("--model " + preset + " is not a mixture-of-experts model");
  const std::int64_t ep = options.integer("--ep", 8), etp = options.integer("--etp", 1);
  if (ep < 1 || model.experts % ep != 0)
    throw UsageError("--ep " + std::to_string(ep) + " must divide the model's " + std::to_string(model.experts) +
                     " experts");
  if (etp < 1) throw UsageError("--etp must be at least 1");
  const clustersim::models::ParallelismSpec parallelism{.ep = ep, .etp = etp};
  const clustersim::models::TrainingSpec training{.seq_len = options.integer("--seq", 4096),
                                                  .micro_batch = options.integer("--micro-batch", 1)};
  const auto layer = clustersim::models::moe_layer_costs(model, parallelism, training);
  const std::string prefix = model.name + " ep" + std::to_string(ep) + (etp > 1 ? " etp" + std::to_string(etp) : "") + " ";
  std::vector<Shape> shapes;
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> seen;
  for (const auto* list : {&layer.forward, &layer.backward}) {
    for (const auto& op : *list) {
      if (op.kind != clustersim::models::OpKind::gemm || op.gemm_groups <= 1) continue;
      if (!seen.insert({op.gemm_groups, op.gemm_m, op.gemm_n, op.gemm_k}).second) continue;
      shapes.push_back({op.gemm_groups, op.gemm_m, op.gemm_n, op.gemm_k, prefix + std::string(op.name)});
    }
  }
  return shapes;
}

/// Rows per expert from MIN to MAX at the first (up projection's forward) shape's groups, n and k.
std::vector<Shape> rows_sweep(const Options& options, const std::vector<Shape>& model) {
  const std::string range = options.text("--rows", "64:8192");
  if (range == "0" || model.empty()) return {};
  const auto colon = range.find(':');
  if (colon == std::string::npos) throw UsageError("--rows " + range + ": expected MIN:MAX");
  const std::int64_t lo = parse_bytes(range.substr(0, colon)), hi = parse_bytes(range.substr(colon + 1));
  if (lo < 1 || hi < lo) throw UsageError("--rows " + range + ": expected 1 <= MIN <= MAX");
  const Shape& base = model.front();
  std::vector<Shape> shapes;
  for (std::int64_t rows = lo; rows <= hi; rows *= 2)
    shapes.push_back({base.groups, rows, base.n, base.k, "rows sweep at " + base.label});
  return shapes;
}

/// One grouped GEMM's buffers: every problem's A, B and C, and the device arrays of their pointers
/// that cuBLAS reads.
class GroupedOperands {
 public:
  GroupedOperands(const Shape& s, cudaStream_t stream) {
    const auto mk = static_cast<std::size_t>(s.m * s.k), kn = static_cast<std::size_t>(s.k * s.n),
               mn = static_cast<std::size_t>(s.m * s.n);
    std::vector<const void*> a(static_cast<std::size_t>(s.groups)), b(a.size());
    std::vector<void*> c(a.size());
    for (std::size_t g = 0; g < a.size(); ++g) {
      a[g] = allocate(mk, 2, stream, 2 * g + 1);
      b[g] = allocate(kn, 2, stream, 2 * g + 2);
      c[g] = allocate(mn, 2, stream, 0);
    }
    for (void*** pointers : {&a_pointers_, &b_pointers_, &c_pointers_})
      CLUSTERSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(pointers), a.size() * sizeof(void*)));
    CLUSTERSIM_CUDA_CHECK(cudaMemcpy(a_pointers_, a.data(), a.size() * sizeof(void*), cudaMemcpyHostToDevice));
    CLUSTERSIM_CUDA_CHECK(cudaMemcpy(b_pointers_, b.data(), b.size() * sizeof(void*), cudaMemcpyHostToDevice));
    CLUSTERSIM_CUDA_CHECK(cudaMemcpy(c_pointers_, c.data(), c.size() * sizeof(void*), cudaMemcpyHostToDevice));
  }
  ~GroupedOperands() {
    for (void* p : buffers_) cudaFree(p);
    cudaFree(a_pointers_);
    cudaFree(b_pointers_);
    cudaFree(c_pointers_);
  }
  GroupedOperands(const GroupedOperands&) = delete;
  GroupedOperands& operator=(const GroupedOperands&) = delete;

  const void* const* a() const { return a_pointers_; }
  const void* const* b() const { return b_pointers_; }
  void* const* c() const { return c_pointers_; }

 private:
  void* allocate(std::size_t elements, std::size_t bytes, cudaStream_t stream, std::uint64_t seed) {
    void* p = nullptr;
    CLUSTERSIM_CUDA_CHECK(cudaMalloc(&p, elements * bytes));
    buffers_.push_back(p);
    if (seed > 0) CLUSTERSIM_CUDA_CHECK(fill_random(p, elements, Element::bf16, seed, stream));
    return p;
  }
  std::vector<void*> buffers_;
  void** a_pointers_ = nullptr;  // device arrays of the problems' A, B and C
  void** b_pointers_ = nullptr;
  void** c_pointers_ = nullptr;
};

/// Median microseconds of one grouped GEMM of `s.groups` problems.
double time_grouped(cublasHandle_t handle, cudaStream_t stream, const Shape& s, int iters, int warmup) {
  const GroupedOperands operands(s, stream);
  const cublasOperation_t transa = CUBLAS_OP_T, transb = CUBLAS_OP_N;
  const int m = static_cast<int>(s.m), n = static_cast<int>(s.n), k = static_cast<int>(s.k);
  const int lda = k, ldb = k, ldc = m, group_size = static_cast<int>(s.groups);
  const float alpha = 1.0f, beta = 0.0f;
  const auto run = [&] {
    return cublasGemmGroupedBatchedEx(handle, &transa, &transb, &m, &n, &k, &alpha, operands.a(), CUDA_R_16BF, &lda,
                                      operands.b(), CUDA_R_16BF, &ldb, &beta, operands.c(), CUDA_R_16BF, &ldc, 1,
                                      &group_size, CUBLAS_COMPUTE_32F);
  };
  for (int i = 0; i < warmup; ++i) CUBLAS_CHECK(run());
  EventTimer timer;
  return median(timer.times_us(stream, iters, [&] { CUBLAS_CHECK(run()); }));
}

int run(int argc, char** argv) {
  const Options options(argc, argv, {"--model", "--ep", "--etp", "--seq", "--micro-batch", "--rows", "--iters", "--warmup",
                                     "--device"},
                        {"--help", "-h", "--list-shapes"});
  if (options.flag("--help") || options.flag("-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const auto iters = static_cast<int>(options.integer("--iters", 50));
  const auto warmup = static_cast<int>(options.integer("--warmup", 10));
  if (iters < 20) throw UsageError("--iters must be at least 20 (the median needs them)");
  if (warmup < 1) throw UsageError("--warmup must be at least 1");
  std::vector<Shape> shapes = model_shapes(options);
  for (auto& s : rows_sweep(options, shapes)) shapes.push_back(std::move(s));
  if (options.flag("--list-shapes")) {
    for (const auto& s : shapes) {
      std::printf("{\"groups\":%lld,\"m\":%lld,\"n\":%lld,\"k\":%lld,\"shape\":%s}\n", static_cast<long long>(s.groups),
                  static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k),
                  json_string(s.label).c_str());
    }
    return 0;
  }

  if (visible_gpus("grouped_gemm_bench") == 0) return kNoGpuExit;
  const auto device = static_cast<int>(options.integer("--device", 0));
  CLUSTERSIM_CUDA_CHECK(cudaSetDevice(device));
  std::printf("%s\n", device_record(device).c_str());
  cublasHandle_t handle = nullptr;
  cudaStream_t stream = nullptr;
  CUBLAS_CHECK(cublasCreate(&handle));
  CLUSTERSIM_CUDA_CHECK(cudaStreamCreate(&stream));
  CUBLAS_CHECK(cublasSetStream(handle, stream));
  for (const auto& s : shapes) {
    const double us = time_grouped(handle, stream, s, iters, warmup);
    const double flops = 2.0 * static_cast<double>(s.groups) * static_cast<double>(s.m) * static_cast<double>(s.n) *
                         static_cast<double>(s.k);
    std::printf("{\"bench\":\"grouped_gemm\",\"groups\":%lld,\"m\":%lld,\"n\":%lld,\"k\":%lld,\"dtype\":\"bf16\","
                "\"time_us\":%.3f,\"tflops\":%.2f,\"iters\":%d,\"warmup\":%d,\"shape\":%s}\n",
                static_cast<long long>(s.groups), static_cast<long long>(s.m), static_cast<long long>(s.n),
                static_cast<long long>(s.k), us, flops / us / 1e6, iters, warmup, json_string(s.label).c_str());
    std::fflush(stdout);
  }
  cudaStreamDestroy(stream);
  cublasDestroy(handle);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return clustersim::bench::run_main("grouped_gemm_bench", kUsage, run, argc, argv);
}
