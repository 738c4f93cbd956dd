#pragma once
/// The scale-out network of the system a published run used, recognised from the words of its
/// row (gpu and notes columns), or the GPU's standard DGX network when the row names none.
/// Units: NIC line rate in Gbit/s per direction, as datasheets and papers write it.
/// Limitations: the NIC count and rate only; the analytic fidelity does not see topology or
/// oversubscription (the Llama 3 fabric's 1:7 above a 3,072-GPU pod is not represented).
/// Source: the notes of scenarios/validation/published_runs.csv; measurements.md section 1.4
/// (DGX A100: 8 x 200 Gb/s HDR; DGX H100: 8 x 400 Gb/s NDR; Llama 3: RoCE, 400 Gb/s per GPU).

#include <cstdint>
#include <string_view>

#include "models/spec/cluster_spec.hpp"

namespace clustersim::scenarios {

struct SystemNetwork {
  std::string_view description{};
  std::int64_t nics_per_node = 8;
  double nic_gbit_per_s = 400.0;
  models::Fabric fabric = models::Fabric::infiniband;
  bool assumed = false;  // not all of it is the row's: the GPU's DGX default, or a figure the source omits
  // The server: GPUs sharing its NICs, and GPUs on one NVLink fabric (0: the server's).
  std::int64_t gpus_per_node = 8;
  std::int64_t nvlink_domain_gpus = 0;
};

/// The network named in `row_text` (a row's gpu and notes columns), else the default for
/// `gpu_preset` ("a100-80gb": 8 x 200 Gb/s; "gb200": NVL72 racks of trays of 4 GPUs with 4 x 400
/// Gb/s; others: 8 x 400 Gb/s), marked as assumed.
SystemNetwork system_network(std::string_view row_text, std::string_view gpu_preset);

}  // namespace clustersim::scenarios
