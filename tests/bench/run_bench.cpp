#include "tests/bench/run_bench.hpp"

#include <chrono>

#include "models/run/run_inputs.hpp"
#include "models/run/monte_carlo.hpp"

namespace clustersim::bench {

RunBenchResult bench_failure_runs(std::int64_t runs, unsigned threads) {
  // Llama 3 405B's shape: 16,384 GPUs as TP 8 x PP 16 x DP 128, 2,048 x 8,192-token batches. The
  // step time is fixed here (the step model has its own benchmark) and the token budget chosen so
  // that the failure-free run lasts 54 days.
  models::RunSetup setup{.model = {.name = "llama3-405b", .layers = 126, .hidden = 16384, .ffn_hidden = 53248,
                                   .heads = 128, .kv_heads = 8, .vocab = 128256},
                         .cluster = {.gpu = {}, .num_gpus = 16384},
                         .parallelism = {.tp = 8, .pp = 16, .dp = 128},
                         .training = {.seq_len = 8192, .global_batch = 2048},
                         .step_time_s = 10.0};
  setup.training.tokens = 54.0 * 86400.0 / setup.step_time_s * 8192.0 * 2048.0;
  const models::RunInputs in = models::make_run_inputs(setup);
  const auto t0 = std::chrono::steady_clock::now();
  const models::RunStatistics stats = models::simulate_runs(in, runs, 1, threads);
  return {.runs = runs,
          .seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
          .mean_interruptions = stats.mean_total_interruptions,
          .mean_goodput = stats.mean_goodput};
}

}  // namespace clustersim::bench
