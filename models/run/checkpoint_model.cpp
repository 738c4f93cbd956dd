#include "models/run/checkpoint_model.hpp"

#include <algorithm>
#include <limits>

#include "models/compute/flops.hpp"

namespace clustersim::models {

std::string_view to_string(StorageKind kind) {
  switch (kind) {
    case StorageKind::nfs: return "nfs";
    case StorageKind::lustre: return "lustre";
    case StorageKind::local_nvme: return "local_nvme";
  }
  return "?";
}

StorageKind second_kind(SecondTarget target) {
  switch (target) {
    case SecondTarget::nfs: return StorageKind::nfs;
    case SecondTarget::lustre: return StorageKind::lustre;
    case SecondTarget::local_nvme:
    case SecondTarget::none: break;
  }
  return StorageKind::local_nvme;
}

JobShape job_shape(const ClusterSpec& cluster, const ParallelismSpec& parallelism) {
  return {.num_gpus = cluster.num_gpus,
          .gpus_per_node = cluster.gpus_per_node,
          .model_parallel_gpus = parallelism.tp * parallelism.pp * parallelism.cp,
          .zero = parallelism.zero};
}

double checkpoint_bytes(const TransformerSpec& model, const CheckpointSpec& spec) {
  return spec.bytes_per_param * static_cast<double>(parameter_count(model));
}

double transfer_seconds(const StorageSpec& storage, StorageKind kind, double bytes,
                        std::int64_t writer_nodes) {
  const auto nodes = static_cast<double>(writer_nodes);
  double bytes_per_s = 0.0;
  switch (kind) {
    case StorageKind::nfs:
      bytes_per_s = std::min(storage.nfs.aggregate_bytes_per_s, nodes * storage.nfs.per_node_bytes_per_s);
      break;
    case StorageKind::lustre:
      bytes_per_s =
          std::min(storage.lustre.aggregate_bytes_per_s, nodes * storage.lustre.per_node_bytes_per_s);
      break;
    case StorageKind::local_nvme: bytes_per_s = nodes * storage.local_nvme.per_node_bytes_per_s; break;
  }
  return bytes_per_s > 0 ? bytes / bytes_per_s : std::numeric_limits<double>::infinity();
}

CheckpointCosts checkpoint_costs(const TransformerSpec& model, const JobShape& job,
                                 const CheckpointSpec& spec, const StorageSpec& storage) {
  CheckpointCosts c;
  c.bytes = checkpoint_bytes(model, spec);
  // With a sharded optimizer every rank holds a distinct part of the state and writes it; without,
  // the data-parallel replicas are identical and one replica writes.
  c.writer_gpus = job.zero >= 1 ? job.num_gpus : std::min(job.num_gpus, job.model_parallel_gpus);
  c.writer_nodes = std::max<std::int64_t>(1, (c.writer_gpus + job.gpus_per_node - 1) / job.gpus_per_node);
  const bool has_second = spec.second_target != SecondTarget::none;
  c.primary_write_s = transfer_seconds(storage, spec.target, c.bytes, c.writer_nodes);
  c.secondary_write_s =
      has_second ? transfer_seconds(storage, second_kind(spec.second_target), c.bytes, c.writer_nodes) : 0.0;
  if (spec.mode == CheckpointMode::async) {
    c.snapshot_s = c.bytes / static_cast<double>(c.writer_gpus) / spec.snapshot_bytes_per_s;
    c.stall_s = c.snapshot_s;
    c.commit_after_stall_s = c.primary_write_s + c.secondary_write_s;
  } else {
    c.stall_s = c.primary_write_s;
    c.commit_after_stall_s = c.secondary_write_s;
  }

  // Restores read from every node at once.
  const std::int64_t readers = job.nodes();
  const double primary_read = transfer_seconds(storage, spec.target, c.bytes, readers);
  const double secondary_read =
      has_second ? transfer_seconds(storage, second_kind(spec.second_target), c.bytes, readers)
                 : std::numeric_limits<double>::infinity();
  // A local copy is read back by the nodes that wrote it.
  const double primary_local_read = spec.target == StorageKind::local_nvme ? c.primary_write_s : primary_read;
  const double secondary_local_read =
      spec.second_target == SecondTarget::local_nvme ? c.secondary_write_s : secondary_read;
  c.load_s = std::min(primary_local_read, secondary_local_read);
  const double surviving_primary =
      spec.target == StorageKind::local_nvme ? std::numeric_limits<double>::infinity() : primary_read;
  const double surviving_secondary =
      spec.second_target == SecondTarget::local_nvme ? std::numeric_limits<double>::infinity() : secondary_read;
  c.load_after_node_loss_s = std::min(surviving_primary, surviving_secondary);
  c.restart_fixed_s = spec.detect_s + spec.reschedule_s + spec.warmup_s;
  return c;
}

}  // namespace clustersim::models
