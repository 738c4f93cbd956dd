#include <doctest/doctest.h>

#include "models/run/checkpoint_interval.hpp"
#include "models/run/checkpoint_model.hpp"
#include "models/compute/flops.hpp"
#include "tests/models/model_fixtures.hpp"

namespace clustersim::models {
namespace {

// 256 H100 in 32 nodes, ZeRO-1: every node writes its share.
JobShape job_256() { return {.num_gpus = 256, .gpus_per_node = 8, .model_parallel_gpus = 32, .zero = 1}; }

TEST_CASE("checkpoint: a 70B model at 14 bytes per parameter is about 0.98 TB") {
  // costs-topology-failures.md 4.2: 7B 98 GB, 70B 0.98 TB at 14 B/param. Llama 3 70B has 70.6e9
  // parameters with its untied embeddings.
  const double bytes = checkpoint_bytes(test::llama3_70b(), CheckpointSpec{});
  CHECK(bytes == doctest::Approx(14.0 * static_cast<double>(parameter_count(test::llama3_70b()))));
  CHECK(bytes / 1e12 == doctest::Approx(0.988).epsilon(0.01));
}

TEST_CASE("checkpoint: MT-NLG 530B over 20 Gb/s takes 42 minutes, as the Gemini paper says") {
  // 530e9 x 12 B / 2.5 GB/s = 2544 s = 42.4 min (the reference's consistency check of 12 B/param).
  const StorageSpec storage{};  // NFS default: 20 Gb/s aggregate
  CHECK(transfer_seconds(storage, StorageKind::nfs, 530e9 * 12.0, 100) / 60.0 == doctest::Approx(42.4).epsilon(0.001));
  // A single client is held to its own link; many are held to the aggregate.
  const StorageSpec lustre{.lustre = {.aggregate_bytes_per_s = 100e9, .per_node_bytes_per_s = 10e9}};
  CHECK(transfer_seconds(lustre, StorageKind::lustre, 100e9, 1) == doctest::Approx(10.0));
  CHECK(transfer_seconds(lustre, StorageKind::lustre, 100e9, 50) == doctest::Approx(1.0));
}

TEST_CASE("checkpoint: sync stalls for the write, async only for the snapshot") {
  const auto model = test::llama3_70b();
  const StorageSpec storage{};
  CheckpointSpec spec{.target = StorageKind::lustre};
  const CheckpointCosts sync = checkpoint_costs(model, job_256(), spec, storage);
  // Lustre: min(256 GB/s aggregate, 32 nodes x 40 GB/s) = 256 GB/s.
  CHECK(sync.writer_nodes == 32);
  CHECK(sync.stall_s == doctest::Approx(sync.bytes / 256e9));
  CHECK(sync.commit_after_stall_s == 0.0);

  spec.mode = CheckpointMode::async;
  const CheckpointCosts async = checkpoint_costs(model, job_256(), spec, storage);
  // Each of 256 GPUs copies 1/256 of the checkpoint at 25 GB/s.
  CHECK(async.stall_s == doctest::Approx(async.bytes / 256.0 / 25e9));
  CHECK(async.commit_after_stall_s == doctest::Approx(sync.stall_s));
}

TEST_CASE("checkpoint: local NVMe with an upload commits after the upload, a node loss reads the remote copy") {
  const auto model = test::llama3_70b();
  const StorageSpec storage{};
  const CheckpointSpec spec{.target = StorageKind::local_nvme, .second_target = SecondTarget::nfs};
  const CheckpointCosts c = checkpoint_costs(model, job_256(), spec, storage);
  const double local = c.bytes / (32 * 16e9);
  const double upload = c.bytes / 2.5e9;
  CHECK(c.stall_s == doctest::Approx(local));
  CHECK(c.commit_after_stall_s == doctest::Approx(upload));
  CHECK(c.load_s == doctest::Approx(local));                   // software failure: the local copy
  CHECK(c.load_after_node_loss_s == doctest::Approx(upload));  // node lost: from NFS
  CHECK(c.restart_fixed_s == doctest::Approx(600.0));          // 5 + 2 + 3 min by default
}

TEST_CASE("checkpoint: without ZeRO one replica writes") {
  JobShape job = job_256();
  job.zero = 0;
  const CheckpointCosts c = checkpoint_costs(test::llama3_70b(), job, CheckpointSpec{}, StorageSpec{});
  CHECK(c.writer_gpus == 32);
  CHECK(c.writer_nodes == 4);
}

TEST_CASE("intervals: Young's and Daly's formulas reproduce Daly's figure values") {
  // Daly 2006 figures (costs-topology-failures.md 4.4): delta = 5 min;
  // M = 24 h -> 117 min (Young 120); M = 6 h -> 57 min (Young 60); M = 15 min -> 9.1 min (Young 12.2).
  const double delta = 300.0;
  CHECK(daly_interval_s(delta, 24 * 3600.0) / 60.0 == doctest::Approx(117.0).epsilon(0.01));
  CHECK(young_interval_s(delta, 24 * 3600.0) / 60.0 == doctest::Approx(120.0).epsilon(0.001));
  CHECK(daly_interval_s(delta, 6 * 3600.0) / 60.0 == doctest::Approx(57.0).epsilon(0.01));
  CHECK(daly_interval_s(delta, 15 * 60.0) / 60.0 == doctest::Approx(9.1).epsilon(0.02));
  CHECK(young_interval_s(delta, 15 * 60.0) / 60.0 == doctest::Approx(12.2).epsilon(0.01));
  CHECK(daly_interval_s(3 * 3600.0, 3600.0) == 3600.0);  // delta >= 2M: tau = M
}

TEST_CASE("intervals: first-order waste matches the reference's Llama 3 sanity anchors") {
  // costs-topology-failures.md 4.4: M = 3.09 h, R = 10 min; delta = 60 s -> tau 18.6 min (Daly),
  // ETTR 0.84; delta = 300 s -> 39.8 min, 0.71.
  const double mtti = 3.09 * 3600.0, restart = 600.0, delta = 60.0;
  const double tau = daly_interval_s(delta, mtti);
  CHECK(tau / 60.0 == doctest::Approx(18.6).epsilon(0.01));
  CHECK(1.0 - first_order_waste(tau, delta, restart, mtti) == doctest::Approx(0.84).epsilon(0.01));
  const double tau_300 = daly_interval_s(300.0, mtti);
  CHECK(tau_300 / 60.0 == doctest::Approx(39.8).epsilon(0.01));
  CHECK(1.0 - first_order_waste(tau_300, 300.0, restart, mtti) == doctest::Approx(0.71).epsilon(0.01));
}

}  // namespace
}  // namespace clustersim::models
