#pragma once
// The layouts the torchtitan and DeepSpeed export tests hand over: the twelve of
// scenarios/seed/twelve-layouts.json and the top 20 rows of a search on it (layouts_under_test.hpp),
// and a check that an imported scenario holds the layout it was exported from.

#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "planning/search/layout_search.hpp"
#include "tests/handoff/layouts_under_test.hpp"

namespace clustersim::handoff::testing {

struct NamedLayout {
  std::string name;
  planning::Layout layout;
};

using layouts_under_test::twelve_layouts_scenario;

inline const std::vector<NamedLayout>& twelve_layouts() {
  static const std::vector<NamedLayout> layouts = [] {
    std::vector<NamedLayout> out;
    for (const auto& named : layouts_under_test::twelve_layouts()) out.push_back({named.name, named.layout});
    return out;
  }();
  return layouts;
}

inline const std::vector<NamedLayout>& search_top_20() {
  static const std::vector<NamedLayout> layouts = [] {
    std::vector<NamedLayout> out;
    for (const planning::Layout& layout : layouts_under_test::search_top(twelve_layouts_scenario(), 20))
      out.push_back({"search row " + std::to_string(out.size() + 1), layout});
    return out;
  }();
  return layouts;
}

/// The layout fields a framework's configuration carries, equal between `expected` and `got`.
inline void check_same_layout(const planning::Layout& expected, const scenarios::Scenario& got) {
  const auto& p = expected.parallelism;
  const auto& t = expected.training;
  CHECK(got.parallelism.tp == p.tp);
  CHECK(got.parallelism.pp == p.pp);
  CHECK(got.parallelism.dp == p.dp);
  CHECK(got.parallelism.cp == p.cp);
  CHECK(got.parallelism.vp == p.vp);
  CHECK(got.parallelism.sp == p.sp);
  CHECK(got.parallelism.zero == p.zero);
  CHECK(got.parallelism.shard_group == p.shard_group);
  CHECK(got.parallelism.tp_comm_overlap == p.tp_comm_overlap);
  CHECK(got.parallelism.layers_per_chunk == p.layers_per_chunk);
  CHECK(got.training.seq_len == t.seq_len);
  CHECK(got.training.micro_batch == t.micro_batch);
  CHECK(got.training.global_batch == t.global_batch);
  CHECK(got.training.precision == t.precision);
  CHECK(got.training.recompute == t.recompute);
  CHECK(got.training.schedule == t.schedule);
  if (t.precision == models::Precision::fp8) CHECK(got.training.fp8_recipe == t.fp8_recipe);
}

}  // namespace clustersim::handoff::testing
