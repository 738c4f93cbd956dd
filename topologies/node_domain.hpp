#pragma once
/// One server's NVLink domain: N GPUs on one logical NVSwitch (each GPU <-> switch link at the
/// GPU's NVLink bandwidth per direction), plus scale-out NICs, each GPU attached to its rail's
/// NIC over PCIe. With fewer NICs than GPUs, consecutive GPUs share a NIC (GPU i -> NIC
/// i * nics / gpus). Units: bytes/s per direction, seconds.
/// Limitations: the NVSwitch is one non-blocking crossbar (the real 4 NVSwitch chips of an HGX
/// board, or 18 NVLink switch trays of an NVL72, are not modelled); no PCIe switch or CPU; NVLink
/// SHARP (NVLS) in-switch reduction is a collective-model matter, not a topology one.
/// Source: HGX H100 = 8 GPUs + 8 ConnectX-7 NDR NICs; GB200 NVL72 = 72 GPUs in one NVLink domain
/// (measurements.md section 4; costs-topology-failures.md section 2.1).

#include <cstdint>

#include "topologies/link_class.hpp"
#include "topologies/network.hpp"

namespace clustersim::topologies {

struct NodeSpec {
  std::int64_t gpus_per_node = 8;  // NVLink domain size: 8 (HGX), 72 (GB200 NVL72)
  std::int64_t nics_per_node = 8;  // scale-out NICs (rails); 0 < nics <= gpus in a multi-node network
  LinkSpec nvlink = {.link_class = LinkClass::nvlink};       // GPU <-> NVSwitch, per GPU
  LinkSpec pcie = {.link_class = LinkClass::pcie};           // GPU <-> its NIC
  LinkSpec nic = {.link_class = LinkClass::infiniband_ndr};  // NIC <-> first switch or router

  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};

/// Node ids of one server: GPUs, then the NVSwitch (if any), then NICs, each contiguous.
struct ServerIds {
  NodeId first_gpu = 0;
  NodeId nvswitch = 0;  // == first_gpu when there is no NVSwitch (one GPU)
  NodeId first_nic = 0;
};

/// Adds one server; throws std::invalid_argument for an impossible spec.
ServerIds add_server(Network& network, const NodeSpec& spec, std::int32_t server, std::int32_t group = -1);

/// Checks a node spec for builders that need NICs; throws std::invalid_argument naming `who`.
void validate_node(const NodeSpec& spec, const char* who, bool needs_nics);

/// A network of one server (NICs present but unconnected).
Network build_node(const NodeSpec& spec = {});

/// Scale-out bandwidth one server can inject, per direction: each NIC carries at most its own
/// rate and what its GPUs' PCIe links deliver.
double server_injection_bytes_per_s(const NodeSpec& spec);

/// Closed form: half the GPUs send across the NVSwitch to the other half, (N/2) x NVLink rate.
double closed_form_bisection_bytes_per_s(const NodeSpec& spec);

}  // namespace clustersim::topologies
