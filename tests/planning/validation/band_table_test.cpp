// The bands of validation families (planning/validation/band_table.hpp) and of predictions
// (prediction_bands.hpp), from small CSVs whose measured step times are chosen multiples of the
// step model's predictions, so that every band is known by hand.

#include "planning/validation/band_table.hpp"

#include <doctest/doctest.h>

#include "planning/search/sweep_rows.hpp"
#include "planning/validation/prediction_bands.hpp"
#include "scenarios/scenario_io.hpp"
#include "tests/planning/validation/validation_fixture.hpp"

namespace clustersim::planning {
namespace {

using test::fixture_csv;
using test::FixtureRow;

ValidationFamily layout_family(std::string_view gpu, int zero, models::Precision precision = models::Precision::bf16) {
  models::ParallelismSpec p;
  p.zero = zero;
  models::TrainingSpec t;
  t.precision = precision;
  return validation_family(gpu, p, t, false);
}

Layout layout_with_zero(int zero) {
  Layout l;
  l.parallelism.zero = zero;
  return l;
}

TEST_CASE("validation family: GPU generation, precision and sharding (with the ZeRO-3 framework)") {
  CHECK(family_label(layout_family("a100-80gb", 1)) == "A100 bf16 ZeRO 0-2");
  CHECK(family_label(layout_family("h200-sxm", 2)) == "Hopper bf16 ZeRO 0-2");
  CHECK(layout_family("h100-sxm", 0) == layout_family("h200-sxm", 2));  // one generation, ZeRO 0-2 alike
  CHECK(family_label(layout_family("b200", 3, models::Precision::fp8)) == "Blackwell fp8 ZeRO-3 fsdp2");
  models::ParallelismSpec p;
  p.zero = 3;
  p.sharding = models::ShardingFramework::deepspeed_zero3_2021;
  CHECK(family_label(validation_family("a100-80gb", p, {}, false)) == "A100 bf16 ZeRO-3 deepspeed_zero3_2021");
  // The framework is no dimension below ZeRO-3: it gathers nothing per pass.
  p.zero = 1;
  CHECK(validation_family("a100-80gb", p, {}, false) == layout_family("a100-80gb", 1));
}

TEST_CASE("band table: a family's band is the least and greatest measured / predicted, the prediction included") {
  // Two Hopper bf16 ZeRO 0-2 runs measured 1.2 and 0.9 x their predictions: lo = 0.9 - 1 = -10 %,
  // hi = 1.2 - 1 = +20 %. A third family's single run, 1.5 x: lo = min(0, 0.5) = 0, hi = +50 %.
  const ValidationCsv csv{.name = "fixture.csv",
                          .text = fixture_csv({{.id = "mcore24-h100-weak-1.7B", .measured_over_predicted = 1.2},
                                               {.id = "mcore24-h100-weak-7.1B", .measured_over_predicted = 0.9},
                                               {.id = "torchtitan-h200-8b-fsdp-32", .measured_over_predicted = 1.5}})};
  const BandTable table(csv, 2);
  CHECK(table.source() == "fixture.csv");
  const FamilyBand& hopper = table.band(layout_family("h100-sxm", 1));
  CHECK(hopper.family == "Hopper bf16 ZeRO 0-2");
  CHECK(hopper.runs == 2);
  CHECK(hopper.lo == doctest::Approx(-0.1));
  CHECK(hopper.hi == doctest::Approx(0.2));
  CHECK(hopper.unvalidated.empty());
  const FamilyBand& fsdp = table.band(layout_family("h200-sxm", 3, models::Precision::fp8));
  CHECK(fsdp.runs == 1);
  CHECK(fsdp.lo == 0.0);
  CHECK(fsdp.hi == doctest::Approx(0.5));

  // A prediction of 10 s carries 10 x [0.9, 1.2] = [9, 12] s; without a named profile no widening.
  const scenarios::Scenario scenario = scenarios::default_scenario();
  const PredictionBands bands(table, scenario);
  CHECK(bands.widening().profile.empty());
  const StepBand band = bands.band(10.0, layout_with_zero(1));
  CHECK(band.fast_s == doctest::Approx(9.0));
  CHECK(band.slow_s == doctest::Approx(12.0));
  CHECK(band.family == "Hopper bf16 ZeRO 0-2");
  CHECK(band.runs == 2);
  CHECK(bands.slow_factor(layout_with_zero(1)) == doctest::Approx(1.2));

  // `validate` reports the same spreads per validation family.
  const ValidationReport report = run_validation(csv.text, csv.name);
  REQUIRE(report.by_validation_family.size() == 2);
  CHECK(report.by_validation_family[0].first == "Hopper bf16 ZeRO 0-2");
  CHECK(report.by_validation_family[0].second.lo == doctest::Approx(hopper.lo));
  CHECK(report.by_validation_family[0].second.hi == doctest::Approx(hopper.hi));
}

TEST_CASE("band table: a family no run covers is unvalidated, says which dimension, and takes the widest band that can speak for it") {
  // Runs on Hopper only (ZeRO 0-2 at +20 % and -10 %; ZeRO-3 FSDP2 in fp8 at +50 %) and one B200 ZeRO-1 run at +30 %.
  const ValidationCsv csv{
      .name = "fixture.csv",
      .text = fixture_csv({{.id = "mcore24-h100-weak-1.7B", .measured_over_predicted = 1.2},
                           {.id = "mcore24-h100-weak-7.1B", .measured_over_predicted = 0.9},
                           {.id = "torchtitan-h200-8b-fsdp-32", .measured_over_predicted = 1.5},
                           {.id = "mcore24-h100-weak-1.7B",
                            .measured_over_predicted = 1.3,
                            .changes = {{"gpu", "B200"}},
                            .new_id = "b200-zero1"}})};
  const BandTable table(csv, 1);
  // ZeRO-3 on B200: the generation has runs, ZeRO-3 on it none. Its band is that of the B200
  // ZeRO 0-2 family (its generation's only family that can speak for it): [0, +30 %].
  const FamilyBand& b200_zero3 = table.band(layout_family("b200", 3));
  CHECK(b200_zero3.runs == 0);
  CHECK(b200_zero3.unvalidated == "no published run with ZeRO-3 on Blackwell (B200, GB200, GB300)");
  CHECK(b200_zero3.lo == 0.0);
  CHECK(b200_zero3.hi == doctest::Approx(0.3));
  CHECK(b200_zero3.stand_in ==
        "the span of the validated ZeRO 0-2 and ZeRO-3 fsdp2 families on Blackwell (Blackwell bf16 ZeRO 0-2)");
  // ZeRO-3 in bf16 on Hopper: the precision is what no run has. Its generation's ZeRO 0-2 family
  // and its framework's fp8 family span [-10 %, +50 %].
  const FamilyBand& hopper_zero3 = table.band(layout_family("h100-sxm", 3));
  CHECK(hopper_zero3.unvalidated == "no published run with ZeRO-3 in bf16 on Hopper (H100, H200)");
  CHECK(hopper_zero3.lo == doctest::Approx(-0.1));
  CHECK(hopper_zero3.hi == doctest::Approx(0.5));
  // Another ZeRO-3 framework does not speak for DeepSpeed's: only the ZeRO 0-2 family does.
  models::ParallelismSpec deepspeed;
  deepspeed.zero = 3;
  deepspeed.sharding = models::ShardingFramework::deepspeed_zero3_2021;
  const FamilyBand& hopper_deepspeed = table.band(validation_family("h100-sxm", deepspeed, {}, false));
  CHECK(hopper_deepspeed.unvalidated == "no published run with ZeRO-3 in bf16 on Hopper (H100, H200)");
  CHECK(hopper_deepspeed.hi == doctest::Approx(0.2));
  // No A100 run at all: the generation is the missing dimension; the ZeRO 0-2 families of every GPU stand in.
  const FamilyBand& a100 = table.band(layout_family("a100-80gb", 1));
  CHECK(a100.unvalidated == "no published run on A100");
  CHECK(a100.lo == doctest::Approx(-0.1));
  CHECK(a100.hi == doctest::Approx(0.3));
  CHECK(a100.stand_in ==
        "the span of the validated ZeRO 0-2 families of every GPU (Hopper bf16 ZeRO 0-2, Blackwell bf16 ZeRO 0-2)");
}

TEST_CASE("band table: a MoE layout without runs of its own takes the validated MoE families' span too") {
  // The published MoE runs are FSDP2 on Hopper (NeMo Automodel): a ZeRO-1 MoE layout on Hopper has
  // none, and the dimension it lacks is named with the kind of model.
  models::ParallelismSpec p;
  p.zero = 1;
  const models::TrainingSpec t;
  const BandTable& table = built_in_band_table();
  const FamilyBand& band = table.band(validation_family("h100-sxm", p, t, true));
  CHECK(band.runs == 0);
  CHECK(band.unvalidated == "no published run of a mixture-of-experts model with ZeRO 0-2 on Hopper (H100, H200)");
  CHECK(band.stand_in.find("and the validated mixture-of-experts families of every GPU") != std::string::npos);
  CHECK(band.stand_in.find("Hopper bf16 ZeRO-3 fsdp2 MoE") != std::string::npos);
  // The span holds the MoE family's own band and the dense ZeRO 0-2 families'.
  models::ParallelismSpec fsdp;
  fsdp.zero = 3;
  const FamilyBand& moe = table.band(validation_family("h100-sxm", fsdp, t, true));
  REQUIRE(moe.runs > 0);
  const FamilyBand& dense = table.band(validation_family("h100-sxm", p, t, false));
  CHECK(band.hi >= std::max(moe.hi, dense.hi));
  CHECK(band.lo <= std::min(moe.lo, dense.lo));
}

TEST_CASE("band table: the built-in study marks ZeRO-3 on B200 unvalidated") {
  // NeMo's B200 long-sequence runs validate Blackwell in fp8 with the distributed optimizer only.
  const FamilyBand& band = built_in_band_table().band(layout_family("b200", 3));
  CHECK(band.runs == 0);
  CHECK(band.unvalidated == "no published run with ZeRO-3 on Blackwell (B200, GB200, GB300)");
  CHECK(band.hi > 0.0);  // the published runs are slower than predicted somewhere
  CHECK(built_in_band_table().source() == "validation/published_runs.csv");
  // Hopper in bf16 with ZeRO 1 is covered by published runs.
  CHECK(built_in_band_table().band(layout_family("h100-sxm", 1)).runs > 0);
}

SweepRow ranked_row(std::size_t index, double step_s, double fast_s, double slow_s) {
  SweepRow row;
  row.index = index;
  row.step_time_s = step_s;
  row.band = {.fast_s = fast_s, .slow_s = slow_s};
  row.fits = true;
  return row;
}

TEST_CASE("ranking: by the slow end of the band, so a sure layout beats an unsure one of a similar point estimate") {
  // A: 10 s, band up to 13 s; B: 11 s, band up to 12 s. By the point A leads; by the slow end B.
  std::vector<SweepRow> rows{ranked_row(0, 10.0, 10.0, 13.0), ranked_row(1, 11.0, 11.0, 12.0)};
  rank_rows(rows);
  CHECK(rows[0].index == 1);
  CHECK(rows[1].index == 0);
  // Equal slow ends: the point estimate decides.
  std::vector<SweepRow> even{ranked_row(0, 11.0, 11.0, 12.0), ranked_row(1, 10.0, 10.0, 12.0)};
  rank_rows(even);
  CHECK(even[0].index == 1);
}

TEST_CASE("ties: two rows tie when their bands overlap") {
  // [10, 12] and [11.5, 13] overlap, [11.5, 13] and [12.5, 14] too; [10, 12] and [12.5, 14] do not.
  std::vector<SweepRow> rows{ranked_row(0, 10.0, 10.0, 12.0), ranked_row(1, 11.5, 11.5, 13.0),
                             ranked_row(2, 12.5, 12.5, 14.0), ranked_row(3, 20.0, 20.0, 22.0)};
  rows[3].fits = false;  // overlaps none anyway, and a row that does not fit ties with nothing
  const auto ties = band_ties(rows, rows.size());
  REQUIRE(ties.size() == 4);
  CHECK(ties[0] == std::vector<std::size_t>{2});
  CHECK(ties[1] == std::vector<std::size_t>{1, 3});
  CHECK(ties[2] == std::vector<std::size_t>{2});
  CHECK(ties[3].empty());
  // Touching ends overlap; only the rows shown count.
  std::vector<SweepRow> touching{ranked_row(0, 10.0, 10.0, 12.0), ranked_row(1, 12.0, 12.0, 13.0),
                                 ranked_row(2, 12.5, 11.0, 14.0)};
  const auto first_two = band_ties(touching, 2);
  REQUIRE(first_two.size() == 2);
  CHECK(first_two[0] == std::vector<std::size_t>{2});
}

}  // namespace
}  // namespace clustersim::planning
