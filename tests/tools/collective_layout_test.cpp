// `clustersim collective` against a real nccl-tests log, line by line: the prediction for the
// log's collective, sizes and GPU count must print the log's lines in the log's order and columns,
// the numbers aside. The log is tests/calibration/data/h100_1n8g_allreduce_nccl-tests-290.txt
// (all_reduce_perf on one node of 8 H100, 128 MiB .. 4 GiB; INDEX.md there names its source).

#include <doctest/doctest.h>

#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/printf.h>

#include "tests/tools/cli_runner.hpp"
#include "tools/render/nccl_tests_table.hpp"

namespace {

using clustersim::test::read_text;
using clustersim::test::run_clustersim;

const std::string log_path =
    std::string(CLUSTERSIM_SOURCE_DIR) + "/tests/calibration/data/h100_1n8g_allreduce_nccl-tests-290.txt";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    // The posted log lost nccl-tests' trailing blanks (INDEX.md): compare without them.
    line.erase(line.find_last_not_of(" \t\r") + 1);
    lines.push_back(line);
  }
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

const std::regex number_pattern(R"(-?[0-9]+(\.[0-9]+)?)");

// A table row keeps its columns: each number becomes blanks ending in '#' where the number ended,
// so a field printed wider or narrower, or with its right edge elsewhere, still differs. A comment
// line is free text: each number becomes one '#'.
std::string masked(const std::string& line) {
  if (line.starts_with('#')) return std::regex_replace(line, number_pattern, "#");
  std::string out = line;
  for (std::sregex_iterator it(line.begin(), line.end(), number_pattern), end; it != end; ++it) {
    const auto start = static_cast<std::size_t>(it->position()), length = static_cast<std::size_t>(it->length());
    out.replace(start, length, std::string(length - 1, ' ') + "#");
  }
  return out;
}

// The lines nccl-tests prints about the machine it ran on, not about the test: PID, host name,
// PCI address and device name of each rank. They are compared only as rank lines in rank order.
bool describes_the_machine(const std::string& line) { return line.starts_with("#  Rank "); }

}  // namespace

TEST_CASE("collective layout: a prediction diffs line by line against a real all_reduce_perf log") {
  const std::vector<std::string> real = lines_of(read_text(log_path));
  REQUIRE(real.size() > 10);
  // The run's own parameters, from its first line: -b, -e, -f and the GPUs.
  std::smatch header;
  REQUIRE(std::regex_search(real.front(), header,
                            std::regex(R"(nGpus (\d+) minBytes (\d+) maxBytes (\d+) step: (\d+)\(factor\))")));
  CHECK(header[1] == "8");  // one node of 8 GPUs: --nodes 1 on the default scenario's 8-GPU H100 nodes
  const auto outcome = run_clustersim(fmt::format("collective --nodes 1 --op all_reduce --min {} --max {} --factor {}",
                                                  header[2].str(), header[3].str(), header[4].str()));
  CAPTURE(outcome.err);
  REQUIRE(outcome.exit_code == 0);
  std::vector<std::string> predicted = lines_of(outcome.out);

  // clustersim's own lines come after everything nccl-tests prints, and only there.
  std::size_t own = predicted.size();
  while (own > 0 && predicted[own - 1].starts_with("# clustersim")) --own;
  CHECK(predicted.size() - own >= 2);
  for (std::size_t i = 0; i < own; ++i) CHECK_FALSE(predicted[i].find("clustersim") != std::string::npos);
  predicted.resize(own);

  REQUIRE(predicted.size() == real.size());
  std::size_t rank_lines = 0;
  for (std::size_t i = 0; i < real.size(); ++i) {
    CAPTURE(i + 1);
    CAPTURE(real[i]);
    CAPTURE(predicted[i]);
    if (describes_the_machine(real[i])) {
      REQUIRE(describes_the_machine(predicted[i]));
      const std::string rank = fmt::format("#  Rank {:>2} ", rank_lines++);
      CHECK(real[i].starts_with(rank));
      CHECK(predicted[i].starts_with(rank));
      continue;
    }
    CHECK(masked(predicted[i]) == masked(real[i]));
  }
  CHECK(rank_lines == 8);
}

TEST_CASE("collective layout: the masks tell a column moved or a line missing") {
  // The check above must be able to fail: a field whose right edge moves is caught (the number of
  // decimals inside a field is the next test's: the mask keeps only where each number ends).
  CHECK(masked("   134217728      33554432     float     sum      -1     613.3") !=
        masked("   134217728      33554432     float     sum      -1    613.3"));
  CHECK(masked("   134217728      33554432     float     sum      -1    613.3") ==
        masked("   268435456      67108864     float     sum      -1   1139.2"));
  CHECK(masked("# Avg bus bandwidth    : 439.369") == masked("# Avg bus bandwidth    : 227.1"));
  CHECK(masked("# collective: all_reduce") != masked("#"));
}

TEST_CASE("collective layout: every number of the real log prints back as nccl-tests printed it") {
  // The formatter against nccl-tests' own output: each time, algbw and busbw of the real log,
  // read and printed again, gives the same characters (613.3 us keeps its one decimal).
  int rows = 0;
  for (const std::string& line : lines_of(read_text(log_path))) {
    if (line.starts_with("# Avg bus bandwidth")) {
      const std::string value = words_of(line).back();
      CHECK(fmt::sprintf("%g", std::strtod(value.c_str(), nullptr)) == value);
      continue;
    }
    if (line.empty() || line.starts_with('#')) continue;
    const std::vector<std::string> w = words_of(line);
    REQUIRE(w.size() == 13);
    ++rows;
    for (const std::size_t time : {5u, 9u}) {
      CAPTURE(w[time]);
      CHECK(clustersim::tools::nccl_tests_time_text(std::strtod(w[time].c_str(), nullptr)) ==
            fmt::format("{:>7}", w[time]));
    }
    for (const std::size_t bw : {6u, 7u, 10u, 11u}) {
      CHECK(clustersim::tools::nccl_tests_bandwidth_text(std::strtod(w[bw].c_str(), nullptr)) ==
            fmt::format("{:>6}", w[bw]));
    }
  }
  CHECK(rows == 6);
}

TEST_CASE("collective layout: the time switches decimals at 100 and 10,000 us, as nccl-tests' BenchTime") {
  using clustersim::tools::nccl_tests_time_text;
  CHECK(nccl_tests_time_text(99.994) == "  99.99");
  CHECK(nccl_tests_time_text(100.0) == "  100.0");
  CHECK(nccl_tests_time_text(999.94) == "  999.9");
  CHECK(nccl_tests_time_text(9999.94) == " 9999.9");
  CHECK(nccl_tests_time_text(10000.0) == "  10000");
  CHECK(nccl_tests_time_text(123456.7) == " 123457");
  CHECK(clustersim::tools::nccl_tests_bandwidth_text(1234.567) == "1234.57");  // wider than 6: printf widens
}

TEST_CASE("collective layout: gather kinds round each rank's share to 16 bytes, as all_gather_perf") {
  // 16 ranks, -b 1000: 250 floats, 15 per rank, 12 after rounding to 4 floats: 12 x 16 x 4 = 768 B.
  const auto outcome = run_clustersim("collective --nodes 2 --op all_gather --min 1000 --max 1000 --json");
  REQUIRE(outcome.exit_code == 0);
  CHECK(outcome.out.find("\"size_bytes\": 768,") != std::string::npos);
  CHECK(outcome.out.find("\"count\": 12,") != std::string::npos);
  const auto text = run_clustersim("collective --nodes 2 --op sendrecv --min 1M --max 1M");
  REQUIRE(text.exit_code == 0);
  // sendrecv_perf prints its -o operation (sum) though it reduces nothing.
  CHECK(text.out.find("     1048576        262144     float     sum      -1") != std::string::npos);
}
