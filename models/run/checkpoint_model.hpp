#pragma once
/// Checkpoint and restart costs of a job: how long training stalls for each checkpoint, how long
/// until the checkpoint is committed, and how long a restart takes.
/// Checkpoint size = bytes per parameter x parameters (weights + optimizer state). Writers: every
/// node when the optimizer state is sharded over data parallelism (ZeRO >= 1), else the nodes of one
/// model replica; each target takes bytes / min(aggregate, writers x per-node bandwidth), a local
/// NVMe disk bytes / (writers x per-node bandwidth).
/// Synchronous: training stalls for the write to the first target. Asynchronous: training stalls
/// only for the snapshot (each writing GPU copies its share to host memory); the write follows in
/// the background. A second target (two-phase commit) is written after the first, in the
/// background; the checkpoint commits when every target has it, and only committed checkpoints are
/// restored. A new checkpoint waits for the previous one to commit (back-pressure).
/// Restart = detection + rescheduling + checkpoint load + warm-up; the load reads the fastest copy
/// that survives the failure (a node-local copy does not survive the loss of its node), every node
/// reading concurrently.
/// Units: bytes, bytes/s, seconds.
/// Limitations: reads and writes at the same bandwidth; no incremental, compressed or in-memory
/// (peer) checkpoints; the data loader state and RNG state are left out of the size.
/// Source: bytes per parameter and storage throughput from costs-topology-failures.md section 4.2
/// (ZeRO: 12 bytes of fp32 master, m and v plus 2 of bf16 weights); two-phase snapshot/persist as in
/// CheckFreq (FAST'21) and PyTorch DCP async_save; restart split as in Meta's and ByteDance's
/// reliability papers (section 4.1).

#include <cstdint>
#include <string_view>

#include "models/spec/cluster_spec.hpp"
#include "models/spec/parallelism_spec.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::models {

enum class StorageKind { nfs, lustre, local_nvme };
enum class SecondTarget { none, nfs, lustre, local_nvme };
enum class CheckpointMode { sync, async };
/// What a job does when a node fails and no spare is free.
enum class NoSparePolicy { wait, shrink };

std::string_view to_string(StorageKind kind);

/// A shared file system's write (and read) bandwidth.
struct SharedStorageSpec {
  double aggregate_bytes_per_s = 0.0;  // what the storage system delivers to all clients together
  double per_node_bytes_per_s = 0.0;   // what one client node reaches

  friend bool operator==(const SharedStorageSpec&, const SharedStorageSpec&) = default;
};

struct LocalStorageSpec {
  double per_node_bytes_per_s = 0.0;

  friend bool operator==(const LocalStorageSpec&, const LocalStorageSpec&) = default;
};

/// The storage a job can checkpoint to; which one is used is CheckpointSpec::target.
struct StorageSpec {
  // 20 Gb/s to remote storage: the example of Gemini (SOSP'23) that takes 42 min for a 530B model.
  SharedStorageSpec nfs{.aggregate_bytes_per_s = 2.5e9, .per_node_bytes_per_s = 2.5e9};
  // DDN's sizing minimum of 1 GB/s per GPU, for 256 GPUs; 40 GB/s per node: SuperPOD H100 RA (GDS).
  SharedStorageSpec lustre{.aggregate_bytes_per_s = 256e9, .per_node_bytes_per_s = 40e9};
  // 8 NVMe drives in RAID 0 (DGX B200 cache) at 2 GB/s each (assumption: drive write rate).
  LocalStorageSpec local_nvme{.per_node_bytes_per_s = 16e9};

  friend bool operator==(const StorageSpec&, const StorageSpec&) = default;
};

struct CheckpointSpec {
  double interval_s = 1800.0;        // compute time between checkpoints (0: use interval_steps)
  std::int64_t interval_steps = 0;   // steps between checkpoints (0: use interval_s)
  double bytes_per_param = 14.0;     // bf16 weights + fp32 master, m, v
  CheckpointMode mode = CheckpointMode::sync;
  // Device-to-host copy per GPU while 8 GPUs copy at once (assumption: half of the 52 GB/s
  // nvbandwidth measured for one H100).
  double snapshot_bytes_per_s = 25e9;
  StorageKind target = StorageKind::lustre;
  SecondTarget second_target = SecondTarget::none;
  // Restart. Detection: Meta RSC health checks run every 5 min (NCCL's watchdog default is 10 min,
  // ByteRobust reaches 30 s). Rescheduling and warm-up (NCCL init, compilation, data loader):
  // assumptions that bring the fixed part to the 10 min of Daly's example.
  double detect_s = 300.0;
  double reschedule_s = 120.0;
  double warmup_s = 180.0;
  // Spares: OPT-175B kept 12-18 spare hosts for 124 (10-15 %); 5 % is an assumption.
  double spare_fraction = 0.05;
  NoSparePolicy no_spare = NoSparePolicy::wait;
  double repair_s = 24.0 * 3600.0;   // a failed node is back in the spare pool after (assumption)

  friend bool operator==(const CheckpointSpec&, const CheckpointSpec&) = default;
};

/// The job shape the checkpoint costs depend on.
struct JobShape {
  std::int64_t num_gpus = 0;
  std::int64_t gpus_per_node = 8;
  std::int64_t model_parallel_gpus = 1;  // tp x pp x cp: the GPUs of one model replica
  int zero = 1;

  std::int64_t nodes() const { return (num_gpus + gpus_per_node - 1) / gpus_per_node; }
};

JobShape job_shape(const ClusterSpec& cluster, const ParallelismSpec& parallelism);

struct CheckpointCosts {
  double bytes = 0.0;                 // one checkpoint
  std::int64_t writer_gpus = 0;
  std::int64_t writer_nodes = 0;
  double snapshot_s = 0.0;            // async only: the device-to-host copy
  double primary_write_s = 0.0;       // to the target
  double secondary_write_s = 0.0;     // to the second target; 0 without one
  double stall_s = 0.0;               // training blocked per checkpoint (before back-pressure)
  double commit_after_stall_s = 0.0;  // from the end of the stall until committed
  double load_s = 0.0;                // restore when the job keeps its nodes (software, fabric)
  double load_after_node_loss_s = 0.0;  // restore when nodes were lost with their local disks
  double restart_fixed_s = 0.0;       // detection + rescheduling + warm-up
};

/// Bytes of one checkpoint of this model.
double checkpoint_bytes(const TransformerSpec& model, const CheckpointSpec& spec);

/// Seconds to write (or read) `bytes` with `writer_nodes` nodes to one storage kind.
double transfer_seconds(const StorageSpec& storage, StorageKind kind, double bytes,
                        std::int64_t writer_nodes);

CheckpointCosts checkpoint_costs(const TransformerSpec& model, const JobShape& job,
                                 const CheckpointSpec& spec, const StorageSpec& storage);

/// The second target as a storage kind; call only when there is one.
StorageKind second_kind(SecondTarget target);

}  // namespace clustersim::models
