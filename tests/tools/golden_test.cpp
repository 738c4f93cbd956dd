#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/tools/cli_runner.hpp"

// Every command's output on fixed scenarios, byte for byte against tests/golden/: a refactor must
// leave them as they are, and a change that means to move a number regenerates the file
// (tests/golden/regenerate) in the commit that says why.

namespace {

using clustersim::test::read_text;
using clustersim::test::run_clustersim;
using clustersim::test::TempDir;

struct GoldenCase {
  std::string file;       // under tests/golden/
  std::string arguments;  // @OUT@: a file written there is compared instead of stdout
};

std::vector<GoldenCase> golden_cases(const std::filesystem::path& list) {
  std::vector<GoldenCase> cases;
  std::ifstream in(list);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    GoldenCase c;
    if (!(words >> c.file) || c.file.starts_with('#')) continue;
    std::getline(words >> std::ws, c.arguments);
    cases.push_back(c);
  }
  return cases;
}

// The first line where two texts differ, for a failure message a person can act on.
std::string first_difference(const std::string& expected, const std::string& actual) {
  std::istringstream a(expected), b(actual);
  std::string la, lb;
  for (int line = 1;; ++line) {
    const bool more_a = static_cast<bool>(std::getline(a, la));
    const bool more_b = static_cast<bool>(std::getline(b, lb));
    if (!more_a && !more_b) return "identical lines, different bytes (line ends?)";
    if (la != lb || more_a != more_b) {
      return "line " + std::to_string(line) + ":\n  golden: " + la.substr(0, 300) + "\n  now:    " + lb.substr(0, 300);
    }
  }
}

TEST_CASE("golden outputs: every command prints what tests/golden holds") {
  const std::filesystem::path golden = std::filesystem::path(CLUSTERSIM_SOURCE_DIR) / "tests" / "golden";
  const auto cases = golden_cases(golden / "cases.txt");
  REQUIRE(cases.size() >= 10);
  for (const auto& c : cases) {
    CAPTURE(c.arguments);
    const TempDir dir;
    std::string arguments = c.arguments;
    const auto at = arguments.find("@OUT@");
    const std::string written = dir / "output";
    if (at != std::string::npos) arguments.replace(at, 5, "'" + written + "'");
    const auto outcome = run_clustersim(arguments);
    CAPTURE(outcome.err);
    CHECK(outcome.exit_code == 0);
    const std::string actual = at != std::string::npos ? read_text(written) : outcome.out;
    const std::string expected = read_text(golden / c.file);
    REQUIRE_MESSAGE(!expected.empty(), "missing golden file tests/golden/" << c.file);
    if (actual != expected) {
      FAIL_CHECK("tests/golden/" << c.file << " differs at " << first_difference(expected, actual));
    }
  }
}

}  // namespace
