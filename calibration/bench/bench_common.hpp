#pragma once
/// What the CUDA microbenchmarks share: command-line parsing, error checks that throw with the
/// failing call, timing statistics, and JSON-lines output in the form calibration/bench_records.hpp
/// reads.
/// Limitations: options are "--name value" or "--flag"; no abbreviations.
/// Source: written here.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

namespace clustersim::bench {

/// A command-line mistake: main prints it with the usage and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// "--name value" options and "--flag" switches, checked against the names a benchmark knows.
class Options {
 public:
  /// `valued` take a value, `flags` do not. Throws UsageError on anything else.
  Options(int argc, char** argv, const std::vector<std::string>& valued, const std::vector<std::string>& flags);

  bool flag(const std::string& name) const;
  std::string text(const std::string& name, const std::string& fallback) const;
  std::int64_t integer(const std::string& name, std::int64_t fallback) const;
  /// Sizes accept K, M, G suffixes (powers of 1024): "8", "64K", "8G".
  std::int64_t bytes(const std::string& name, std::int64_t fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

/// Parses "8", "64K", "16M", "8G" (powers of 1024). Throws UsageError.
std::int64_t parse_bytes(std::string_view text);

/// Throws std::runtime_error "<what>: <CUDA error string>" unless status is cudaSuccess.
void check_cuda(cudaError_t status, const char* what);
#define CLUSTERSIM_CUDA_CHECK(call) ::clustersim::bench::check_cuda((call), #call)

double median(std::vector<double> values);

/// Two CUDA events that time work on a stream: each run between them, one run at a time.
class EventTimer {
 public:
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  /// Microseconds of each of `iters` calls of `launch`, which enqueues its work on `stream`.
  template <class Launch>
  std::vector<double> times_us(cudaStream_t stream, int iters, Launch&& launch) {
    std::vector<double> times;
    for (int i = 0; i < iters; ++i) {
      CLUSTERSIM_CUDA_CHECK(cudaEventRecord(start_, stream));
      launch();
      CLUSTERSIM_CUDA_CHECK(cudaEventRecord(stop_, stream));
      CLUSTERSIM_CUDA_CHECK(cudaEventSynchronize(stop_));
      float ms = 0.0f;
      CLUSTERSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
      times.push_back(1e3 * static_cast<double>(ms));
    }
    return times;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

/// `text` as a JSON string literal, quotes included.
std::string json_string(std::string_view text);

/// The {"bench":"device",...} JSON line for a CUDA device (name, SM count, compute capability,
/// memory, driver and runtime versions).
std::string device_record(int device);

/// The exit status of a benchmark that needs a GPU and sees none.
inline constexpr int kNoGpuExit = 3;

/// The number of visible CUDA GPUs; with none, says so on stderr as "<name>: no CUDA GPU visible
/// (why); this benchmark needs one" and returns 0.
int visible_gpus(const char* name);

/// This machine's host name ("unknown" if it cannot be read).
std::string host_name();

/// A benchmark's main: runs `run`, printing a UsageError with `usage` (exit 2) or any other error
/// (exit 1) on stderr, prefixed with the benchmark's `name`.
int run_main(const char* name, const char* usage, int (*run)(int, char**), int argc, char** argv);

}  // namespace clustersim::bench
