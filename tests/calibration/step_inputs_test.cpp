#include "calibration/step_inputs.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "models/comm/collectives.hpp"
#include "models/compute/compute_profile.hpp"
#include "scenarios/scenario_error.hpp"
#include "scenarios/scenario_io.hpp"

namespace {

using namespace clustersim;

double latency_key_step_time(const std::vector<std::string>& sets) {
  return models::simulate_step(calibration::step_inputs(scenarios::default_scenario(sets))).report.times.step_time_s;
}

double two_node_all_reduce_s(const std::vector<std::string>& sets, double bytes) {
  const models::StepInputs in = calibration::step_inputs(scenarios::default_scenario(sets));
  return models::collective_time_s(models::CollectiveOp::all_reduce, bytes, {.ranks = 16, .ranks_per_node = 8}, in.cluster,
                                   in.comm);
}

}  // namespace

TEST_CASE("step inputs: every scenario takes its GPU's bundled profile unless it names another") {
  const scenarios::Scenario h100 = scenarios::default_scenario({"cluster.gpu=h100-sxm"});
  CHECK(calibration::communication_constants(h100) == "bundled profile h100-sxm");
  CHECK_FALSE(calibration::step_inputs(h100).comm.curves.empty());
  const scenarios::Scenario builtin = scenarios::default_scenario({"cluster.gpu=h100-sxm", "calibration.profile=built-in"});
  CHECK(calibration::communication_constants(builtin) == "built-in alpha-beta line (calibration.profile \"built-in\")");
  CHECK(calibration::step_inputs(builtin).comm.curves.empty());
  const scenarios::Scenario v100 = scenarios::default_scenario({"cluster.gpu=gb200"});
  CHECK(calibration::communication_constants(v100) == "built-in alpha-beta line (no bundled profile for GPU gb200)");
}

TEST_CASE("step inputs: a GPU preset without measurements of its own runs with the like part's profile") {
  // h100-96gb-500w names h100-sxm (the same die, NVLink 4 and NVSwitch): its compute constants and
  // its bundled calibration profile; the GPU's own HBM rate and power stay its own.
  const scenarios::Scenario teton = scenarios::default_scenario({"cluster.gpu=h100-96gb-500w"});
  const models::StepInputs in = calibration::step_inputs(teton);
  CHECK(in.cluster.gpu.name == "h100-96gb-500w");
  CHECK(in.cluster.gpu.hbm_bytes_per_s == 2.4e12);
  CHECK(in.compute.gpu == "h100-sxm");
  CHECK(calibration::communication_constants(teton) == "bundled profile h100-sxm (borrowed by h100-96gb-500w)");
  const scenarios::Scenario sxm = scenarios::default_scenario({"cluster.gpu=h100-sxm"});
  const models::StepInputs sxm_in = calibration::step_inputs(sxm);
  CHECK_FALSE(in.comm.curves.empty());
  CHECK(in.comm.curves.size() == sxm_in.comm.curves.size());
  CHECK(in.compute.gemm_max_efficiency_bf16.value == sxm_in.compute.gemm_max_efficiency_bf16.value);
  CHECK(in.compute.overlap.sms_held.value == sxm_in.compute.overlap.sms_held.value);
  // The same layout differs only by the GPU: HBM-bound ops run slower.
  CHECK(models::simulate_step(in).report.times.step_time_s > models::simulate_step(sxm_in).report.times.step_time_s);
  // Its built-in constants remain on request.
  const scenarios::Scenario builtin = scenarios::default_scenario({"cluster.gpu=h100-96gb-500w", "calibration.profile=built-in"});
  CHECK(calibration::step_inputs(builtin).comm.curves.empty());
}

TEST_CASE("step inputs: a board held below its rated power runs its tensor cores at a lower clock") {
  const models::StepInputs sxm = calibration::step_inputs(scenarios::default_scenario({"cluster.gpu=h100-sxm"}));
  const models::StepInputs teton = calibration::step_inputs(scenarios::default_scenario({"cluster.gpu=h100-96gb-500w"}));
  const models::StepInputs capped =
      calibration::step_inputs(scenarios::default_scenario({"cluster.gpu=h100-sxm", "cluster.gpu.power_w=500"}));
  // ((500 - 111) / (700 - 111))^(1/3) = 0.87078 of the clock Hopper holds at 700 W.
  CHECK(teton.compute.sustained_clock_ratio.value ==
        doctest::Approx(sxm.compute.sustained_clock_ratio.value * 0.87078).epsilon(1e-4));
  CHECK(capped.compute.sustained_clock_ratio.value == teton.compute.sustained_clock_ratio.value);
  CHECK(capped.compute.sustained_clock_ratio.source.find("500 W power limit") != std::string::npos);
  // The memory-bound rate stays: a cap lowers the SM clock, not the memory clock.
  CHECK(capped.compute.hbm_efficiency.value == sxm.compute.hbm_efficiency.value);
  // Tensor-core work slows by at most 1 / 0.87078 (the HBM-bound part and communication do not).
  const double sxm_s = models::simulate_step(sxm).report.times.step_time_s;
  const double capped_s = models::simulate_step(capped).report.times.step_time_s;
  CHECK(capped_s > sxm_s * 1.05);
  CHECK(capped_s < sxm_s / 0.87078);
  // A rated limit or none leaves the clock as the profile has it.
  for (const std::string watts : {"700", "0"}) {
    CAPTURE(watts);
    const models::StepInputs in =
        calibration::step_inputs(scenarios::default_scenario({"cluster.gpu=h100-sxm", "cluster.gpu.power_w=" + watts}));
    CHECK(in.compute.sustained_clock_ratio.value == sxm.compute.sustained_clock_ratio.value);
  }
  // Under the board's rest draw no clock runs: an error naming the key.
  try {
    calibration::step_inputs(scenarios::default_scenario({"cluster.gpu=h100-sxm", "cluster.gpu.power_w=100"}));
    FAIL("a 100 W limit on an H100 was accepted");
  } catch (const scenarios::ScenarioError& e) {
    CHECK(e.pointer() == "/cluster/gpu/power_w");
    CHECK(std::string(e.what()).find("111 W") != std::string::npos);
  }
}

TEST_CASE("step inputs: the latency keys take effect under the default profile, in both fidelities") {
  for (const std::string fidelity : {"analytic", "flow"}) {
    CAPTURE(fidelity);
    const double none = latency_key_step_time({"simulation.fidelity=" + fidelity, "cluster.network_latency_us=0"});
    const double slow = latency_key_step_time({"simulation.fidelity=" + fidelity, "cluster.network_latency_us=1e6"});
    CHECK(slow > none + 1.0);
    const double nvlink_slow = latency_key_step_time({"simulation.fidelity=" + fidelity, "cluster.nvlink_latency_us=1e6"});
    CHECK(nvlink_slow > none + 1.0);
  }
  // A 2-node all-reduce of 1 MiB: 2 network steps (the tree) of 1 s each, at least.
  CHECK(two_node_all_reduce_s({"cluster.network_latency_us=1e6"}, 1 << 20) > 2.0);
  CHECK(two_node_all_reduce_s({"cluster.network_latency_us=0"}, 1 << 20) < 1e-3);
}

TEST_CASE("step inputs: an Omni-Path node moves what its NICs moved on Jean Zay") {
  // A100 nodes with 4 x 100 Gb/s Omni-Path: one NIC held 5.068 GB/s a direction through NCCL in a
  // 4-node all-reduce (calibration/published/a100_4n32g_allreduce_jean-zay-omnipath.jsonl), so a
  // large ring all-reduce that spreads over all 4 NICs reaches 4 x 5.068 GB/s of busbw.
  const models::StepInputs in = calibration::step_inputs(scenarios::default_scenario(
      {"cluster.gpu=a100-80gb", "cluster.fabric=omnipath", "cluster.nics_per_node=4", "cluster.nic_gbit_per_s=100"}));
  const double bytes = 4e9;
  const double t = models::collective_time_s(models::CollectiveOp::all_reduce, bytes, {.ranks = 32, .ranks_per_node = 8},
                                             in.cluster, in.comm);
  const double busbw = 2.0 * 31.0 / 32.0 * bytes / t;
  CHECK(busbw == doctest::Approx(4 * 5.068e9).epsilon(0.03));
}

TEST_CASE("step inputs: under the bundled profile InfiniBand and RoCE price differently") {
  const double ib = two_node_all_reduce_s({"cluster.fabric=infiniband"}, 1 << 30);
  const double roce = two_node_all_reduce_s({"cluster.fabric=roce"}, 1 << 30);
  CHECK(roce > ib * 1.02);
  const double half_nics = two_node_all_reduce_s({"cluster.nics_per_node=4"}, 1 << 30);
  CHECK(half_nics > ib * 1.2);
}
