#include "models/step/collective_record.hpp"

#include <algorithm>

#include "models/comm/flow_collectives.hpp"
#include "models/comm/nccl_channel.hpp"

namespace clustersim::models {

CollectiveRecord make_collective(CollectiveOp op, double bytes, const CommGroup& group, CommScope scope,
                                 const ClusterSpec& cluster, const CommProfile& profile) {
  return {.op = op,
          .bytes = bytes,
          .group = group,
          .scope = scope,
          .seconds = collective_time_s(op, bytes, group, cluster, profile)};
}

namespace {
/// Bytes one rank of the record's group sends.
double sent_per_rank(const CollectiveRecord& record) {
  if (record.op == CollectiveOp::send_recv) return record.bytes;
  return bus_factor(record.op, record.group.ranks) * record.bytes;
}
}  // namespace

CollectiveRecord held_to_ctas(CollectiveRecord record, int ctas, const NcclChannelRates& rates,
                              const ClusterSpec& cluster, const CommProfile& profile) {
  if (ctas <= 0 || record.group.ranks <= 1) return record;
  const double cap = nccl_cta_limited_bytes_per_s(record.op, ctas, rates);
  if (!(cap > 0.0)) return record;
  record.send_cap_bytes_per_s = cap;
  const double latency_s = collective_protocol(record.op, record.bytes, record.group, cluster, profile).latency_s +
                           record.host_s + record.staging_s;
  record.seconds = std::max(record.seconds, latency_s + sent_per_rank(record) / record.send_cap_bytes_per_s);
  return record;
}

Traffic collective_traffic(const CollectiveRecord& record, const ClusterSpec& cluster, const CommProfile& profile) {
  if (record.group.ranks <= 1) return Traffic{};
  const Protocol protocol = collective_protocol(record.op, record.bytes, record.group, cluster, profile);
  const double latency = protocol.latency_s + record.host_s + record.staging_s;
  const double wire = record.bytes / protocol.bandwidth_fraction;  // a slower protocol holds the links longer
  const double cap = record.send_cap_bytes_per_s;
  if (record.op == CollectiveOp::all_reduce)
    return Traffic{.all_reduce_bytes = wire, .latency_s = latency, .send_cap_bytes_per_s = cap};
  if (record.op == CollectiveOp::all_to_all)
    return Traffic{.all_to_all_bytes = wire, .latency_s = latency, .send_cap_bytes_per_s = cap};
  const double factor = record.op == CollectiveOp::send_recv ? 1.0 : bus_factor(record.op, record.group.ranks);
  return Traffic{.ring_bytes = factor * wire, .latency_s = latency, .send_cap_bytes_per_s = cap};
}

double comm_seconds(std::span<const CommPart> parts) {
  double seconds = 0.0;
  for (const CommPart& part : parts) {
    double each = part.first->seconds;
    if (part.second != nullptr) each += part.second->seconds;
    seconds += each * part.repeat * part.scale;
  }
  return seconds;
}

double comm_bus_bytes(std::span<const CommPart> parts) {
  const auto bus_bytes = [](const CollectiveRecord* r) {
    return r == nullptr || r->group.ranks <= 1 ? 0.0 : bus_factor(r->op, r->group.ranks) * r->bytes;
  };
  double bytes = 0.0;
  for (const CommPart& part : parts) bytes += (bus_bytes(part.first) + bus_bytes(part.second)) * part.repeat * part.scale;
  return bytes;
}

Traffic comm_traffic(std::span<const CommPart> parts, const ClusterSpec& cluster, const CommProfile& profile) {
  Traffic sum;
  for (const CommPart& part : parts) {
    Traffic each = collective_traffic(*part.first, cluster, profile);
    if (part.second != nullptr) each += collective_traffic(*part.second, cluster, profile);
    sum += each.scaled(part.repeat).scaled(part.scale);
  }
  return sum;
}

}  // namespace clustersim::models
