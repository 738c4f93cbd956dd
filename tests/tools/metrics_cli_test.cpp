// `--metrics FILE` of `run` and `compare`, read back by a small Prometheus text-format parser of
// its own (Prometheus docs, "Exposition formats", text format 0.0.4): every line's grammar, HELP
// and TYPE before a family's samples, no series twice, base units.

#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/tools/cli_runner.hpp"
#include "tools/render/prometheus_metrics.hpp"

namespace clustersim::test {
namespace {

bool exposition_name(const std::string& n, bool colon) {
  if (n.empty()) return false;
  for (std::size_t i = 0; i < n.size(); ++i) {
    const char c = n[i];
    const bool ok = std::isalpha(static_cast<unsigned char>(c)) || c == '_' || (colon && c == ':') ||
                    (i > 0 && std::isdigit(static_cast<unsigned char>(c)));
    if (!ok) return false;
  }
  return true;
}

struct ParsedSample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0.0;
};

/// Parses the text, failing the test on the first line that breaks the format.
std::vector<ParsedSample> parse_exposition(const std::string& text) {
  std::vector<ParsedSample> samples;
  std::set<std::string> helped, typed, series;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  REQUIRE(!text.empty());
  REQUIRE(text.back() == '\n');
  while (std::getline(in, line)) {
    ++number;
    INFO("line " << number << ": " << line);
    REQUIRE(!line.empty());
    if (line.starts_with("# HELP ") || line.starts_with("# TYPE ")) {
      const std::string rest = line.substr(7);
      const auto space = rest.find(' ');
      REQUIRE(space != std::string::npos);
      const std::string name = rest.substr(0, space);
      CHECK(exposition_name(name, true));
      if (line[2] == 'H') {
        CHECK(helped.insert(name).second);
      } else {
        CHECK(helped.count(name) == 1);  // this writer puts HELP first
        CHECK(typed.insert(name).second);
        const std::string type = rest.substr(space + 1);
        CHECK((type == "gauge" || type == "counter" || type == "untyped" || type == "summary" || type == "histogram"));
      }
      continue;
    }
    REQUIRE(line[0] != '#');
    ParsedSample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') s.name += line[i++];
    REQUIRE(exposition_name(s.name, true));
    REQUIRE(helped.count(s.name) == 1);
    REQUIRE(typed.count(s.name) == 1);
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (line.at(i) != '}') {
        std::string label;
        while (line.at(i) != '=') label += line[i++];
        REQUIRE(exposition_name(label, false));
        ++i;
        REQUIRE(line.at(i) == '"');
        ++i;
        std::string value;
        while (line.at(i) != '"') {
          if (line[i] == '\\') {
            const char e = line.at(i + 1);
            REQUIRE((e == '\\' || e == '"' || e == 'n'));
            value += e == 'n' ? '\n' : e;
            i += 2;
          } else {
            value += line[i++];
          }
        }
        ++i;
        REQUIRE(s.labels.emplace(label, value).second);
        if (line.at(i) == ',') ++i;
      }
      ++i;
    }
    REQUIRE(line.at(i) == ' ');
    const std::string value = line.substr(i + 1);
    if (value == "NaN") s.value = std::nan("");
    else if (value == "+Inf" || value == "-Inf") s.value = value[0] == '+' ? INFINITY : -INFINITY;
    else {
      std::size_t used = 0;
      s.value = std::stod(value, &used);
      REQUIRE(used == value.size());
    }
    std::string key = s.name;
    for (const auto& [k, v] : s.labels) key += "|" + k + "=" + v;
    REQUIRE(series.insert(key).second);
    if (s.name.ends_with("_ratio") && !s.name.ends_with("_error_ratio")) CHECK((s.value >= 0.0 && s.value <= 1.0));
    samples.push_back(s);
  }
  return samples;
}

const ParsedSample& only(const std::vector<ParsedSample>& samples, const std::string& name) {
  const ParsedSample* found = nullptr;
  for (const auto& s : samples) {
    if (s.name != name) continue;
    REQUIRE(found == nullptr);
    found = &s;
  }
  REQUIRE(found != nullptr);
  return *found;
}

TEST_CASE("metrics: run --metrics matches run --json") {
  TempDir dir;
  const std::string file = dir / "step.prom";
  const Outcome o = run_clustersim("run --json --metrics " + file);
  REQUIRE(o.exit_code == 0);
  const auto samples = parse_exposition(read_text(file));
  const auto j = nlohmann::json::parse(o.out);
  CHECK(only(samples, "clustersim_predicted_step_time_seconds").value == doctest::Approx(j["step_time_s"].get<double>()));
  CHECK(only(samples, "clustersim_predicted_mfu_ratio").value == doctest::Approx(j["mfu"].get<double>()));
  int collectives = 0;
  for (const auto& s : samples) {
    if (s.name != "clustersim_predicted_collective_seconds") continue;
    ++collectives;
    CHECK(s.value > 0.0);
    CHECK(std::stod(s.labels.at("bytes")) > 0.0);
  }
  CHECK(collectives >= 3);  // TP all-gather and reduce-scatter, pipeline sends, DP reduction
}

TEST_CASE("metrics: compare --metrics carries the measured step time and busbw") {
  TempDir dir;
  const std::string file = dir / "compare.prom";
  const Outcome o = run_clustersim("compare tests/handoff/data/megatron_lm_issue756_excerpt.txt "
                                   "tests/calibration/data/h100_1n8g_allreduce_nccl-tests-290.txt --metrics " + file);
  REQUIRE(o.exit_code == 0);
  const auto samples = parse_exposition(read_text(file));
  int quantiles = 0, busbw = 0;
  for (const auto& s : samples) {
    if (s.name == "clustersim_measured_step_time_seconds" && s.labels.at("quantile") == "0.5") {
      CHECK(s.value == doctest::Approx(5.645));
      ++quantiles;
    }
    // 4 GB in place: 476.53 GB/s.
    if (s.name == "clustersim_measured_busbw_bytes_per_second" && s.labels.at("bytes") == "4294967296") {
      CHECK(s.value == doctest::Approx(476.53e9));
      ++busbw;
    }
  }
  CHECK(quantiles == 1);
  CHECK(busbw == 1);
}

TEST_CASE("metrics: label values are escaped, bad names refused") {
  const std::string text = tools::prometheus_text(
      {{.name = "m_seconds", .help = "a\\b\nc", .samples = {{.labels = {{"log", "a\"b\\c\nd"}}, .value = 1.5}}}});
  CHECK(text == "# HELP m_seconds a\\\\b\\nc\n# TYPE m_seconds gauge\nm_seconds{log=\"a\\\"b\\\\c\\nd\"} 1.5\n");
  const auto samples = parse_exposition(text);
  CHECK(samples.at(0).labels.at("log") == "a\"b\\c\nd");
  CHECK_THROWS(tools::prometheus_text({{.name = "1bad", .help = "", .samples = {}}}));
  CHECK_THROWS(tools::prometheus_text({{.name = "m", .help = "", .samples = {{.labels = {}, .value = 1}, {.labels = {}, .value = 2}}}}));
}

}  // namespace
}  // namespace clustersim::test
