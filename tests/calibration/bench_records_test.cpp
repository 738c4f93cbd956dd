#include <doctest/doctest.h>

#include <string>

#include "calibration/bench_records.hpp"
#include "calibration/input_error.hpp"

namespace {

using namespace clustersim::calibration;
using clustersim::models::CollectiveOp;
using clustersim::models::Precision;

std::string parse_error(const std::string& text) {
  try {
    parse_bench_records(text, "r.jsonl");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST_CASE("bench records: each kind, with times and rates derived from each other") {
  const auto records = parse_bench_records(
      "# gemm_bench on host x\n"
      "\n"
      "{\"bench\":\"device\",\"name\":\"NVIDIA H100 80GB HBM3\",\"sm_count\":132}\n"
      "{\"bench\":\"gemm\",\"m\":8192,\"n\":8192,\"k\":8192,\"dtype\":\"bf16\",\"time_us\":1500.0}\n"
      "{\"bench\":\"gemm\",\"m\":1024,\"n\":1024,\"k\":1024,\"dtype\":\"fp8_e4m3\",\"tflops\":274.1}\n"
      "{\"bench\":\"membw\",\"bytes\":1073741824,\"time_us\":1000.0}\n"
      "{\"bench\":\"attention\",\"dtype\":\"bf16\",\"tflops\":327.9}\n"
      "{\"bench\":\"attention\",\"dtype\":\"bf16\",\"tflops\":279.3,\"kernel\":\"torch 2.11 sdpa flash2\"}\n"
      "{\"bench\":\"attention\",\"dtype\":\"bf16\",\"tflops\":495.1,\"kernel\":\"cudnn 9.10 (torch sdpa)\"}\n"
      "{\"bench\":\"attention\",\"dtype\":\"bf16\",\"tflops\":570.6,\"kernel\":\"flash-attention-3\"}\n"
      "{\"bench\":\"nccl\",\"op\":\"all_reduce\",\"ranks\":8,\"bytes\":1048576,\"busbw_gb_per_s\":43.70}\n",
      "r.jsonl");
  REQUIRE(records.devices.size() == 1);
  CHECK(records.devices[0].sm_count == 132);
  REQUIRE(records.gemm.size() == 2);
  // 2 x 8192^3 FLOP in 1500 us: 1.0995e12 / 1.5e-3 = 733.0 TF/s.
  CHECK(records.gemm[0].tflops == doctest::Approx(2.0 * 8192.0 * 8192.0 * 8192.0 / 1500e-6 / 1e12));
  CHECK(records.gemm[0].line == 4);
  // 2 x 1024^3 FLOP at 274.1 TF/s: 7.835 us.
  CHECK(records.gemm[1].time_us == doctest::Approx(2.0 * 1073741824.0 / 274.1e12 * 1e6));
  CHECK(records.gemm[1].precision == Precision::fp8);
  // 1 GiB copied in 1 ms: 2 x 1073741824 B read + written / 1e-3 s = 2147.5 GB/s.
  CHECK(records.membw[0].gb_per_s == doctest::Approx(2147.483648));
  CHECK(records.attention[0].tflops == doctest::Approx(327.9));
  // The kernel from its text: none named is the flash-attn package's FlashAttention-2; sdpa names
  // PyTorch's build unless cuDNN is named; flash-attention-3 its own.
  REQUIRE(records.attention.size() == 4);
  CHECK(records.attention[0].kernel == clustersim::models::AttentionKernel::flash2);
  CHECK(records.attention[1].kernel == clustersim::models::AttentionKernel::sdpa_flash);
  CHECK(records.attention[2].kernel == clustersim::models::AttentionKernel::cudnn);
  CHECK(records.attention[3].kernel == clustersim::models::AttentionKernel::flash3);
  CHECK(records.attention[0].dropout == 0.0);  // none unless the record says
  REQUIRE(records.collectives.size() == 1);
  CHECK(records.collectives[0].op == CollectiveOp::all_reduce);
  CHECK(records.collectives[0].ranks_per_node == 8);  // one node unless told
  CHECK(records.collectives[0].time_derived);
  // 1 MiB all-reduce at 43.70 GB/s busbw: 1048576 x 1.75 / 43.70e9 s = 41.99 us.
  CHECK(records.collectives[0].time_us == doctest::Approx(1048576.0 * 1.75 / 43.70e9 * 1e6));
}

TEST_CASE("bench records: a clock record keeps the first second's clock, the held one and the power") {
  const auto records = parse_bench_records(
      "{\"bench\":\"clock\",\"work\":\"gemm\",\"dtype\":\"bf16\",\"kernel\":\"matmul\",\"tflops\":702.1,"
      "\"sm_mhz_first_s\":1980,\"sm_mhz\":1590,\"power_w\":699.2,\"power_limit_w\":700,\"seconds\":20}\n"
      "{\"bench\":\"clock\",\"work\":\"copy\",\"gb_per_s\":4300,\"sm_mhz_first_s\":1980,\"sm_mhz\":1980,"
      "\"power_w\":420}\n",
      "c.jsonl");
  REQUIRE(records.clocks.size() == 2);
  CHECK(records.clocks[0].work == "gemm");
  CHECK(records.clocks[0].dtype == "bf16");
  CHECK(records.clocks[0].sm_mhz_first_s == 1980.0);
  CHECK(records.clocks[0].sm_mhz == 1590.0);
  CHECK(records.clocks[0].power_w == doctest::Approx(699.2));
  CHECK(records.clocks[0].power_limit_w == 700.0);
  CHECK(records.clocks[0].rate == doctest::Approx(702.1));
  CHECK(records.clocks[1].rate == 4300.0);
  CHECK(records.clocks[1].power_limit_w == 0.0);
  CHECK(records.clocks[1].line == 2);
  CHECK(parse_error("{\"bench\":\"clock\",\"work\":\"fft\",\"sm_mhz_first_s\":1,\"sm_mhz\":1,\"power_w\":1}\n") ==
        "r.jsonl:1: /work: \"fft\" is not gemm, attention, copy or idle");
  CHECK(parse_error("{\"bench\":\"clock\",\"work\":\"gemm\",\"sm_mhz_first_s\":1,\"sm_mhz\":1,\"power_w\":1}\n") ==
        "r.jsonl:1: /dtype: a GEMM's is bf16 or fp8, not \"\"");
  CHECK(parse_error("{\"bench\":\"clock\",\"work\":\"idle\",\"sm_mhz_first_s\":1,\"power_w\":1}\n") ==
        "r.jsonl:1: /sm_mhz: is required");
}

TEST_CASE("bench records: errors name the file, the line, the key and the rule") {
  CHECK(parse_error("{\"bench\":\"gemm\",\"m\":0,\"n\":1,\"k\":1,\"dtype\":\"bf16\",\"tflops\":1}\n") ==
        "r.jsonl:1: /m: must be a positive integer");
  CHECK(parse_error("# header\n{\"bench\":\"gemm\",\"m\":1,\"n\":1,\"k\":1,\"dtype\":\"int8\",\"tflops\":1}\n") ==
        "r.jsonl:2: /dtype: \"int8\" is not bf16, fp16, fp8_e4m3 or nvfp4");
  CHECK(parse_error("{\"bench\":\"gemm\",\"m\":1,\"n\":1,\"k\":1,\"dtype\":\"bf16\"}\n") ==
        "r.jsonl:1: needs time_us or tflops");
  CHECK(parse_error("{\"bench\":\"nccl\",\"op\":\"all_reduce\",\"ranks\":8,\"bytes\":8,\"time_us\":10,\"colour\":1}\n") ==
        "r.jsonl:1: /colour: unknown key for a \"nccl\" record");
  CHECK(parse_error("{\"bench\":\"nccl\",\"op\":\"broadcast\",\"ranks\":8,\"bytes\":8,\"time_us\":10}\n") ==
        "r.jsonl:1: /op: \"broadcast\" is not all_reduce, all_gather, reduce_scatter, all_to_all or send_recv");
  CHECK(parse_error("{\"bench\":\"nccl\",\"op\":\"all_reduce\",\"ranks\":8,\"ranks_per_node\":3,\"bytes\":8,\"time_us\":10}\n") ==
        "r.jsonl:1: /ranks_per_node: must divide ranks");
  // time_us 100 for 8 MiB is 146.8 GB/s busbw, not 50.
  CHECK(parse_error("{\"bench\":\"nccl\",\"op\":\"all_reduce\",\"ranks\":8,\"bytes\":8388608,\"time_us\":100,"
                    "\"busbw_gb_per_s\":50}\n")
            .starts_with("r.jsonl:1: /busbw_gb_per_s: 50 disagrees with time_us by more than 1%"));
  CHECK(parse_error("{\"bench\":\"gemm\"\n").starts_with("r.jsonl:1: not a JSON object"));
  CHECK(parse_error("{\"bench\":\"gemm\",\"time_us\":1e999}\n") ==
        "r.jsonl:1: /time_us: must be a finite number (a double), got 1e999");
  CHECK(parse_error("# a deep line\n" + std::string(65, '[') + std::string(65, ']') + "\n") ==
        "r.jsonl:2: not a JSON object: nested deeper than 64 levels at line 1, column 65");
  CHECK(parse_error("[1, 2]\n") == "r.jsonl:1: each line must be one JSON object");
  CHECK(parse_error("{\"bench\":\"attention\",\"dtype\":\"bf16\",\"tflops\":300,\"dropout\":1}\n") ==
        "r.jsonl:1: /dropout: must be a number in [0, 1)");
  CHECK(parse_bench_records("{\"bench\":\"attention\",\"dtype\":\"bf16\",\"tflops\":300,\"dropout\":0.1}\n", "r.jsonl")
            .attention[0]
            .dropout == 0.1);
  CHECK(parse_error("{\"bench\":\"fft\"}\n") == "r.jsonl:1: /bench: \"fft\" is not device, gemm, membw, attention, nccl, overlap or clock");
}

}  // namespace
