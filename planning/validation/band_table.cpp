#include "planning/validation/band_table.hpp"

#include <algorithm>
#include <optional>
#include <thread>
#include <utility>
#include <variant>

#include <fmt/format.h>

#include "planning/parallel_for.hpp"
#include "planning/validation/validation_report.hpp"

namespace clustersim::planning {

BandTable::BandTable(const ValidationCsv& csv, unsigned jobs) : source_(csv.name), jobs_(jobs) {
  for (const auto& row : scenarios::read_validation_rows(csv.text, csv.name)) {
    scenarios::MappedRow mapped = scenarios::map_validation_row(row, csv.name);
    auto* run = std::get_if<scenarios::ValidationCase>(&mapped);
    if (run == nullptr) continue;
    const auto& s = run->scenario;
    rows_.push_back({.family = validation_family(s.cluster.gpu.name, s.parallelism, s.training, s.model.experts > 0), .run = std::move(*run)});
  }
}

const FamilyBand& BandTable::measured(const ValidationFamily& family) const {
  if (const auto it = measured_.find(family); it != measured_.end()) return it->second;
  FamilyBand band{.family = family_label(family)};
  std::vector<const Row*> rows;
  for (const Row& row : rows_) {
    if (row.family == family) rows.push_back(&row);
  }
  // measured and predicted step time per run; nullopt where the step model rejects the row.
  std::vector<std::optional<std::pair<double, double>>> times(rows.size());
  parallel_for(rows.size(), jobs_, [&](std::size_t i) {
    const auto result = validate_case(rows[i]->run);
    if (const auto* validated = std::get_if<ValidationResult>(&result)) {
      times[i] = std::pair{validated->run.measured.step_time_s, validated->predicted_step_time_s};
    }
  });
  RunSpread spread;
  for (const auto& t : times) {
    if (t) spread.add(t->first, t->second);
  }
  band.lo = spread.lo;
  band.hi = spread.hi;
  band.runs = spread.runs;
  const bool mapped = !rows.empty();
  if (band.runs == 0) {
    band.unvalidated = mapped ? "its published runs are all rejected by the step model" : missing_dimension(family);
  }
  return measured_.emplace(family, std::move(band)).first->second;
}

std::string BandTable::missing_dimension(const ValidationFamily& f) const {
  const auto any = [&](auto&& covers) { return std::any_of(rows_.begin(), rows_.end(), covers); };
  const std::string on = generation_text(f.generation);
  const auto same_generation = [&](const Row& r) { return r.family.generation == f.generation; };
  if (!any(same_generation)) return fmt::format("no published run on {}", on);
  if (f.moe && !any([&](const Row& r) { return same_generation(r) && r.family.moe; }))
    return fmt::format("no published run of a mixture-of-experts model on {}", on);
  // Past the generation, the runs that count are those of the same kind of model.
  const std::string_view of = f.moe ? " of a mixture-of-experts model" : "";
  const auto same_kind = [&](const Row& r) { return same_generation(r) && r.family.moe == f.moe; };
  const std::string_view stage = f.zero3 ? "ZeRO-3" : "ZeRO 0-2";
  const auto same_stage = [&](const Row& r) { return same_kind(r) && r.family.zero3 == f.zero3; };
  if (!any(same_stage)) return fmt::format("no published run{} with {} on {}", of, stage, on);
  const auto same_precision = [&](const Row& r) { return same_stage(r) && r.family.precision == f.precision; };
  if (!any(same_precision))
    return fmt::format("no published run{} with {} in {} on {}", of, stage, models::precision_name(f.precision), on);
  return fmt::format("no published run{} with {} in {} on {}", of, sharding_text(f), models::precision_name(f.precision), on);
}

FamilyBand BandTable::stand_in(const ValidationFamily& family) const {
  const FamilyBand& own = measured(family);
  FamilyBand band{.family = own.family, .runs = 0, .unvalidated = own.unvalidated};
  // ZeRO-3 frameworks gather and reduce each in their own way and miss in their own way (DeepSpeed
  // ZeRO-3 as run in 2021 by up to -66 %): another framework's runs do not speak for this one.
  // Its own generation's families first: a GPU's compute is what the model misses most.
  const auto span = [&](bool same_generation, bool speaks_for_it_only, bool moe_only = false) {
    std::vector<std::string> labels;
    for (const Row& row : rows_) {
      const ValidationFamily& other = row.family;
      if (same_generation && other.generation != family.generation) continue;
      if (moe_only && !other.moe) continue;
      if (speaks_for_it_only && other.zero3 && !(family.zero3 && other.framework == family.framework)) continue;
      const FamilyBand& b = measured(other);
      if (b.runs == 0 || std::find(labels.begin(), labels.end(), b.family) != labels.end()) continue;
      band.lo = std::min(band.lo, b.lo);
      band.hi = std::max(band.hi, b.hi);
      labels.push_back(b.family);
    }
    return labels;
  };
  const std::string kinds = family.zero3 ? fmt::format("ZeRO 0-2 and {}", sharding_text(family)) : "ZeRO 0-2";
  std::vector<std::string> labels = span(true, true);
  std::string whose = fmt::format("the validated {} families on {}", kinds, family.generation);
  if (labels.empty()) {
    labels = span(false, true);
    whose = fmt::format("the validated {} families of every GPU", kinds);
  }
  if (labels.empty()) {
    labels = span(false, false);
    whose = "every validated family";
  }
  if (labels.empty()) {
    band.stand_in = "no family is validated: the prediction alone";
    return band;
  }
  // A mixture of experts misses in its own ways too (the dispatch, the grouped GEMMs, the router),
  // whatever shards it: every validated MoE family widens the band of one that has no runs.
  if (family.moe) {
    std::vector<std::string> moe = span(false, false, true);
    std::erase_if(moe, [&](const std::string& l) { return std::find(labels.begin(), labels.end(), l) != labels.end(); });
    if (!moe.empty()) {
      whose += " and the validated mixture-of-experts families of every GPU";
      labels.insert(labels.end(), moe.begin(), moe.end());
    }
  }
  std::string list;
  for (const auto& label : labels) list += (list.empty() ? "" : ", ") + label;
  band.stand_in = fmt::format("the span of {} ({})", whose, list);
  return band;
}

const FamilyBand& BandTable::band(const ValidationFamily& family) const {
  const std::lock_guard lock(mutex_);
  if (const auto it = bands_.find(family); it != bands_.end()) return it->second;
  const FamilyBand& own = measured(family);
  FamilyBand band = own.runs > 0 ? own : stand_in(family);
  return bands_.emplace(family, std::move(band)).first->second;
}

const BandTable& built_in_band_table() {
  static const BandTable table(load_validation_csv(""), std::max(1u, std::thread::hardware_concurrency()));
  return table;
}

}  // namespace clustersim::planning
