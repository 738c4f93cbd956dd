// membw_bench: device-to-device copy bandwidth (cudaMemcpyAsync within one GPU) over a size sweep,
// as JSON lines for `clustersim calibrate` (its best large-copy rate over the datasheet HBM
// bandwidth is the profile's hbm_efficiency). Bandwidth counts bytes read plus bytes written,
// 2 x size per copy, as STREAM's Copy does. Each size: warm-up copies, then the median of
// CUDA-event-timed copies.

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "calibration/bench/bench_common.hpp"
#include "calibration/bench/device_fill.hpp"

namespace {

using namespace clustersim::bench;

constexpr const char* kUsage =
    "Usage: membw_bench [--min-bytes SIZE] [--max-bytes SIZE] [--iters N] [--warmup N] [--device N]\n"
    "\n"
    "Times device-to-device copies within one GPU, sizes from MIN to MAX by factors of 4, and prints\n"
    "one JSON line per size (bytes, time_us, gb_per_s counting read + written bytes) after one line\n"
    "describing the GPU.\n"
    "\n"
    "  --min-bytes SIZE   smallest copy (default 1M); sizes take K, M, G suffixes\n"
    "  --max-bytes SIZE   largest copy (default 4G)\n"
    "  --iters N          timed copies per size, at least 20 (default 50); --warmup N (default 5)\n"
    "  --device N         CUDA device (default 0)\n"
    "  --help             this text (touches no GPU)\n";

int run(int argc, char** argv) {
  const Options options(argc, argv, {"--min-bytes", "--max-bytes", "--iters", "--warmup", "--device"}, {"--help", "-h"});
  if (options.flag("--help") || options.flag("-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::int64_t min_bytes = options.bytes("--min-bytes", std::int64_t{1} << 20);
  const std::int64_t max_bytes = options.bytes("--max-bytes", std::int64_t{4} << 30);
  const auto iters = static_cast<int>(options.integer("--iters", 50));
  const auto warmup = static_cast<int>(options.integer("--warmup", 5));
  if (min_bytes > max_bytes) throw UsageError("--min-bytes is above --max-bytes");
  if (iters < 20) throw UsageError("--iters must be at least 20 (the median needs them)");
  if (warmup < 1) throw UsageError("--warmup must be at least 1");

  const auto device = static_cast<int>(options.integer("--device", 0));
  CLUSTERSIM_CUDA_CHECK(cudaSetDevice(device));
  std::printf("%s\n", device_record(device).c_str());
  cudaStream_t stream = nullptr;
  void *source = nullptr, *target = nullptr;
  CLUSTERSIM_CUDA_CHECK(cudaStreamCreate(&stream));
  EventTimer timer;
  CLUSTERSIM_CUDA_CHECK(cudaMalloc(&source, static_cast<std::size_t>(max_bytes)));
  CLUSTERSIM_CUDA_CHECK(cudaMalloc(&target, static_cast<std::size_t>(max_bytes)));
  CLUSTERSIM_CUDA_CHECK(fill_random(source, static_cast<std::size_t>(max_bytes / 4), Element::f32, 3, stream));
  for (std::int64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 4) {
    const auto size = static_cast<std::size_t>(bytes);
    for (int i = 0; i < warmup; ++i) {
      CLUSTERSIM_CUDA_CHECK(cudaMemcpyAsync(target, source, size, cudaMemcpyDeviceToDevice, stream));
    }
    const double us = median(timer.times_us(stream, iters, [&] {
      CLUSTERSIM_CUDA_CHECK(cudaMemcpyAsync(target, source, size, cudaMemcpyDeviceToDevice, stream));
    }));
    std::printf("{\"bench\":\"membw\",\"op\":\"copy\",\"bytes\":%lld,\"time_us\":%.3f,\"gb_per_s\":%.2f,"
                "\"iters\":%d,\"warmup\":%d}\n",
                static_cast<long long>(bytes), us, 2.0 * static_cast<double>(bytes) / us / 1e3, iters, warmup);
    std::fflush(stdout);
  }
  CLUSTERSIM_CUDA_CHECK(cudaFree(source));
  CLUSTERSIM_CUDA_CHECK(cudaFree(target));
  cudaStreamDestroy(stream);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return clustersim::bench::run_main("membw_bench", kUsage, run, argc, argv); }
