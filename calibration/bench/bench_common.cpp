#include "calibration/bench/bench_common.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace clustersim::bench {

Options::Options(int argc, char** argv, const std::vector<std::string>& valued, const std::vector<std::string>& flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (std::find(flags.begin(), flags.end(), word) != flags.end()) {
      values_[word] = "";
    } else if (std::find(valued.begin(), valued.end(), word) != valued.end()) {
      if (i + 1 >= argc) throw UsageError(word + " needs a value");
      values_[word] = argv[++i];
    } else {
      throw UsageError("unknown option '" + word + "'");
    }
  }
}

bool Options::flag(const std::string& name) const { return values_.contains(name); }

std::string Options::text(const std::string& name, const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

std::int64_t Options::integer(const std::string& name, std::int64_t fallback) const {
  const auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), value);
  if (error != std::errc{} || end != it->second.data() + it->second.size()) {
    throw UsageError(name + " " + it->second + ": not an integer");
  }
  return value;
}

std::int64_t Options::bytes(const std::string& name, std::int64_t fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : parse_bytes(it->second);
}

std::int64_t parse_bytes(std::string_view text) {
  std::int64_t scale = 1;
  if (!text.empty()) {
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
      case 'K': scale = std::int64_t{1} << 10; break;
      case 'M': scale = std::int64_t{1} << 20; break;
      case 'G': scale = std::int64_t{1} << 30; break;
      default: break;
    }
    if (scale != 1) text.remove_suffix(1);
  }
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value <= 0) {
    throw UsageError("'" + std::string(text) + "' is not a size (8, 64K, 16M, 8G)");
  }
  return value * scale;
}

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(status));
}

double median(std::vector<double> values) {
  if (values.empty()) return 0.0;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  const double upper = *middle;
  const double lower = *std::max_element(values.begin(), middle);
  return 0.5 * (lower + upper);
}

std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string device_record(int device) {
  cudaDeviceProp prop{};
  CLUSTERSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  int driver = 0, runtime = 0;
  CLUSTERSIM_CUDA_CHECK(cudaDriverGetVersion(&driver));
  CLUSTERSIM_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  return "{\"bench\":\"device\",\"name\":" + json_string(prop.name) +
         ",\"sm_count\":" + std::to_string(prop.multiProcessorCount) + ",\"compute_capability\":\"" +
         std::to_string(prop.major) + "." + std::to_string(prop.minor) +
         "\",\"memory_bytes\":" + std::to_string(prop.totalGlobalMem) + ",\"driver\":" + std::to_string(driver) +
         ",\"cuda\":" + std::to_string(runtime) + ",\"host\":" + json_string(host_name()) + "}";
}

EventTimer::EventTimer() {
  CLUSTERSIM_CUDA_CHECK(cudaEventCreate(&start_));
  CLUSTERSIM_CUDA_CHECK(cudaEventCreate(&stop_));
}

EventTimer::~EventTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

int visible_gpus(const char* name) {
  int visible = 0;
  const cudaError_t status = cudaGetDeviceCount(&visible);
  if (status == cudaSuccess && visible > 0) return visible;
  std::fprintf(stderr, "%s: no CUDA GPU visible (%s); this benchmark needs one\n", name,
               status != cudaSuccess ? cudaGetErrorString(status) : "0 devices");
  return 0;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

int run_main(const char* name, const char* usage, int (*run)(int, char**), int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n\n%s", name, e.what(), usage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", name, e.what());
    return 1;
  }
}

}  // namespace clustersim::bench
