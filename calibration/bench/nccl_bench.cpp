// nccl_bench: times one NCCL collective (all_reduce, all_gather, reduce_scatter, alltoall, sendrecv)
// over a size sweep and prints nccl-tests' table layout (or JSON lines with --json) for
// `clustersim calibrate`. One process drives all its local GPUs (one communicator each, launched in
// one NCCL group); several processes (one per node under Slurm) meet through a unique id that
// process 0 writes to a shared file. Sizes, counts and bus bandwidth follow nccl-tests: size is the
// full buffer, count the per-rank parameter, busbw = algbw x bus factor (2(n-1)/n for all-reduce,
// (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for send/recv). Each size: warm-up
// calls, then the median wall time of timed calls (launch on every local GPU, synchronise all).
// No MPI: only process 0 reports, from its own timings (the collectives synchronise the ranks).

#include <nccl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "calibration/bench/bench_common.hpp"
#include "calibration/bench/device_fill.hpp"

namespace {

using namespace clustersim::bench;
namespace fs = std::filesystem;

constexpr const char* kUsage =
    "Usage: nccl_bench --op NAME [--min-bytes SIZE] [--max-bytes SIZE] [--factor F] [--iters N]\n"
    "                  [--warmup N] [--gpus N] [--dtype float|bfloat16] [--json]\n"
    "                  [--nprocs N --proc P --id-file PATH] [--timeout S]\n"
    "\n"
    "Times one NCCL collective over a size sweep on all local GPUs of this process and, with\n"
    "several processes, across nodes. Prints nccl-tests' table layout (clustersim calibrate reads\n"
    "it), or one JSON line per size and placement with --json.\n"
    "\n"
    "  --op NAME          all_reduce, all_gather, reduce_scatter, alltoall or sendrecv\n"
    "  --min-bytes SIZE   smallest size (default 8); sizes take K, M, G suffixes\n"
    "  --max-bytes SIZE   largest size (default 8G); two buffers of this size per GPU\n"
    "  --factor F         size step factor (default 2)\n"
    "  --iters N          timed calls per size (default 20); --warmup N (default 5)\n"
    "  --gpus N           local GPUs to drive (default: all visible)\n"
    "  --dtype T          float or bfloat16 (default float)\n"
    "  --nprocs N         processes in the job (default: $SLURM_NTASKS, else 1)\n"
    "  --proc P           this process's index (default: $SLURM_PROCID, else 0)\n"
    "  --id-file PATH     shared file for NCCL's unique id, needed with several processes; it must\n"
    "                     not exist yet (use one path per run, e.g. with $SLURM_JOB_ID)\n"
    "  --timeout S        seconds to wait for the other processes (default 600)\n"
    "  --help             this text (touches no GPU)\n";

enum class Op { all_reduce, all_gather, reduce_scatter, alltoall, sendrecv };

void check_nccl(ncclResult_t status, const char* what) {
  if (status != ncclSuccess) throw std::runtime_error(std::string(what) + ": " + ncclGetErrorString(status));
}
#define NCCL_CHECK(call) check_nccl((call), #call)

Op parse_op(const std::string& name) {
  static const std::map<std::string, Op> names = {
      {"all_reduce", Op::all_reduce}, {"all_gather", Op::all_gather}, {"reduce_scatter", Op::reduce_scatter},
      {"alltoall", Op::alltoall},     {"all_to_all", Op::alltoall},   {"sendrecv", Op::sendrecv},
      {"send_recv", Op::sendrecv}};
  const auto it = names.find(name);
  if (it == names.end()) throw UsageError("--op " + name + ": all_reduce, all_gather, reduce_scatter, alltoall or sendrecv");
  return it->second;
}

const char* op_name(Op op) {
  switch (op) {
    case Op::all_reduce: return "all_reduce";
    case Op::all_gather: return "all_gather";
    case Op::reduce_scatter: return "reduce_scatter";
    case Op::alltoall: return "all_to_all";
    case Op::sendrecv: return "send_recv";
  }
  return "";
}

double bus_factor(Op op, int ranks) {
  const double n = ranks;
  switch (op) {
    case Op::all_reduce: return 2.0 * (n - 1.0) / n;
    case Op::sendrecv: return 1.0;
    default: return (n - 1.0) / n;
  }
}

std::int64_t env_or(const char* name, std::int64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::atoll(value) : fallback;
}

// Waits for `path` to exist with at least `bytes` bytes.
void wait_for(const fs::path& path, std::uintmax_t bytes, int timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  std::error_code error;
  while (!(fs::exists(path, error) && fs::file_size(path, error) >= bytes)) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("timed out after " + std::to_string(timeout_s) + " s waiting for " + path.string());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// Writes `content` to `path` so that readers never see it half-written: a failed write (a full
// disk) removes the temporary and throws instead of publishing a short file.
void publish(const fs::path& path, const std::string& content) {
  const fs::path temporary = path.string() + ".tmp." + std::to_string(::getpid());
  std::ofstream file(temporary, std::ios::binary);
  file << content;
  file.close();
  std::error_code error;
  if (file) fs::rename(temporary, path, error);
  if (!file || error) {
    const std::string reason = file ? error.message() : "the write failed";
    fs::remove(temporary, error);
    throw std::runtime_error("cannot write " + path.string() + ": " + reason);
  }
}

struct Local {
  int device = 0;
  int rank = 0;
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  void* send = nullptr;
  void* recv = nullptr;
};

std::string time_text(double us) {
  char text[32];
  std::snprintf(text, sizeof text, us >= 10000.0 ? "%7.0f" : (us >= 100.0 ? "%7.1f" : "%7.2f"), us);
  return text;
}

class Bench {
 public:
  explicit Bench(const Options& options)
      : op_(parse_op(options.text("--op", ""))),
        min_bytes_(options.bytes("--min-bytes", 8)),
        max_bytes_(options.bytes("--max-bytes", std::int64_t{8} << 30)),
        factor_(options.integer("--factor", 2)),
        iters_(static_cast<int>(options.integer("--iters", 20))),
        warmup_(static_cast<int>(options.integer("--warmup", 5))),
        float_(options.text("--dtype", "float") == "float"),
        json_(options.flag("--json")),
        procs_(static_cast<int>(options.integer("--nprocs", env_or("SLURM_NTASKS", 1)))),
        proc_(static_cast<int>(options.integer("--proc", env_or("SLURM_PROCID", 0)))),
        id_file_(options.text("--id-file", "")),
        timeout_s_(static_cast<int>(options.integer("--timeout", 600))),
        requested_gpus_(static_cast<int>(options.integer("--gpus", 0))) {
    const std::string dtype = options.text("--dtype", "float");
    if (dtype != "float" && dtype != "bfloat16") throw UsageError("--dtype " + dtype + ": float or bfloat16");
    if (min_bytes_ > max_bytes_) throw UsageError("--min-bytes is above --max-bytes");
    if (factor_ < 2) throw UsageError("--factor must be at least 2");
    if (iters_ < 1 || warmup_ < 0) throw UsageError("--iters must be >= 1 and --warmup >= 0");
    if (procs_ < 1 || proc_ < 0 || proc_ >= procs_) throw UsageError("--proc must be in [0, --nprocs)");
    if (procs_ > 1 && id_file_.empty()) throw UsageError("several processes need --id-file on a shared file system");
  }

  void run() {
    init();
    if (proc_ == 0) header();
    double busbw_sum = 0.0;
    int rows = 0;
    const std::size_t type_bytes = float_ ? 4 : 2;
    for (std::int64_t size = min_bytes_; size <= max_bytes_; size *= factor_) {
      const auto count = static_cast<std::size_t>(size) / type_bytes;
      const std::size_t per_rank = count / static_cast<std::size_t>(ranks_);
      const bool split = op_ == Op::all_gather || op_ == Op::reduce_scatter || op_ == Op::alltoall;
      if (split && per_rank == 0) continue;
      const std::size_t param = split ? per_rank : count;
      const auto bytes = static_cast<std::int64_t>((split ? per_rank * static_cast<std::size_t>(ranks_) : count) * type_bytes);
      const bool has_in_place = op_ == Op::all_reduce || op_ == Op::all_gather || op_ == Op::reduce_scatter;
      const double out_us = time_us(param, false);
      const double in_us = has_in_place ? time_us(param, true) : 0.0;
      if (proc_ != 0) continue;
      const double factor = bus_factor(op_, ranks_);
      const auto algbw = [&](double us) { return static_cast<double>(bytes) / us / 1e3; };
      busbw_sum += algbw(out_us) * factor + (has_in_place ? algbw(in_us) * factor : 0.0);
      rows += has_in_place ? 2 : 1;
      if (json_) {
        json_line(bytes, param, out_us, algbw(out_us), factor, false);
        if (has_in_place) json_line(bytes, param, in_us, algbw(in_us), factor, true);
        continue;
      }
      const bool reduces = op_ == Op::all_reduce || op_ == Op::reduce_scatter || op_ == Op::sendrecv;
      std::printf("%12lld  %12zu  %8s  %6s  %6d  %s  %6.2f  %6.2f  %5s", static_cast<long long>(bytes), param,
                  float_ ? "float" : "bfloat16", reduces ? "sum" : "none", -1, time_text(out_us).c_str(),
                  algbw(out_us), algbw(out_us) * factor, "N/A");
      if (has_in_place) {
        std::printf("  %s  %6.2f  %6.2f  %5s", time_text(in_us).c_str(), algbw(in_us), algbw(in_us) * factor, "N/A");
      }
      std::printf("\n");
      std::fflush(stdout);
    }
    if (proc_ == 0 && !json_) {
      std::printf("# Out of bounds values : 0 OK\n# Avg bus bandwidth    : %g\n#\n", rows > 0 ? busbw_sum / rows : 0.0);
    }
    finish();
  }

 private:
  void init() {
    int visible = 0;
    CLUSTERSIM_CUDA_CHECK(cudaGetDeviceCount(&visible));
    const int gpus = requested_gpus_ > 0 ? requested_gpus_ : visible;
    if (gpus > visible) throw UsageError("--gpus " + std::to_string(gpus) + " but " + std::to_string(visible) + " visible");
    ranks_ = gpus * procs_;
    ncclUniqueId id{};
    if (procs_ == 1) {
      NCCL_CHECK(ncclGetUniqueId(&id));
    } else if (proc_ == 0) {
      if (fs::exists(id_file_)) throw std::runtime_error(id_file_ + " exists: remove it or use a new --id-file");
      NCCL_CHECK(ncclGetUniqueId(&id));
      publish(id_file_, std::string(reinterpret_cast<const char*>(&id), sizeof id));
    } else {
      wait_for(id_file_, sizeof id, timeout_s_);
      std::ifstream(id_file_, std::ios::binary).read(reinterpret_cast<char*>(&id), sizeof id);
    }
    std::string ranks_text;
    const std::string host = host_name();
    local_.resize(static_cast<std::size_t>(gpus));
    for (int i = 0; i < gpus; ++i) {
      Local& l = local_[static_cast<std::size_t>(i)];
      l.device = i;
      l.rank = proc_ * gpus + i;
      CLUSTERSIM_CUDA_CHECK(cudaSetDevice(i));
      CLUSTERSIM_CUDA_CHECK(cudaStreamCreate(&l.stream));
      CLUSTERSIM_CUDA_CHECK(cudaMalloc(&l.send, static_cast<std::size_t>(max_bytes_)));
      CLUSTERSIM_CUDA_CHECK(cudaMalloc(&l.recv, static_cast<std::size_t>(max_bytes_)));
      CLUSTERSIM_CUDA_CHECK(fill_random(l.send, static_cast<std::size_t>(max_bytes_) / 4, Element::f32,
                                        static_cast<std::uint64_t>(l.rank), l.stream));
      CLUSTERSIM_CUDA_CHECK(fill_random(l.recv, static_cast<std::size_t>(max_bytes_) / 4, Element::f32,
                                        static_cast<std::uint64_t>(l.rank) + 1000, l.stream));
      cudaDeviceProp prop{};
      CLUSTERSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, i));
      char bus[32] = {};
      CLUSTERSIM_CUDA_CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, i));
      char line[512];
      std::snprintf(line, sizeof line, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [%s] %s\n", l.rank,
                    static_cast<int>(::getpid()), host.c_str(), i, bus, prop.name);
      ranks_text += line;
    }
    if (procs_ > 1) publish(id_file_ + ".proc" + std::to_string(proc_), ranks_text + "#end\n");
    NCCL_CHECK(ncclGroupStart());
    for (auto& l : local_) {
      CLUSTERSIM_CUDA_CHECK(cudaSetDevice(l.device));
      NCCL_CHECK(ncclCommInitRank(&l.comm, ranks_, id, l.rank));
    }
    NCCL_CHECK(ncclGroupEnd());
    rank_lines_ = ranks_text;
    if (procs_ > 1 && proc_ == 0) {
      rank_lines_.clear();
      std::map<std::string, int> per_host;
      for (int p = 0; p < procs_; ++p) {
        const fs::path path = id_file_ + ".proc" + std::to_string(p);
        wait_for(path, 5, timeout_s_);
        std::ifstream file(path);
        for (std::string line; std::getline(file, line) && line != "#end";) {
          rank_lines_ += line + "\n";
          std::istringstream words(line);
          std::string word, on;
          while (words >> word && word != "on") {}
          words >> on;
          ++per_host[on];
        }
      }
      hosts_ = static_cast<int>(per_host.size());
    }
  }

  void finish() {
    for (auto& l : local_) {
      CLUSTERSIM_CUDA_CHECK(cudaSetDevice(l.device));
      ncclCommDestroy(l.comm);
      cudaFree(l.send);
      cudaFree(l.recv);
      cudaStreamDestroy(l.stream);
    }
    if (procs_ > 1 && proc_ == 0) {
      std::error_code ignored;
      fs::remove(id_file_, ignored);
      for (int p = 0; p < procs_; ++p) fs::remove(id_file_ + ".proc" + std::to_string(p), ignored);
    }
  }

  void header() const {
    if (json_) return;
    int version = 0;
    NCCL_CHECK(ncclGetVersion(&version));
    std::printf("# nThread 1 nGpus %zu minBytes %lld maxBytes %lld step: %lld(factor) warmup iters: %d iters: %d "
                "agg iters: 1 validation: 0 graph: 0\n#\n# Using devices\n%s",
                local_.size(), static_cast<long long>(min_bytes_), static_cast<long long>(max_bytes_),
                static_cast<long long>(factor_), warmup_, iters_, rank_lines_.c_str());
    std::printf("# collective: %s\nNCCL version %d.%d.%d\n#\n", op_name(op_), version / 10000, (version % 10000) / 100,
                version % 100);
    std::printf("#                                                              out-of-place                       in-place\n"
                "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
                "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n");
  }

  void json_line(std::int64_t bytes, std::size_t count, double us, double algbw, double factor, bool in_place) const {
    std::printf("{\"bench\":\"nccl\",\"op\":\"%s\",\"ranks\":%d,\"ranks_per_node\":%d,\"bytes\":%lld,\"count\":%zu,"
                "\"type\":\"%s\",\"time_us\":%.3f,\"algbw_gb_per_s\":%.4f,\"busbw_gb_per_s\":%.4f,\"in_place\":%s,"
                "\"iters\":%d,\"warmup\":%d}\n",
                op_name(op_), ranks_, ranks_ / hosts_, static_cast<long long>(bytes), count, float_ ? "float" : "bfloat16",
                us, algbw, algbw * factor, in_place ? "true" : "false", iters_, warmup_);
    std::fflush(stdout);
  }

  void launch(std::size_t count, bool in_place) {
    const ncclDataType_t type = float_ ? ncclFloat : ncclBfloat16;
    const std::size_t type_bytes = float_ ? 4 : 2;
    NCCL_CHECK(ncclGroupStart());
    for (auto& l : local_) {
      auto* send = static_cast<char*>(l.send);
      auto* recv = static_cast<char*>(l.recv);
      const std::size_t rank_offset = static_cast<std::size_t>(l.rank) * count * type_bytes;
      switch (op_) {
        case Op::all_reduce:
          NCCL_CHECK(ncclAllReduce(in_place ? recv : send, recv, count, type, ncclSum, l.comm, l.stream));
          break;
        case Op::all_gather:
          NCCL_CHECK(ncclAllGather(in_place ? recv + rank_offset : send, recv, count, type, l.comm, l.stream));
          break;
        case Op::reduce_scatter:
          NCCL_CHECK(ncclReduceScatter(send, in_place ? send + rank_offset : recv, count, type, ncclSum, l.comm, l.stream));
          break;
        case Op::alltoall:
          for (int peer = 0; peer < ranks_; ++peer) {
            const std::size_t offset = static_cast<std::size_t>(peer) * count * type_bytes;
            NCCL_CHECK(ncclSend(send + offset, count, type, peer, l.comm, l.stream));
            NCCL_CHECK(ncclRecv(recv + offset, count, type, peer, l.comm, l.stream));
          }
          break;
        case Op::sendrecv:
          NCCL_CHECK(ncclSend(send, count, type, (l.rank + 1) % ranks_, l.comm, l.stream));
          NCCL_CHECK(ncclRecv(recv, count, type, (l.rank - 1 + ranks_) % ranks_, l.comm, l.stream));
          break;
      }
    }
    NCCL_CHECK(ncclGroupEnd());
  }

  void synchronize() {
    for (auto& l : local_) CLUSTERSIM_CUDA_CHECK(cudaStreamSynchronize(l.stream));
  }

  double time_us(std::size_t count, bool in_place) {
    for (int i = 0; i < warmup_; ++i) launch(count, in_place);
    synchronize();
    std::vector<double> times;
    for (int i = 0; i < iters_; ++i) {
      const auto start = std::chrono::steady_clock::now();
      launch(count, in_place);
      synchronize();
      times.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
    }
    return median(times);
  }

  Op op_;
  std::int64_t min_bytes_, max_bytes_, factor_;
  int iters_, warmup_;
  bool float_, json_;
  int procs_, proc_;
  std::string id_file_;
  int timeout_s_;
  int requested_gpus_;
  int ranks_ = 0;
  int hosts_ = 1;
  std::vector<Local> local_;
  std::string rank_lines_;
};

int run(int argc, char** argv) {
  const Options options(argc, argv,
                        {"--op", "--min-bytes", "--max-bytes", "--factor", "--iters", "--warmup", "--gpus", "--dtype",
                         "--nprocs", "--proc", "--id-file", "--timeout"},
                        {"--json", "--help", "-h"});
  if (options.flag("--help") || options.flag("-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (options.text("--op", "").empty()) throw UsageError("--op is required");
  Bench(options).run();
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return clustersim::bench::run_main("nccl_bench", kUsage, run, argc, argv); }
