// gemm_bench: cuBLASLt GEMM throughput (BF16 and FP8 E4M3) over a model's GEMM shapes at a given
// tensor-parallel degree and a square sweep, as JSON lines for `clustersim calibrate`.
// Each shape: random non-zero inputs, warm-up runs, then CUDA-event timing of every run and the
// median. C[m x n] = A[m x k] B[k x n] in cuBLASLt's "TN" layout (A stored k x m and transposed),
// the layout FP8 requires on Hopper; bf16 output, fp32 accumulation, a 32 MiB workspace, and the
// heuristic's first algorithm or (--algos N) the fastest of its first N.

#include <cublasLt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "calibration/bench/bench_common.hpp"
#include "calibration/bench/device_fill.hpp"
#include "models/compute/transformer_costs.hpp"
#include "scenarios/presets.hpp"
#include "scenarios/scenario_io.hpp"

namespace {

using namespace clustersim::bench;

constexpr const char* kUsage =
    "Usage: gemm_bench [--scenario FILE | --model NAME --tp N] [--seq N] [--micro-batch N] [--square MIN:MAX]\n"
    "                  [--dtype bf16|fp8|both] [--iters N] [--warmup N] [--algos N] [--device N]\n"
    "\n"
    "Times cuBLASLt GEMMs and prints one JSON line per shape and dtype (m, n, k, dtype, time_us,\n"
    "tflops), after one line describing the GPU. Shapes: the forward and backward GEMMs of one layer\n"
    "(and the logits) on one rank of a TP group, for a scenario's model and layout (--scenario) or\n"
    "a model preset (--model, --tp), and squares from MIN to MAX in powers of two (--square; 0 skips\n"
    "them). Inputs are random and non-zero.\n"
    "\n"
    "  --scenario FILE    scenario JSON: its model, tp, sequence parallelism, seq_len, micro_batch\n"
    "  --model NAME       model preset (llama3-70b, gpt3-175b, ...); default: none\n"
    "  --tp N             tensor-parallel degree for the model's shapes (default 8)\n"
    "  --seq N            sequence length (default 4096); --micro-batch N (default 1)\n"
    "  --square MIN:MAX   square sweep (default 1024:16384; 0 for none)\n"
    "  --dtype D          bf16, fp8 (E4M3 inputs) or both (default both)\n"
    "  --iters N          timed runs per shape, at least 20 (default 50); --warmup N (default 10)\n"
    "  --algos N          time cuBLASLt's first N heuristic algorithms and keep the fastest\n"
    "                     (default 1: the heuristic's choice, as most frameworks run it)\n"
    "  --device N         CUDA device (default 0)\n"
    "  --list-shapes      print the shapes (m, n, k, shape) and stop (touches no GPU)\n"
    "  --help             this text (touches no GPU)\n";

struct Shape {
  std::int64_t m, n, k;
  std::string label;
};

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + ": " + cublasLtGetStatusString(status));
  }
}
#define CUBLAS_CHECK(call) check_cublas((call), #call)

std::vector<Shape> model_shapes(const Options& options) {
  const std::string scenario_path = options.text("--scenario", "");
  const std::string preset = options.text("--model", "");
  if (scenario_path.empty() && preset.empty()) return {};
  if (!scenario_path.empty() && !preset.empty()) throw UsageError("give --scenario or --model, not both");
  clustersim::models::TransformerSpec model;
  clustersim::models::ParallelismSpec parallelism;
  clustersim::models::TrainingSpec training;
  if (!scenario_path.empty()) {
    const auto scenario = clustersim::scenarios::load_scenario_file(scenario_path);
    model = scenario.model;
    parallelism = {.tp = scenario.parallelism.tp, .sp = scenario.parallelism.sp};
    training = {.seq_len = scenario.training.seq_len, .micro_batch = scenario.training.micro_batch};
  } else {
    model = clustersim::scenarios::model_preset(preset);
    const std::int64_t tp = options.integer("--tp", 8);
    parallelism = {.tp = tp, .sp = tp > 1};
    training = {.seq_len = options.integer("--seq", 4096), .micro_batch = options.integer("--micro-batch", 1)};
  }
  const auto layer = clustersim::models::layer_costs(model, parallelism, training);
  const auto head = clustersim::models::head_costs(model, parallelism, training);
  const std::string prefix = model.name + " tp" + std::to_string(parallelism.tp) + " ";
  std::vector<Shape> shapes;
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t>> seen;
  for (const auto* list : {&layer.forward, &layer.backward, &head.output_forward, &head.output_backward}) {
    for (const auto& op : *list) {
      if (op.kind != clustersim::models::OpKind::gemm) continue;
      if (!seen.insert({op.gemm_m, op.gemm_n, op.gemm_k}).second) continue;
      shapes.push_back({op.gemm_m, op.gemm_n, op.gemm_k, prefix + std::string(op.name)});
    }
  }
  return shapes;
}

std::vector<Shape> square_shapes(const Options& options) {
  const std::string range = options.text("--square", "1024:16384");
  if (range == "0") return {};
  const auto colon = range.find(':');
  if (colon == std::string::npos) throw UsageError("--square " + range + ": expected MIN:MAX");
  const std::int64_t lo = parse_bytes(range.substr(0, colon)), hi = parse_bytes(range.substr(colon + 1));
  std::vector<Shape> shapes;
  for (std::int64_t s = lo; s <= hi; s *= 2) shapes.push_back({s, s, s, "square"});
  return shapes;
}

class GemmRunner {
 public:
  GemmRunner(int iters, int warmup, int algos) : iters_(iters), warmup_(warmup), algos_(algos) {
    CUBLAS_CHECK(cublasLtCreate(&handle_));
    CLUSTERSIM_CUDA_CHECK(cudaStreamCreate(&stream_));
    CLUSTERSIM_CUDA_CHECK(cudaMalloc(&workspace_, kWorkspace));
  }
  ~GemmRunner() {
    cudaFree(workspace_);
    cudaStreamDestroy(stream_);
    cublasLtDestroy(handle_);
  }
  GemmRunner(const GemmRunner&) = delete;
  GemmRunner& operator=(const GemmRunner&) = delete;

  /// Median microseconds of one GEMM (negative when cuBLASLt has no algorithm for it) and the
  /// heuristic rank of the algorithm that gave it.
  struct Timing {
    double us;
    int rank;
  };
  Timing time(const Shape& s, bool fp8) {
    const Element input = fp8 ? Element::fp8_e4m3 : Element::bf16;
    const cudaDataType_t input_type = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
    const auto mk = static_cast<std::size_t>(s.m * s.k), kn = static_cast<std::size_t>(s.k * s.n),
               mn = static_cast<std::size_t>(s.m * s.n);
    void *a = nullptr, *b = nullptr, *d = nullptr;
    CLUSTERSIM_CUDA_CHECK(cudaMalloc(&a, mk * element_bytes(input)));
    CLUSTERSIM_CUDA_CHECK(cudaMalloc(&b, kn * element_bytes(input)));
    CLUSTERSIM_CUDA_CHECK(cudaMalloc(&d, mn * 2));
    CLUSTERSIM_CUDA_CHECK(fill_random(a, mk, input, 1, stream_));
    CLUSTERSIM_CUDA_CHECK(fill_random(b, kn, input, 2, stream_));

    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
    cublasLtMatmulPreference_t preference = nullptr;
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la, input_type, static_cast<std::uint64_t>(s.k), static_cast<std::uint64_t>(s.m), s.k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb, input_type, static_cast<std::uint64_t>(s.k), static_cast<std::uint64_t>(s.n), s.k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, static_cast<std::uint64_t>(s.m), static_cast<std::uint64_t>(s.n), s.m));
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
    const std::size_t workspace = kWorkspace;
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                      sizeof workspace));
    // The heuristic's ranking, best guess first; with algos_ > 1 each candidate is timed and the
    // fastest kept (what an autotuning framework would get), else the first (what most get).
    std::vector<cublasLtMatmulHeuristicResult_t> candidates(static_cast<std::size_t>(algos_));
    int found = 0;
    const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(handle_, desc, la, lb, ld, ld, preference, algos_,
                                                                 candidates.data(), &found);
    Timing best{-1.0, 0};
    for (int rank = 0; status == CUBLAS_STATUS_SUCCESS && rank < found; ++rank) {
      const cublasLtMatmulAlgo_t& algo = candidates[static_cast<std::size_t>(rank)].algo;
      const float alpha = 1.0f, beta = 0.0f;
      const auto run = [&] {
        return cublasLtMatmul(handle_, desc, &alpha, a, la, b, lb, &beta, d, ld, d, ld, &algo, workspace_, kWorkspace,
                              stream_);
      };
      if (run() != CUBLAS_STATUS_SUCCESS) continue;  // a candidate may refuse these pointers' alignment
      for (int i = 1; i < warmup_; ++i) CUBLAS_CHECK(run());
      const double us = median(timer_.times_us(stream_, iters_, [&] { CUBLAS_CHECK(run()); }));
      if (best.us < 0.0 || us < best.us) best = {us, rank};
    }
    cublasLtMatmulPreferenceDestroy(preference);
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(desc);
    CLUSTERSIM_CUDA_CHECK(cudaFree(a));
    CLUSTERSIM_CUDA_CHECK(cudaFree(b));
    CLUSTERSIM_CUDA_CHECK(cudaFree(d));
    return best;
  }

 private:
  static constexpr std::size_t kWorkspace = std::size_t{32} << 20;
  int iters_, warmup_, algos_;
  cublasLtHandle_t handle_ = nullptr;
  cudaStream_t stream_ = nullptr;
  void* workspace_ = nullptr;
  EventTimer timer_;
};

int run(int argc, char** argv) {
  const Options options(argc, argv, {"--scenario", "--model", "--tp", "--seq", "--micro-batch", "--square", "--dtype", "--iters",
                                     "--warmup", "--device", "--algos"},
                        {"--help", "-h", "--list-shapes"});
  if (options.flag("--help") || options.flag("-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::string dtype = options.text("--dtype", "both");
  if (dtype != "bf16" && dtype != "fp8" && dtype != "both") throw UsageError("--dtype " + dtype + ": bf16, fp8 or both");
  const auto iters = static_cast<int>(options.integer("--iters", 50));
  const auto warmup = static_cast<int>(options.integer("--warmup", 10));
  if (iters < 20) throw UsageError("--iters must be at least 20 (the median needs them)");
  if (warmup < 1) throw UsageError("--warmup must be at least 1");
  const auto algos = static_cast<int>(options.integer("--algos", 1));
  if (algos < 1 || algos > 32) throw UsageError("--algos must be 1..32");
  std::vector<Shape> shapes = model_shapes(options);
  for (auto& s : square_shapes(options)) shapes.push_back(std::move(s));
  if (shapes.empty()) throw UsageError("no shapes: give --scenario, --model or --square");
  if (options.flag("--list-shapes")) {
    for (const auto& s : shapes) {
      std::printf("{\"m\":%lld,\"n\":%lld,\"k\":%lld,\"shape\":%s}\n", static_cast<long long>(s.m),
                  static_cast<long long>(s.n), static_cast<long long>(s.k), json_string(s.label).c_str());
    }
    return 0;
  }

  const auto device = static_cast<int>(options.integer("--device", 0));
  CLUSTERSIM_CUDA_CHECK(cudaSetDevice(device));
  std::printf("%s\n", device_record(device).c_str());
  GemmRunner runner(iters, warmup, algos);
  for (const bool fp8 : {false, true}) {
    if ((fp8 && dtype == "bf16") || (!fp8 && dtype == "fp8")) continue;
    for (const auto& s : shapes) {
      if (fp8 && (s.m % 16 != 0 || s.n % 16 != 0 || s.k % 16 != 0)) {
        std::fprintf(stderr, "gemm_bench: skipping fp8 %lld x %lld x %lld: FP8 needs multiples of 16\n",
                     static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k));
        continue;
      }
      const auto [us, rank] = runner.time(s, fp8);
      if (us < 0.0) {
        std::fprintf(stderr, "gemm_bench: cuBLASLt has no %s algorithm for %lld x %lld x %lld\n", fp8 ? "fp8" : "bf16",
                     static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k));
        continue;
      }
      const double tflops = 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) * static_cast<double>(s.k) / us / 1e6;
      std::printf("{\"bench\":\"gemm\",\"m\":%lld,\"n\":%lld,\"k\":%lld,\"dtype\":\"%s\",\"time_us\":%.3f,"
                  "\"tflops\":%.2f,\"iters\":%d,\"warmup\":%d,\"algos\":%d,\"algo_rank\":%d,\"shape\":%s}\n",
                  static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k),
                  fp8 ? "fp8_e4m3" : "bf16", us, tflops, iters, warmup, algos, rank, json_string(s.label).c_str());
      std::fflush(stdout);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return clustersim::bench::run_main("gemm_bench", kUsage, run, argc, argv); }
