// The log readers on real published excerpts (tests/handoff/data/README.md names their sources);
// every expected figure is computed by hand from the excerpt's lines.

#include <doctest/doctest.h>

#include <string>

#include "calibration/input_error.hpp"
#include "calibration/input_file.hpp"
#include "handoff/compare/log_comparison.hpp"
#include "handoff/logs/log_format.hpp"

namespace clustersim::handoff {
namespace {

std::string data_path(const std::string& name) { return std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/handoff/data/" + name; }

StepLog read_steps(const std::string& name, LogFormat expected) {
  const TrainingLog log = read_training_log(data_path(name));
  REQUIRE(log.format == expected);
  REQUIRE(log.steps);
  return *log.steps;
}

TEST_CASE("training logs: Megatron-LM iteration lines of NVIDIA/Megatron-LM#756") {
  const StepLog log = read_steps("megatron_lm_issue756_excerpt.txt", LogFormat::megatron_lm);
  REQUIRE(log.samples.size() == 6);
  CHECK(log.samples.front().step == 29);
  CHECK(log.samples.back().step == 73);
  CHECK(log.samples[3].line == 4);
  CHECK(log.samples[1].seconds == doctest::Approx(5.5711));
  // Sorted ms: 5361.6 5470.7 5571.1 5718.9 5829.9 5912.1; median (5571.1 + 5718.9) / 2 = 5645.0;
  // P10 at rank 0.5: 5361.6 + 0.5 x 109.1 = 5416.15.
  const StepTimeComparison c = compare_step_time(log, 5.0, 10);
  CHECK(c.dropped == 0);
  CHECK(c.measured_s.median == doctest::Approx(5.6450));
  CHECK(c.measured_s.p10 == doctest::Approx(5.41615));
  // TFLOP/s/GPU sorted: 220.9 224.0 228.3 234.4 238.7 243.6; median 231.35.
  REQUIRE(c.measured_tflops_per_gpu);
  CHECK(c.measured_tflops_per_gpu->median == doctest::Approx(231.35));
  CHECK(c.relative_error == doctest::Approx(5.0 / 5.645 - 1.0));
}

TEST_CASE("training logs: torchtitan metric lines of pytorch/torchtitan#3393, step time from timestamps") {
  const StepLog log = read_steps("torchtitan_pr3393_excerpt.txt", LogFormat::torchtitan);
  // Eight lines, steps 14-21: seven intervals. 16:04:46,338 -> 47,456 is 1.118 s.
  REQUIRE(log.samples.size() == 7);
  CHECK(log.samples.front().step == 15);
  CHECK(log.samples.front().seconds == doctest::Approx(1.118).epsilon(1e-6));
  // Intervals: 1.118 1.121 1.125 1.119 1.121 1.127 1.122 s; the median is 1.121.
  const StepTimeComparison c = compare_step_time(log, 1.0, 10);
  CHECK(c.measured_s.median == doctest::Approx(1.121).epsilon(1e-6));
  REQUIRE(c.measured_tflops_per_gpu);
  CHECK(c.measured_tflops_per_gpu->median == doctest::Approx(0.52));
}

TEST_CASE("training logs: torchtitan lines repeated by every rank count once (pytorch/torchtitan#2389)") {
  const std::string text =
      "[titan] 2026-02-24 19:46:17,508 - root - INFO - step:  4  loss:  7.62585  grad_norm: 26.6250  memory: 66.91GiB(37.51%)  tps: 10,050  tflops: 314.71  mfu: 13.99%\n"
      "[titan] 2026-02-24 19:46:17,508 - root - INFO - step:  4  loss:  7.62585  grad_norm: 26.6250  memory: 66.91GiB(37.51%)  tps: 10,050  tflops: 314.69  mfu: 13.99%\n"
      "[titan] 2026-02-24 19:46:19,145 - root - INFO - step:  5  loss:  7.07623  grad_norm: 46.5000  memory: 66.91GiB(37.51%)  tps: 10,007  tflops: 313.36  mfu: 13.93%\n";
  const StepLog log = parse_training_log(text, "titan.log").steps.value();
  REQUIRE(log.samples.size() == 1);
  CHECK(log.samples[0].step == 5);
  CHECK(log.samples[0].line == 3);
  CHECK(log.samples[0].seconds == doctest::Approx(1.637).epsilon(1e-6));
  CHECK(log.samples[0].tflops_per_gpu.value() == doctest::Approx(313.36));
}

TEST_CASE("training logs: NeMo 2 progress lines (NVIDIA-BioNeMo/bionemo-recipes#740)") {
  const StepLog log = read_steps("nemo2_bionemo_pr740_excerpt.txt", LogFormat::nemo);
  REQUIRE(log.samples.size() == 6);
  CHECK(log.samples.front().step == 120);  // global_step
  // Sorted: 0.03146 0.03147 0.03157 0.03163 0.0317 0.03215; median (0.03157 + 0.03163) / 2 = 0.0316.
  CHECK(compare_step_time(log, 0.03, 10).measured_s.median == doctest::Approx(0.0316));
}

TEST_CASE("training logs: NeMo 1 progress bar, key=value") {
  // The progress bar's layout as in NVIDIA-NeMo/Speech#11900 (there before the first step, with no values).
  const std::string text =
      "Epoch 0: :   0%|          | 614/? [23:53<00:00, v_num=, reduced_train_loss=, global_step=, consumed_samples=, train_step_timing in s=, val_loss=]\n"
      "Epoch 0: :   1%|          | 30/? [11:53<00:00, v_num=, reduced_train_loss=2.51, global_step=29.0, consumed_samples=7424.0, train_step_timing in s=23.8]\n";
  const StepLog log = parse_training_log(text, "nemo1.log").steps.value();
  REQUIRE(log.samples.size() == 1);
  CHECK(log.samples[0].step == 29);
  CHECK(log.samples[0].line == 2);
  CHECK(log.samples[0].seconds == doctest::Approx(23.8));
}

TEST_CASE("training logs: MLPerf MLLOG train_step_timing of training_results_v4.1 (GPT-3 175B, 256 H100)") {
  const StepLog log = read_steps("mlperf41_gpt3_eos_n32_result_0_excerpt.txt", LogFormat::mllog);
  // 18 train timings (12 in the first block, 6 after the evaluation); the 3 validation timings skipped.
  REQUIRE(log.samples.size() == 18);
  CHECK(log.samples.front().seconds == doctest::Approx(18.09756088256836));
  CHECK(log.samples.front().line == 6);
  // Steps 11-18 kept: 18.369155883789062 18.368961334228516 18.359329223632812 18.365663528442383
  // 18.36383056640625 18.367719650268555 18.366836547851562 18.374835968017578; the middle two
  // sorted are 18.366836547851562 and 18.367719650268555.
  const StepTimeComparison c = compare_step_time(log, 20.0, 10);
  CHECK(c.dropped == 10);
  CHECK(c.measured_s.count == 8);
  CHECK(c.measured_s.median == doctest::Approx((18.366836547851562 + 18.367719650268555) / 2).epsilon(1e-12));
}

TEST_CASE("training logs: the format is detected per file, other files are refused with file and line") {
  CHECK(read_training_log(std::string(CLUSTERSIM_SOURCE_DIR) +
                          "/tests/calibration/data/h100_2n16g_ib-ndr_allreduce_nccl-tests-309.txt")
            .format == LogFormat::nccl_tests);
  // A table published without nccl-tests' header, its layout stated on a "# ranks:" line.
  CHECK(read_training_log(std::string(CLUSTERSIM_SOURCE_DIR) + "/calibration/published/h200_2n16g_allgather_gcp-a3ultra.txt")
            .format == LogFormat::nccl_tests);
  CHECK_THROWS_WITH_AS(detect_log_format("\n\nhello world\n", "x.log"),
                       doctest::Contains("x.log:3: not a log clustersim reads"), calibration::InputError);
  CHECK_THROWS_WITH_AS(detect_log_format("", "empty.log"), doctest::Contains("empty.log: not a log"),
                       calibration::InputError);
  // Naming a format is not being one: a line needs the value its format prints.
  CHECK_THROWS_WITH_AS(detect_log_format("see `train_step_timing in s` and \"elapsed time per iteration (ms)\"\n", "doc.md"),
                       doctest::Contains("doc.md:1: not a log"), calibration::InputError);
  CHECK_THROWS_WITH_AS(parse_training_log(" iteration 4/ 10 | elapsed time per iteration (ms): 12.5 |\n"
                                          " iteration 5/ 10 | elapsed time per iteration (ms): abc |\n", "m.log"),
                       doctest::Contains("m.log:2:"), calibration::InputError);
  CHECK_THROWS_WITH_AS(parse_training_log(":::MLLOG {not json\n", "r.txt"), doctest::Contains("r.txt:1:"),
                       calibration::InputError);
  // A step count past what a double holds exactly is no step (it was cast to an integer, undefined).
  CHECK_THROWS_WITH_AS(parse_training_log("train_step_timing in s: 1.5 global_step: 1.2e78\n", "n.log"),
                       "n.log:1: a NeMo step-timing line has no global_step or \"iteration N/\"", calibration::InputError);
  CHECK_THROWS_WITH_AS(parse_training_log(" iteration 1e300/ 10 | elapsed time per iteration (ms): 12.5 |\n", "m.log"),
                       "m.log:1: a Megatron-LM iteration line has no \"iteration N/\" count", calibration::InputError);
  CHECK_THROWS_WITH_AS(parse_training_log(":::MLLOG {\"key\": {\"file\": \"x.py\"}, \"value\": null}\n", "r.txt"),
                       "r.txt:1: an MLLOG event's \"key\" must be a string", calibration::InputError);
}

TEST_CASE("log comparison: spread, warm-up and busbw by hand") {
  const Spread s = spread_of({4.0, 1.0, 3.0, 2.0, 5.0});
  CHECK(s.median == 3.0);
  CHECK(s.p10 == doctest::Approx(1.4));  // rank 0.4 between 1 and 2
  CHECK(s.p90 == doctest::Approx(4.6));
  const StepLog log{.file = "w.log", .format = LogFormat::megatron_lm,
                    .samples = {{.line = 1, .step = 1, .seconds = 9.0, .tflops_per_gpu = std::nullopt},
                                {.line = 2, .step = 2, .seconds = 2.0, .tflops_per_gpu = std::nullopt}}};
  CHECK(compare_step_time(log, 1.0, 1).measured_s.median == 2.0);
  CHECK_THROWS_WITH_AS(compare_step_time(log, 1.0, 2), doctest::Contains("lower --warmup-steps"), calibration::InputError);

  const calibration::NcclTestsLog nccl = calibration::read_nccl_tests_log(
      std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/calibration/data/h100_2n16g_ib-ndr_allreduce_nccl-tests-309.txt");
  std::vector<PredictedCollective> predicted(nccl.rows.size(), {.time_us = 100.0, .busbw_gbps = 1.0});
  const BusbwComparison c = compare_busbw(nccl, predicted);
  REQUIRE(c.rows.size() == nccl.rows.size());
  // 16 GB: 68652 us in place (the faster); busbw 469.21 GB/s.
  CHECK(c.rows.back().measured_time_us == doctest::Approx(68652.0));
  CHECK(c.rows.back().measured_busbw_gbps == doctest::Approx(469.21));
  CHECK(c.rows.back().relative_error == doctest::Approx(68652.0 / 100.0 - 1.0));
  CHECK(largest_departure(c) == &c.rows.back());
}

}  // namespace
}  // namespace clustersim::handoff
