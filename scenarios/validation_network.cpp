#include "scenarios/validation_network.hpp"

#include <array>
#include <utility>

namespace clustersim::scenarios {
namespace {

using models::Fabric;

// First match wins: the named systems before the generic per-GPU phrases.
constexpr std::array<std::pair<std::string_view, SystemNetwork>, 12> systems{{
    // GB300 trays carry a ConnectX-8 at 800 Gb/s a GPU (mlcommons/training_results_v5.1
    // NVIDIA/systems/theia_ngpu512_ngc25.09_nemo.json: '4x ConnectX-8 IB XDR 800 Gb/s').
    {"GB300 NVL72, SEGMENT=16",
     {"GB300 NVL72 racks, 16 trays each (SEGMENT=16): 4 GPUs and 4 x 800 Gb/s XDR InfiniBand a tray", 4, 800.0,
      Fabric::infiniband, false, 4, 64}},
    // GB200 jobs placed 16 trays to a rack (Slurm block segments of 16 nodes), so that whole
    // NVLink domains of 64 GPUs tile the job; the named or the assumed placement.
    {"SEGMENT=16",
     {"GB200 NVL72 racks, 16 trays each (SEGMENT=16): 4 GPUs and 4 x 400 Gb/s NDR InfiniBand a tray", 4, 400.0,
      Fabric::infiniband, false, 4, 64}},
    {"16 trays a rack assumed",
     {"GB200 NVL72 racks, 16 trays each: 4 GPUs and 4 x 400 Gb/s NDR InfiniBand a tray", 4, 400.0,
      Fabric::infiniband, true, 4, 64}},
    {"Jean Zay", {"Jean Zay: 4 x 100 Gb/s Omni-Path per node", 4, 100.0, Fabric::omnipath}},
    {"Selene", {"Selene DGX A100: 8 x 200 Gb/s HDR InfiniBand per node", 8, 200.0, Fabric::infiniband}},
    {"Eos", {"Eos DGX H100: 8 x 400 Gb/s NDR InfiniBand per node", 8, 400.0, Fabric::infiniband}},
    {"Nebius, 8x NDR400 IB", {"Nebius H200: 8 x 400 Gb/s NDR InfiniBand per node", 8, 400.0, Fabric::infiniband}},
    // 16 RoCE ports a node in the submission's NCCL_IB_HCA; their rate is not stated.
    {"OCI BM.GPU.H100.8", {"OCI BM.GPU.H100.8: 16 RoCE NICs per node, 200 Gb/s each assumed", 16, 200.0, Fabric::roce, true}},
    // The submission's system description names RoCE v2 and 500 GB/s of PCIe to the NICs, not their count.
    {"OCI BM.GPU.B200.8", {"OCI BM.GPU.B200.8: RoCE v2, 8 x 400 Gb/s per node assumed (a DGX B200's NICs)", 8, 400.0, Fabric::roce, true}},
    {"RoCE 400Gb/s per GPU", {"Llama 3 fabric: RoCE, 400 Gb/s per GPU", 8, 400.0, Fabric::roce}},
    {"400Gb/s RDMA per GPU", {"Grand Teton: RoCE, 400 Gb/s per GPU", 8, 400.0, Fabric::roce}},
    {"400Gb/s CX-7 per GPU", {"ConnectX-7, 400 Gb/s per GPU", 8, 400.0, Fabric::infiniband}},
}};

}  // namespace

SystemNetwork system_network(std::string_view row_text, std::string_view gpu_preset) {
  for (const auto& [needle, network] : systems) {
    if (row_text.find(needle) != std::string_view::npos) return network;
  }
  if (gpu_preset == "gb200") {
    // Compute trays of 4 GPUs with 4 ConnectX-7 each (MLPerf Inference v6.1, Crusoe
    // GB200-NVL72 system description), 18 trays on one NVLink fabric (DGX SuperPOD GB200 RA).
    return {.description = "GB200 NVL72 default: racks of 18 trays, 4 GPUs and 4 x 400 Gb/s NDR InfiniBand a tray",
            .nics_per_node = 4,
            .nic_gbit_per_s = 400.0,
            .fabric = Fabric::infiniband,
            .assumed = true,
            .gpus_per_node = 4,
            .nvlink_domain_gpus = 72};
  }
  if (gpu_preset == "gb300") {
    return {.description = "GB300 NVL72 default: racks of 18 trays, 4 GPUs and 4 x 800 Gb/s XDR InfiniBand a tray",
            .nics_per_node = 4,
            .nic_gbit_per_s = 800.0,
            .fabric = Fabric::infiniband,
            .assumed = true,
            .gpus_per_node = 4,
            .nvlink_domain_gpus = 72};
  }
  if (gpu_preset == "b300") {
    // HGX B300: a ConnectX-8 SuperNIC at 800 Gb/s for each of the 8 GPUs (acecloud.ai's HGX B300 table).
    return {"HGX B300 default: 8 x 800 Gb/s ConnectX-8 per node", 8, 800.0, Fabric::infiniband, true};
  }
  if (gpu_preset == "b200") {
    // DGX B200: 8 ConnectX-7 ports at 400 Gb/s for the compute fabric (DGX B200 datasheet).
    return {"DGX B200 default: 8 x 400 Gb/s NDR InfiniBand per node", 8, 400.0, Fabric::infiniband, true};
  }
  if (gpu_preset == "a100-80gb") {
    return {"DGX A100 default: 8 x 200 Gb/s HDR InfiniBand per node", 8, 200.0, Fabric::infiniband, true};
  }
  return {"DGX H100 default: 8 x 400 Gb/s NDR InfiniBand per node", 8, 400.0, Fabric::infiniband, true};
}

}  // namespace clustersim::scenarios
