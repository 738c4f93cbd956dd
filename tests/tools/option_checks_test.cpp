// Numeric options of every subcommand: a value outside its stated range, a signed value for a
// count, NaN, infinity, hexadecimal or trailing text exits 2 naming the option and its rule, and
// prints nothing on stdout. Each case is a reproducer from the robustness issue or its kin.

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

#include "tests/tools/cli_runner.hpp"
#include "tools/checked_option.hpp"

namespace clustersim::test {
namespace {

TEST_CASE("option checks: plain numbers only") {
  using tools::parse_plain_decimal;
  using tools::parse_plain_unsigned;
  CHECK(parse_plain_unsigned("0") == 0u);
  CHECK(parse_plain_unsigned("18446744073709551615") == 18446744073709551615u);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1e3", "0x10", "18446744073709551616", "1.0"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_plain_unsigned(bad).has_value());
  }
  CHECK(parse_plain_decimal("12") == 12.0);
  CHECK(parse_plain_decimal("-0.5") == -0.5);
  CHECK(parse_plain_decimal("+1.5e3") == 1500.0);
  CHECK(parse_plain_decimal(".5") == 0.5);
  CHECK(parse_plain_decimal("5.") == 5.0);
  for (const char* bad : {"", "nan", "NaN", "inf", "-inf", "infinity", "0x10", "1e999", "1e", "e3", ".", "-", "1,5",
                          "3 ", "1.2.3", "1e3.5"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_plain_decimal(bad).has_value());
  }
  const tools::RealRange positive{.min = 0.0, .max = 10.0, .min_exclusive = true};
  CHECK_FALSE(tools::in_range(0.0, positive));
  CHECK(tools::in_range(10.0, positive));
  CHECK(positive.rule() == "a decimal number > 0 and <= 10");
  CHECK(tools::RealRange{.min = 0.0, .max = 1e15}.rule() == "a decimal number >= 0 and <= 1e15");
  CHECK(tools::IntRange{.min = 1, .max = 100000}.rule() == "an integer in 1..100000");
}

TEST_CASE("option checks: every reproducer exits 2 naming the option and the rule") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plan --min-gpus -1", "--min-gpus: must be an integer in 1..1048576, got '-1'"},
      {"plan --max-gpus 0", "--max-gpus: must be an integer in 1..1048576, got '0'"},
      {"plan --max-gpus 1000000000", "--max-gpus: must be an integer in 1..1048576"},
      {"plan --deadline-days NaN", "--deadline-days: must be a decimal number > 0 and <= 36500, got 'NaN'"},
      {"plan --deadline-days 0", "--deadline-days: must be a decimal number > 0"},
      {"plan --budget-usd NaN", "--budget-usd: must be a decimal number > 0"},
      {"plan --oversubscription 0.5", "--oversubscription: must be a decimal number >= 1 and <= 64"},
      {"plan --jobs 0", "--jobs: must be an integer in 1..1024"},
      {"plan --price bogus=3", "--price: unknown GPU \"bogus\" (known: "},
      {"plan --price h100-sxm=0x10", "--price: must be GPU=USD with USD a decimal number > 0"},
      {"plan --gpus h100-sxm --price b200=3", "--price: GPU \"b200\" is not among --gpus (h100-sxm)"},
      {"plan --pricing build --server-price h100-sxm=inf", "--server-price: must be GPU=USD"},
      {"sweep --jobs -1", "--jobs: must be an integer in 1..1024, got '-1'"},
      {"sweep --top -1", "--top: must be an integer in 0..1000000, got '-1'"},
      {"topo --fail-links -1", "--fail-links: must be an integer in 0..1000000, got '-1'"},
      {"topo --seed -3", "--seed: must be an integer in 0..18446744073709551615, got '-3'"},
      {"failures --compare-intervals inf", "--compare-intervals: must be up to 16 comma-separated minutes"},
      {"failures --compare-intervals 30,-5", "--compare-intervals: must be up to 16"},
      {"failures --runs 1000000000", "--runs: must be an integer in 1..100000, got '1000000000'"},
      {"failures --runs 1e3", "--runs: must be an integer in 1..100000, got '1e3'"},
      {"failures --seed -1", "--seed: must be an integer in 0..18446744073709551615, got '-1'"},
      {"tco --runs -5", "--runs: must be an integer in 1..100000, got '-5'"},
      {"collective --min 1 --max 8G --factor 1.0000001", "--factor: must be a decimal number >= 1.01 and <= 1024"},
      {"collective --nodes 0", "--nodes: must be an integer in 1..131072, got '0'"},
      {"collective --max 0x10", "--max: must be a size in bytes"},
      {"collective --min nanK", "--min: must be a size in bytes"},
      {"merge --top -1", "--top: must be an integer in 0..1000000"},
      {"run --links -1", "--links: must be an integer in 0..1000000"},
      {"calibrate x --out p.json --tolerance 0", "--tolerance: must be a decimal number > 0 and <= 1"},
      {"calibrate x --out p.json --nics-per-node -8", "--nics-per-node: must be an integer in 1..64"},
      {"calibrate x --out p.json --nic-gbit-per-s inf", "--nic-gbit-per-s: must be a decimal number > 0"},
      {"calibrate x --out p.json --max-segments 65", "--max-segments: must be an integer in 0..64"},
      {"run ''", "SCENARIO: must be a non-empty path, got '' (leave it out for the built-in default)"},
      {"run --trace ''", "--trace: must be a non-empty path"},
      {"sweep --csv ''", "--csv: must be a non-empty path"},
  };
  for (const auto& entry : cases) {
    const auto& arguments = std::get<0>(entry);
    const auto& message = std::get<1>(entry);
    CAPTURE(arguments);
    check_fails_cleanly(run_clustersim(arguments), message);
  }
}

TEST_CASE("option checks: each range is stated in --help") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plan", "an integer in 1..1048576"},
      {"plan", "a decimal number > 0 and <= 36500"},
      {"failures", "an integer in 1..100000"},
      {"sweep", "an integer in 1..1024"},
      {"topo", "an integer in 0..1000000"},
      {"collective", "a decimal number >= 1.01 and <= 1024 (at most 3473 sizes)"},
      {"plan", "USD a decimal number > 0 and <= 10000"},
      {"calibrate", "an integer in 0..64"},
      {"tco", "an integer in 1..100000"},
  };
  for (const auto& entry : cases) {
    const auto& command = std::get<0>(entry);
    const auto& rule = std::get<1>(entry);
    CAPTURE(command);
    const Outcome o = run_clustersim(command + " --help");
    CHECK(o.exit_code == 0);
    // Boost wraps the descriptions: compare with every run of blanks and line breaks as one blank.
    std::string text;
    for (const char c : o.out) {
      const bool blank = c == ' ' || c == '\n';
      if (!blank || (!text.empty() && text.back() != ' ')) text += blank ? ' ' : c;
    }
    CHECK(text.find(rule) != std::string::npos);
  }
}

TEST_CASE("option checks: plan's advice when nothing fits is one the options allow") {
  // 70B's weights and optimizer state (about 1.1 TB) do not fit in one node of A100 80GB.
  const Outcome small = run_clustersim("plan --gpus a100-80gb --min-gpus 8 --max-gpus 8 --topologies rail_optimized");
  check_fails_cleanly(small, "raise --max-gpus (at most 1048576)");
}

}  // namespace
}  // namespace clustersim::test
