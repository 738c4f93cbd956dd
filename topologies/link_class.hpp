#pragma once
/// Link classes as data: line rate per direction (bytes/s), per-link latency (s), the fraction of
/// the line rate that NCCL-style transfers reach (efficiency), and where each number comes from.
/// Latency is the hardware part only (the far end's switch or port traversal plus the wire); the
/// software cost of a collective step (NCCL base and per-hop latencies) belongs to models/.
/// Limitations: one number per class; no protocol (LL/LL128/Simple) or message-size effects.
/// Source: shared reference measurements.md section 1 and 4, costs-topology-failures.md
/// sections 2.4 and 3.3-3.4; values marked "assumption" have no measured source there.

#include <array>
#include <cstdint>
#include <string_view>

namespace clustersim::topologies {

enum class LinkClass : std::uint8_t { nvlink, pcie, infiniband_ndr, infiniband_hdr, roce, omnipath, ethernet };

inline constexpr std::size_t link_class_count = 7;

struct LinkClassInfo {
  std::string_view name;
  double bytes_per_s = 0.0;  // line rate, per direction
  double latency_s = 0.0;    // one link, hardware only
  double efficiency = 1.0;   // achievable fraction of bytes_per_s for large transfers
  std::string_view source;
};

namespace detail {
inline constexpr std::array<LinkClassInfo, link_class_count> link_classes = {{
    {"nvlink", 450e9, 0.3e-6, 370.0 / 450.0,
     "NVLink 4 (H100/H200): 18 links x 25 GB/s = 450 GB/s per GPU per direction (measurements.md "
     "section 4); efficiency 370/450 from NCCL ring busbw, NVIDIA/nccl-tests#212; latency: "
     "assumption, half of NCCL's LL NVLink hop of 0.6 us (tuning.cc) since a GPU-GPU hop is two "
     "links here"},
    {"pcie", 64e9, 0.5e-6, 52.0 / 64.0,
     "PCIe Gen5 x16: 32 GT/s x 16 lanes x 128/130 = 63 GB/s per direction, rounded to 64; "
     "efficiency 52/64 from nvbandwidth host<->device on H100/H200 (measurements.md section 1.5); "
     "latency: assumption, half of NCCL's LL PCI hop of 1.0 us (tuning.cc)"},
    {"infiniband_ndr", 50e9, 0.3e-6, 47.0 / 50.0,
     "InfiniBand NDR 400 Gb/s = 50 GB/s per direction (ConnectX-7, Quantum-2); efficiency 47/50 "
     "from 46-48 GB/s per NIC through NCCL, NVIDIA/nccl-tests#290; latency: assumption, top of the "
     "100-330 ns Quantum-2 port-to-port range (costs-topology-failures.md section 3.4)"},
    {"infiniband_hdr", 25e9, 0.3e-6, 24.0 / 25.0,
     "InfiniBand HDR 200 Gb/s = 25 GB/s per direction (DGX A100); efficiency 24/25 from ~24 GB/s "
     "per NIC, NVIDIA/nccl-tests#160 and NVIDIA/nccl#812 (192 GB/s busbw over 8 NICs); latency: "
     "assumption, as NDR"},
    {"roce", 50e9, 0.5e-6, 0.90,
     "RoCEv2 over 400 GbE = 50 GB/s per direction (Llama 3 cluster, 400 Gb/s per GPU; "
     "measurements.md section 1.4); efficiency and latency: assumptions (no NCCL RoCE measurement "
     "in the references)"},
    {"omnipath", 12.5e9, 0.3e-6, 5.068 / 12.5,
     "Intel Omni-Path 100 Gb/s = 12.5 GB/s per direction, driven by NCCL 2.10.3's verbs transport "
     "without GPUDirect RDMA; efficiency: a 4 GB all-reduce over 4 nodes x 8 A100 on Jean Zay held "
     "5.068 GB/s busbw (median of the 128 rank readings after the first trial), and on every node "
     "both rings entered through one NIC and left through another, so one NIC carried it a "
     "direction (calibration/published/a100_4n32g_allreduce_jean-zay-omnipath.jsonl); latency: "
     "assumption, as InfiniBand"},
    {"ethernet", 12.5e9, 1.0e-6, 0.90,
     "Ethernet 100 GbE = 12.5 GB/s per direction, e.g. a front-end or storage network; rate, "
     "efficiency and latency: assumptions"},
}};
}  // namespace detail

constexpr const LinkClassInfo& link_class_info(LinkClass c) {
  return detail::link_classes[static_cast<std::size_t>(c)];
}
constexpr std::string_view to_string(LinkClass c) { return link_class_info(c).name; }

/// A link's class with optional overrides; a zero or negative field takes the class's value.
/// Overrides model variants of a class, e.g. NVLink 5 at 900 GB/s per GPU per direction.
struct LinkSpec {
  LinkClass link_class = LinkClass::infiniband_ndr;
  double bytes_per_s = 0.0;  // per direction; <= 0: the class's line rate
  double latency_s = -1.0;   // < 0: the class's latency

  double resolved_bytes_per_s() const {
    return bytes_per_s > 0.0 ? bytes_per_s : link_class_info(link_class).bytes_per_s;
  }
  double resolved_latency_s() const {
    return latency_s >= 0.0 ? latency_s : link_class_info(link_class).latency_s;
  }
  friend bool operator==(const LinkSpec&, const LinkSpec&) = default;
};

}  // namespace clustersim::topologies
