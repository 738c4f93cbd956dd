#include "calibration/raw_inputs.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "calibration/input_error.hpp"
#include "calibration/input_file.hpp"
#include "calibration/nccl_tests_log.hpp"

namespace clustersim::calibration {

void Provenance::add(const std::string& file, int line) {
  auto& [lo, hi] = lines_.try_emplace(file, line, line).first->second;
  lo = std::min(lo, line);
  hi = std::max(hi, line);
}

std::string Provenance::text() const {
  std::string out;
  for (const auto& [file, range] : lines_) {
    if (!out.empty()) out += ", ";
    out += range.first == range.second ? fmt::format("{} line {}", file, range.first)
                                       : fmt::format("{} lines {}-{}", file, range.first, range.second);
  }
  return out;
}

RawInputs read_raw_inputs(std::span<const std::string> paths, std::optional<models::CollectiveOp> collective) {
  if (paths.empty()) throw std::invalid_argument("no raw inputs given");
  RawInputs in;
  for (const auto& path : paths) {
    const std::string text = read_input_file(path);
    ProfileInput record{.path = path, .kind = "", .fnv1a64 = fnv1a64(text), .records = 0};
    if (looks_like_nccl_tests_log(text)) {
      const NcclTestsLog log = parse_nccl_tests_log(text, path, collective);
      record.kind = "nccl-tests log";
      record.records = static_cast<int>(log.rows.size());
      if (!log.device_name.empty()) in.device_names.insert(log.device_name);
      if (log.ranks < 1) throw InputError(path, 0, "a collective needs at least 1 rank");
      if (log.ranks == 1) {
        CollectiveGroup single{.op = log.op, .ranks = 1, .ranks_per_node = 1, .source = path, .points = {}};
        for (const auto& row : log.rows) single.points.push_back({row.size_bytes, row.out_of_place.time_us, row.line});
        in.single_rank.push_back(std::move(single));
        in.files.push_back(std::move(record));
        continue;
      }
      auto& group = in.groups[{path, log.op, log.ranks, log.gpus_per_node}];
      group.op = log.op;
      group.ranks = log.ranks;
      group.ranks_per_node = log.gpus_per_node;
      group.source = path;
      for (const auto& row : log.rows) group.points.push_back({row.size_bytes, row.best_time_us(), row.line});
    } else {
      const BenchRecords records = parse_bench_records(text, path);
      record.kind = "json lines";
      record.records = static_cast<int>(records.devices.size() + records.gemm.size() + records.membw.size() +
                                        records.attention.size() + records.collectives.size() +
                                        records.overlap.size() + records.clocks.size());
      if (record.records == 0) throw InputError(path, 0, "no records (neither an nccl-tests log nor JSON lines)");
      for (const auto& d : records.devices) {
        in.device_names.insert(d.name);
        if (d.sm_count > 0) in.sm_counts.emplace_back(fmt::format("{} line {}", path, d.line), d.sm_count);
      }
      for (const auto& s : records.gemm) {
        in.gemm.push_back(s);
        in.gemm_from.add(path, s.line);
      }
      for (const auto& s : records.membw) {
        in.membw.push_back(s);
        in.membw_from.add(path, s.line);
      }
      for (const auto& s : records.attention) {
        in.attention.push_back(s);
        in.attention_from.add(path, s.line);
      }
      for (const auto& s : records.overlap) in.overlap.push_back({.sample = s, .file = path});
      for (const auto& s : records.clocks) {
        in.clocks.push_back(s);
        in.clocks_from.add(path, s.line);
      }
      for (const auto& s : records.collectives) {
        auto& group = in.groups[{path, s.op, s.ranks, s.ranks_per_node}];
        group.op = s.op;
        group.ranks = s.ranks;
        group.ranks_per_node = s.ranks_per_node;
        group.source = path;
        group.points.push_back({s.bytes, s.time_us, s.line});
      }
    }
    in.files.push_back(std::move(record));
  }
  // Repeated sizes within one input (nccl_bench --json prints out-of-place and in-place runs):
  // the fastest counts, as for the two placements of an nccl-tests row.
  for (auto& [key, group] : in.groups) {
    auto& points = group.points;
    std::stable_sort(points.begin(), points.end(), [](const auto& a, const auto& b) {
      return a.bytes != b.bytes ? a.bytes < b.bytes : a.time_us < b.time_us;
    });
    points.erase(std::unique(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.bytes == b.bytes; }),
                 points.end());
  }
  return in;
}

}  // namespace clustersim::calibration
