// overlap_bench: what a transfer on another stream costs the kernel it overlaps, as JSON lines for
// `clustersim calibrate` (calibration/overlap_fit.hpp). Two victims on GPU 0: a bf16 cuBLASLt GEMM
// (compute-bound) and a whole-GPU copy kernel (memory-bound). Each is timed alone, then beside
// each transfer: an NCCL all-reduce over every visible GPU (one process, one communicator per
// GPU; on one GPU NCCL copies locally), a device-to-device and a device-to-host cudaMemcpyAsync
// (the copy engines), and a copy kernel on a fixed number of CTAs (a stand-in for a kernel that
// holds that many SMs). A timed batch is `reps` victim kernels between two CUDA events; the
// transfer is launched first as enough back-to-back operations to outlast the batch, and
// `covered` says whether it did. The transfer's rate during the overlap is solved from its batch:
// the part of the batch outside the victim ran at its rate alone.

#include <cublasLt.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "calibration/bench/bench_common.hpp"
#include "calibration/bench/copy_kernel.hpp"
#include "calibration/bench/device_fill.hpp"

namespace {

using namespace clustersim::bench;

constexpr const char* kUsage =
    "Usage: overlap_bench [--m M --n N --k K] [--victim-bytes SIZE] [--comm-bytes SIZE] [--copy-bytes SIZE]\n"
    "                     [--comm-ctas N] [--comms LIST] [--reps N] [--iters N] [--gpus N]\n"
    "\n"
    "Times a bf16 GEMM and a memory-bound copy kernel on GPU 0, alone and beside a transfer on\n"
    "another stream, and prints one JSON line per (victim, transfer) after one line describing the\n"
    "GPU: alone_s and overlapped_s per victim kernel, the transfer's rate while overlapped\n"
    "(comm_gb_per_s: busbw for NCCL, algbw on one rank; bytes per second for copies) and whether\n"
    "the transfer covered the victim's timed interval. Exit 3 when no CUDA GPU is visible.\n"
    "\n"
    "  --m, --n, --k N     GEMM C[m x n] = A[m x k] B[k x n] (default 8192 each)\n"
    "  --victim-bytes SIZE the copy kernel's size (default 1G); sizes take K, M, G suffixes\n"
    "  --comm-bytes SIZE   NCCL all-reduce size (default 256M)\n"
    "  --copy-bytes SIZE   cudaMemcpyAsync and copy-kernel transfer size (default 256M)\n"
    "  --comm-ctas N       CTAs of the copy-kernel transfer (default 24)\n"
    "  --comms LIST        comma-separated transfers (default nccl_all_reduce,memcpy_d2d,memcpy_d2h,sm_copy)\n"
    "  --reps N            victim kernels per timed batch (default 20); --iters N batches (default 10)\n"
    "  --gpus N            GPUs in the NCCL communicator (default: all visible)\n"
    "  --help              this text (touches no GPU)\n"
    "NCCL_MIN_NCHANNELS = NCCL_MAX_NCHANNELS (or NCCL_MIN_CTAS = NCCL_MAX_CTAS) in the environment\n"
    "is reported as nccl_channels.\n";

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": " + cublasLtGetStatusString(status));
}
void check_nccl(ncclResult_t status, const char* what) {
  if (status != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(status));
}
#define CUBLAS_CHECK(call) check_cublas((call), #call)
#define NCCL_CHECK(call) check_nccl((call), #call)

void* device_buffer(std::size_t bytes, std::uint64_t seed) {
  void* p = nullptr;
  CLUSTERSIM_CUDA_CHECK(cudaMalloc(&p, bytes));
  CLUSTERSIM_CUDA_CHECK(fill_random(p, bytes / 4, Element::f32, seed, nullptr));
  return p;
}

// A bf16 GEMM in cuBLASLt's "TN" layout (as gemm_bench), the heuristic's first algorithm.
class Gemm {
 public:
  Gemm(std::int64_t m, std::int64_t n, std::int64_t k) {
    CUBLAS_CHECK(cublasLtCreate(&handle_));
    a_ = device_buffer(static_cast<std::size_t>(m * k) * 2, 1);
    b_ = device_buffer(static_cast<std::size_t>(k * n) * 2, 2);
    d_ = device_buffer(static_cast<std::size_t>(m * n) * 2, 3);
    CLUSTERSIM_CUDA_CHECK(cudaMalloc(&workspace_, kWorkspace));
    CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    const cublasOperation_t transpose = CUBLAS_OP_T, keep = CUBLAS_OP_N;
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose));
    CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &keep, sizeof keep));
    const auto u = [](std::int64_t x) { return static_cast<std::uint64_t>(x); };
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&la_, CUDA_R_16BF, u(k), u(m), k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&lb_, CUDA_R_16BF, u(k), u(n), k));
    CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&ld_, CUDA_R_16BF, u(m), u(n), m));
    cublasLtMatmulPreference_t preference = nullptr;
    CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&preference));
    const std::size_t workspace = kWorkspace;
    CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
                                                      sizeof workspace));
    int found = 0;
    CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(handle_, desc_, la_, lb_, ld_, ld_, preference, 1, &heuristic_, &found));
    cublasLtMatmulPreferenceDestroy(preference);
    if (found < 1) throw std::runtime_error("cuBLASLt has no bf16 algorithm for this GEMM");
  }
  ~Gemm() {
    cublasLtMatrixLayoutDestroy(la_);
    cublasLtMatrixLayoutDestroy(lb_);
    cublasLtMatrixLayoutDestroy(ld_);
    cublasLtMatmulDescDestroy(desc_);
    cudaFree(workspace_);
    cudaFree(a_);
    cudaFree(b_);
    cudaFree(d_);
    cublasLtDestroy(handle_);
  }
  Gemm(const Gemm&) = delete;
  Gemm& operator=(const Gemm&) = delete;

  void run(cudaStream_t stream) const {
    const float alpha = 1.0f, beta = 0.0f;
    CUBLAS_CHECK(cublasLtMatmul(handle_, desc_, &alpha, a_, la_, b_, lb_, &beta, d_, ld_, d_, ld_, &heuristic_.algo,
                                workspace_, kWorkspace, stream));
  }

 private:
  static constexpr std::size_t kWorkspace = std::size_t{32} << 20;
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, ld_ = nullptr;
  cublasLtMatmulHeuristicResult_t heuristic_{};
  void *a_ = nullptr, *b_ = nullptr, *d_ = nullptr, *workspace_ = nullptr;
};

struct Rank {
  int device = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
};

float elapsed_ms(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0.0f;
  CLUSTERSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
  return ms;
}

// A number from the environment when two variables name the same value, else 0.
long pinned_env(const char* min_name, const char* max_name) {
  const char* lo = std::getenv(min_name);
  const char* hi = std::getenv(max_name);
  if (lo == nullptr || hi == nullptr || std::string(lo) != hi) return 0;
  return std::atol(lo);
}

class Bench {
 public:
  explicit Bench(const Options& o)
      : m_(o.integer("--m", 8192)), n_(o.integer("--n", 8192)), k_(o.integer("--k", 8192)),
        victim_bytes_(o.bytes("--victim-bytes", std::int64_t{1} << 30)),
        comm_bytes_(o.bytes("--comm-bytes", std::int64_t{256} << 20)),
        copy_bytes_(o.bytes("--copy-bytes", std::int64_t{256} << 20)),
        comm_ctas_(static_cast<unsigned>(o.integer("--comm-ctas", 24))),
        reps_(static_cast<int>(o.integer("--reps", 20))), iters_(static_cast<int>(o.integer("--iters", 10))),
        gpus_(static_cast<int>(o.integer("--gpus", 0))) {
    if (m_ < 1 || n_ < 1 || k_ < 1) throw UsageError("--m, --n and --k must be positive");
    if (victim_bytes_ % 16 != 0 || copy_bytes_ % 16 != 0) throw UsageError("--victim-bytes and --copy-bytes: multiples of 16");
    if (comm_ctas_ < 1) throw UsageError("--comm-ctas must be at least 1");
    if (reps_ < 1 || iters_ < 3) throw UsageError("--reps must be >= 1 and --iters >= 3");
    std::string list = o.text("--comms", "nccl_all_reduce,memcpy_d2d,memcpy_d2h,sm_copy") + ",";
    for (std::size_t at = 0; (at = list.find(',')) != std::string::npos; list.erase(0, at + 1)) {
      const std::string name = list.substr(0, at);
      if (name != "nccl_all_reduce" && name != "memcpy_d2d" && name != "memcpy_d2h" && name != "sm_copy") {
        throw UsageError("--comms: '" + name + "' is not nccl_all_reduce, memcpy_d2d, memcpy_d2h or sm_copy");
      }
      comms_.push_back(name);
    }
  }

  void run(int visible) {
    const int gpus = gpus_ > 0 ? gpus_ : visible;
    if (gpus > visible) throw UsageError("--gpus " + std::to_string(gpus) + " but " + std::to_string(visible) + " visible");
    std::printf("%s\n", device_record(0).c_str());
    CLUSTERSIM_CUDA_CHECK(cudaSetDevice(0));
    cudaDeviceProp prop{};
    CLUSTERSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    victim_ctas_ = static_cast<unsigned>(prop.multiProcessorCount) * 4;
    CLUSTERSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&victim_stream_, cudaStreamNonBlocking));
    for (auto* e : {&v0_, &v1_, &c0_, &c1_}) CLUSTERSIM_CUDA_CHECK(cudaEventCreate(e));
    const Gemm gemm(m_, n_, k_);
    void* victim_source = device_buffer(static_cast<std::size_t>(victim_bytes_), 4);
    void* victim_target = device_buffer(static_cast<std::size_t>(victim_bytes_), 5);
    copy_source_ = device_buffer(static_cast<std::size_t>(copy_bytes_), 6);
    copy_target_ = device_buffer(static_cast<std::size_t>(copy_bytes_), 7);
    CLUSTERSIM_CUDA_CHECK(cudaMallocHost(&host_, static_cast<std::size_t>(copy_bytes_)));
    init_nccl(gpus);
    CLUSTERSIM_CUDA_CHECK(cudaDeviceSynchronize());

    const auto gemm_victim = [&] { gemm.run(victim_stream_); };
    const auto memory_victim = [&] {
      CLUSTERSIM_CUDA_CHECK(copy_on_ctas(victim_target, victim_source, static_cast<std::size_t>(victim_bytes_),
                                         victim_ctas_, victim_stream_));
    };
    const double gemm_alone = time_victim(gemm_victim);
    const double memory_alone = time_victim(memory_victim);
    for (const auto& comm : comms_) {
      overlap("gemm", gemm_victim, gemm_alone, comm);
      overlap("memory", memory_victim, memory_alone, comm);
    }
    for (auto& r : ranks_) {
      CLUSTERSIM_CUDA_CHECK(cudaSetDevice(r.device));
      ncclCommDestroy(r.comm);
      cudaFree(r.send);
      cudaFree(r.recv);
      cudaStreamDestroy(r.stream);
    }
    CLUSTERSIM_CUDA_CHECK(cudaSetDevice(0));
    cudaFreeHost(host_);
    for (void* p : {victim_source, victim_target, copy_source_, copy_target_}) cudaFree(p);
  }

 private:
  void init_nccl(int gpus) {
    std::vector<int> devices(static_cast<std::size_t>(gpus));
    for (int i = 0; i < gpus; ++i) devices[static_cast<std::size_t>(i)] = i;
    std::vector<ncclComm_t> comms(static_cast<std::size_t>(gpus));
    NCCL_CHECK(ncclCommInitAll(comms.data(), gpus, devices.data()));
    for (int i = 0; i < gpus; ++i) {
      Rank r{.device = i, .comm = comms[static_cast<std::size_t>(i)]};
      CLUSTERSIM_CUDA_CHECK(cudaSetDevice(i));
      CLUSTERSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking));
      r.send = device_buffer(static_cast<std::size_t>(comm_bytes_), 10 + static_cast<std::uint64_t>(i));
      r.recv = device_buffer(static_cast<std::size_t>(comm_bytes_), 20 + static_cast<std::uint64_t>(i));
      ranks_.push_back(r);
    }
    CLUSTERSIM_CUDA_CHECK(cudaSetDevice(0));
  }

  template <class Victim>
  double time_victim(const Victim& victim) {
    victim();
    std::vector<double> per_kernel;
    for (int i = 0; i < iters_; ++i) {
      CLUSTERSIM_CUDA_CHECK(cudaEventRecord(v0_, victim_stream_));
      for (int r = 0; r < reps_; ++r) victim();
      CLUSTERSIM_CUDA_CHECK(cudaEventRecord(v1_, victim_stream_));
      CLUSTERSIM_CUDA_CHECK(cudaEventSynchronize(v1_));
      per_kernel.push_back(1e-3 * elapsed_ms(v0_, v1_) / reps_);
    }
    return median(per_kernel);
  }

  // `count` back-to-back transfers on GPU 0's transfer stream (and, for NCCL, on every rank).
  void launch_transfers(const std::string& comm, int count) {
    const std::size_t bytes = static_cast<std::size_t>(copy_bytes_);
    cudaStream_t stream = ranks_.front().stream;
    for (int i = 0; i < count; ++i) {
      if (comm == "nccl_all_reduce") {
        NCCL_CHECK(ncclGroupStart());
        for (auto& r : ranks_) {
          NCCL_CHECK(ncclAllReduce(r.send, r.recv, static_cast<std::size_t>(comm_bytes_) / 4, ncclFloat, ncclSum, r.comm,
                                   r.stream));
        }
        NCCL_CHECK(ncclGroupEnd());
      } else if (comm == "memcpy_d2d") {
        CLUSTERSIM_CUDA_CHECK(cudaMemcpyAsync(copy_target_, copy_source_, bytes, cudaMemcpyDeviceToDevice, stream));
      } else if (comm == "memcpy_d2h") {
        CLUSTERSIM_CUDA_CHECK(cudaMemcpyAsync(host_, copy_source_, bytes, cudaMemcpyDeviceToHost, stream));
      } else {
        CLUSTERSIM_CUDA_CHECK(copy_on_ctas(copy_target_, copy_source_, bytes, comm_ctas_, stream));
      }
    }
  }

  void synchronize_all() {
    for (auto& r : ranks_) CLUSTERSIM_CUDA_CHECK(cudaStreamSynchronize(r.stream));
    CLUSTERSIM_CUDA_CHECK(cudaStreamSynchronize(victim_stream_));
  }

  // Seconds of one transfer alone on GPU 0.
  double time_transfer(const std::string& comm) {
    launch_transfers(comm, 1);
    synchronize_all();
    std::vector<double> times;
    for (int i = 0; i < iters_; ++i) {
      CLUSTERSIM_CUDA_CHECK(cudaEventRecord(c0_, ranks_.front().stream));
      launch_transfers(comm, 4);
      CLUSTERSIM_CUDA_CHECK(cudaEventRecord(c1_, ranks_.front().stream));
      synchronize_all();
      times.push_back(1e-3 * elapsed_ms(c0_, c1_) / 4.0);
    }
    return median(times);
  }

  template <class Victim>
  void overlap(const char* victim_name, const Victim& victim, double alone_s, const std::string& comm) {
    const double transfer_alone = time_transfer(comm);
    // Enough transfers to outlast the victim's batch by half again, and one before it starts.
    const int count = static_cast<int>(std::min(1e5, std::ceil(1.5 * alone_s * reps_ / transfer_alone))) + 2;
    std::vector<double> victim_times, transfer_times;
    bool covered = true;
    cudaStream_t transfer_stream = ranks_.front().stream;
    for (int i = 0; i < iters_; ++i) {
      CLUSTERSIM_CUDA_CHECK(cudaEventRecord(c0_, transfer_stream));
      launch_transfers(comm, count);
      CLUSTERSIM_CUDA_CHECK(cudaEventRecord(c1_, transfer_stream));
      CLUSTERSIM_CUDA_CHECK(cudaEventRecord(v0_, victim_stream_));
      for (int r = 0; r < reps_; ++r) victim();
      CLUSTERSIM_CUDA_CHECK(cudaEventRecord(v1_, victim_stream_));
      synchronize_all();
      const double batch_s = 1e-3 * elapsed_ms(v0_, v1_);
      const double transfers_s = 1e-3 * elapsed_ms(c0_, c1_);
      covered = covered && elapsed_ms(c0_, v0_) >= 0.0f && elapsed_ms(v1_, c1_) >= 0.0f;
      // Outside the victim's batch the transfers ran at their rate alone; the rest ran beside it.
      const double done_outside = (transfers_s - batch_s) / transfer_alone;
      transfer_times.push_back(batch_s / std::max(1e-9, static_cast<double>(count) - done_outside));
      victim_times.push_back(batch_s / reps_);
    }
    const double overlapped_s = median(victim_times);
    const double transfer_overlapped = median(transfer_times);
    const bool nccl = comm == "nccl_all_reduce";
    const double bytes = static_cast<double>(nccl ? comm_bytes_ : copy_bytes_);
    const auto n = static_cast<double>(ranks_.size());
    const double factor = nccl && ranks_.size() > 1 ? 2.0 * (n - 1.0) / n : 1.0;  // busbw, or algbw on one rank
    std::string line = "{\"bench\":\"overlap\",\"victim\":\"" + std::string(victim_name) + "\"";
    char text[512];
    if (std::string(victim_name) == "gemm") {
      std::snprintf(text, sizeof text, ",\"m\":%lld,\"n\":%lld,\"k\":%lld,\"dtype\":\"bf16\"", static_cast<long long>(m_),
                    static_cast<long long>(n_), static_cast<long long>(k_));
    } else {
      std::snprintf(text, sizeof text, ",\"bytes\":%lld", static_cast<long long>(victim_bytes_));
    }
    line += text;
    std::snprintf(text, sizeof text,
                  ",\"comm\":\"%s\",\"ranks\":%d,\"comm_bytes\":%.0f,\"alone_s\":%.9g,\"overlapped_s\":%.9g,"
                  "\"comm_alone_s\":%.9g,\"comm_overlapped_s\":%.9g,\"comm_gb_per_s\":%.4f",
                  comm.c_str(), nccl ? static_cast<int>(ranks_.size()) : 1, bytes, alone_s, overlapped_s, transfer_alone,
                  transfer_overlapped, bytes * factor / transfer_overlapped / 1e9);
    line += text;
    const long channels = std::max(pinned_env("NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS"), pinned_env("NCCL_MIN_CTAS", "NCCL_MAX_CTAS"));
    if (nccl && channels > 0) line += ",\"nccl_channels\":" + std::to_string(channels);
    if (comm == "sm_copy") line += ",\"ctas\":" + std::to_string(comm_ctas_);
    line += std::string(",\"covered\":") + (covered ? "true" : "false") + ",\"reps\":" + std::to_string(reps_) +
            ",\"iters\":" + std::to_string(iters_) + "}";
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }

  std::int64_t m_, n_, k_, victim_bytes_, comm_bytes_, copy_bytes_;
  unsigned comm_ctas_;
  int reps_, iters_, gpus_;
  std::vector<std::string> comms_;
  unsigned victim_ctas_ = 0;
  cudaStream_t victim_stream_ = nullptr;
  cudaEvent_t v0_ = nullptr, v1_ = nullptr, c0_ = nullptr, c1_ = nullptr;
  void *copy_source_ = nullptr, *copy_target_ = nullptr, *host_ = nullptr;
  std::vector<Rank> ranks_;
};

int run(int argc, char** argv) {
  const Options options(argc, argv,
                        {"--m", "--n", "--k", "--victim-bytes", "--comm-bytes", "--copy-bytes", "--comm-ctas", "--comms",
                         "--reps", "--iters", "--gpus"},
                        {"--help", "-h"});
  if (options.flag("--help") || options.flag("-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  Bench bench(options);
  const int visible = visible_gpus("overlap_bench");
  if (visible == 0) return kNoGpuExit;
  bench.run(visible);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return clustersim::bench::run_main("overlap_bench", kUsage, run, argc, argv); }
