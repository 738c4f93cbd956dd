#pragma once
/// The raw inputs of one calibration, read and grouped: collective timings per input file and rank
/// layout (nccl-tests logs and JSON-lines "nccl" records), GEMM, copy-bandwidth and attention
/// samples, overlap measurements, clocks under sustained load, device names and SM counts, and a fingerprint of every file for the profile's metadata.
/// A file is an nccl-tests log when it has a "# nThread" header line, else JSON lines.
/// A log of one rank (one GPU) measures no bus: it is kept apart (`single_rank`), with its
/// out-of-place times only, since NCCL returns from an in-place call on one rank without moving
/// data.
/// Repeated sizes within one file keep their fastest time (interference only slows a run down),
/// as the faster placement of an nccl-tests row does.
/// Units: those of the inputs (bytes, us, TF/s, GB/s).
/// Limitations: one collective group per file and layout: two sources of one layout stay two fits.
/// Source: formats of nccl_tests_log.hpp and bench_records.hpp.

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "calibration/bench_records.hpp"
#include "calibration/collective_fit.hpp"
#include "calibration/overlap_fit.hpp"
#include "calibration/profile.hpp"

namespace clustersim::calibration {

/// Where a set of samples came from: "file lines a-b" per file.
class Provenance {
 public:
  void add(const std::string& file, int line);
  std::string text() const;

 private:
  std::map<std::string, std::pair<int, int>> lines_{};
};

struct RawInputs {
  std::map<std::tuple<std::string, models::CollectiveOp, std::int64_t, std::int64_t>, CollectiveGroup> groups{};
  std::vector<CollectiveGroup> single_rank{};  // one-rank nccl-tests logs, out-of-place times
  std::vector<GemmSample> gemm{};
  Provenance gemm_from{};
  std::vector<MembwSample> membw{};
  Provenance membw_from{};
  std::vector<AttentionSample> attention{};
  Provenance attention_from{};
  std::vector<OverlapInput> overlap{};
  std::vector<ClockSample> clocks{};
  Provenance clocks_from{};
  std::vector<std::pair<std::string, int>> sm_counts{};  // ("file line n", count)
  std::set<std::string> device_names{};
  std::vector<ProfileInput> files{};
};

/// Reads every file (`collective` names the collective of nccl-tests logs that need it). Throws
/// InputError "<file>:<line>: <rule>" for malformed input, std::invalid_argument for no files.
RawInputs read_raw_inputs(std::span<const std::string> paths, std::optional<models::CollectiveOp> collective);

}  // namespace clustersim::calibration
