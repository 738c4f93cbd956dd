#pragma once
/// A calibration profile: the step model's compute and communication constants for one GPU type,
/// each with its source and, where fitted, a 95 % interval; the fitted collective curves; and how
/// the profile was made (command, inputs). Stored as JSON:
///   { "format": "clustersim calibration profile", "version": 1, "gpu": "h100-sxm",
///     "compute": { "<ComputeProfile field>": {"value": x, "source": "...", "ci95": [lo, hi]}, ... },
///     "comm":    { "<CommProfile field>":    {"value": x, "source": "...", "ci95": [lo, hi]}, ... },
///     "overlap":  { "sms_held": {...}, ... }   (optional: calibration/profile_overlap.hpp),
///     "collectives": [ {"op", "ranks", "ranks_per_node", "source", "segments": [...]} ],
///     "network": {"fabric": "infiniband", "nic_gbit_per_s": 400, "nics_per_node": 8, "source": "..."},
///     "metadata": { "created_by", "arguments": [...], "inputs": [{"path", "kind", "fnv1a64", "records"}],
///                   "note" (optional) } }
/// "ci95" is optional; so is "network" (the scale-out network the constants were measured on,
/// which models/comm/comm_on_cluster.hpp scales from; without it, the scenario's own). Units: those in the field names (s, fractions, SM counts, elements; bytes,
/// us, GB/s in the segments). Errors name the file and the JSON pointer (ScenarioError).
/// Limitations: CommProfile has a single source string; the per-field sources are kept in
/// comm_sources and joined into it on load.
/// Source: format defined here; written by `clustersim calibrate` (tools/cmd_calibrate.cpp).

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "calibration/collective_fit.hpp"
#include "models/comm/collectives.hpp"
#include "models/compute/compute_profile.hpp"

namespace clustersim::calibration {

struct ProfileInput {
  std::string path{};     // as given on the command line
  std::string kind{};     // "nccl-tests log" or "json lines"
  std::string fnv1a64{};  // of the file's bytes (sim::fnv1a64), 16 hex digits
  int records = 0;      // table rows or JSON records read
};

struct ProfileMetadata {
  std::string created_by = "clustersim calibrate";
  std::vector<std::string> arguments{};  // the command's arguments, without --out and --json
  std::vector<ProfileInput> inputs{};
  std::string note{};  // where and when the inputs were measured (calibrate --note); may be empty
};

struct CalibrationProfile {
  std::string gpu{};  // GPU preset name
  models::ComputeProfile compute{};
  models::CommProfile comm{};
  std::map<std::string, std::string, std::less<>> comm_sources{};  // by CommProfile field name
  /// 95 % intervals by JSON pointer of the constant, e.g. "/compute/k_half", "/comm/nvlink_efficiency".
  std::map<std::string, std::pair<double, double>, std::less<>> ci95{};
  std::vector<CollectiveModel> collectives{};
  std::optional<models::MeasuredNetwork> network{};
  std::string network_source{};  // where the network's fabric, NIC rate and count are stated
  ProfileMetadata metadata{};
  /// The "overlap" section is written (and was read) when true; compute.overlap holds it, or the
  /// built-in constants of the GPU when false.
  bool overlap_section = false;
};

/// The profile as pretty JSON with a final newline; parse_profile(profile_to_json(p)) == p.
std::string profile_to_json(const CalibrationProfile& profile);

/// Parses and checks a profile; `source` names it in errors ("<source>: <pointer>: <rule>").
CalibrationProfile parse_profile(std::string_view text, const std::string& source);

/// Reads a profile file; errors name the path as given.
CalibrationProfile load_profile(const std::filesystem::path& path);

/// FNV-1a 64-bit hash of `bytes` as 16 lower-case hex digits: a cheap fingerprint of an input.
std::string fnv1a64(std::string_view bytes);

}  // namespace clustersim::calibration
