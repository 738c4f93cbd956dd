#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

// Keeps the dependency direction of DESIGN.md true: sim -> topologies -> models -> scenarios ->
// calibration -> planning -> handoff -> tools; JSON only from scenarios/ up; Boost.Graph only in
// topologies/; sim/ on the standard library alone. A sub-folder (models/comm/) belongs to its
// top-level folder.

namespace {

// The project folders each folder may include from (its own folder is always allowed).
const std::map<std::string, std::set<std::string>>& allowed_folders() {
  static const std::map<std::string, std::set<std::string>> allowed = {
      {"sim", {}},
      {"topologies", {"sim"}},
      {"models", {"sim", "topologies"}},
      {"scenarios", {"models", "topologies", "sim"}},
      {"calibration", {"scenarios", "models", "topologies", "sim"}},
      {"planning", {"calibration", "scenarios", "models", "topologies", "sim"}},
      {"handoff", {"planning", "calibration", "scenarios", "models", "topologies", "sim"}},
      {"tools", {"handoff", "planning", "calibration", "scenarios", "models", "topologies", "sim"}},
  };
  return allowed;
}

const std::set<std::string> project_folders = {"sim",      "topologies", "models", "scenarios", "calibration",
                                               "planning", "handoff",    "tools",  "tests"};
const std::set<std::string> json_folders = {"scenarios", "calibration", "planning", "handoff", "tools", "tests"};

// Every broken rule in one file's text, as "file:line: <include>: why".
std::vector<std::string> include_violations(const std::string& folder, const std::string& file,
                                            const std::string& text) {
  static const std::regex include_line(R"(^\s*#\s*include\s*([<"])([^>"]+)[>"])");
  std::vector<std::string> violations;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    std::smatch match;
    if (!std::regex_search(line, match, include_line)) continue;
    const bool quoted = match[1] == "\"";
    const std::string header = match[2];
    const std::string where = file + ":" + std::to_string(number) + ": " + header + ": ";
    const std::string first = header.substr(0, header.find('/'));
    if (quoted && header.find('/') != std::string::npos && project_folders.contains(first) &&
        first != folder && !allowed_folders().at(folder).contains(first)) {
      violations.push_back(where + folder + "/ may not include " + first + "/");
    }
    if (!quoted && header.starts_with("nlohmann/") && !json_folders.contains(folder)) {
      violations.push_back(where + "JSON stays in scenarios/ and the layers above it");
    }
    if (!quoted && header.starts_with("boost/graph") && folder != "topologies") {
      violations.push_back(where + "Boost.Graph stays in topologies/");
    }
    if (!quoted && folder == "sim" &&
        (header.find('/') != std::string::npos || header.find('.') != std::string::npos)) {
      violations.push_back(where + "sim/ uses the standard library only");
    }
  }
  return violations;
}

TEST_CASE("include rules: the checker catches a file that breaks them") {
  // A sim/ header reaching up into models/ and using JSON and Boost.Graph: five violations,
  // since a third-party header in sim/ also breaks "standard library only".
  const auto violations = include_violations("sim", "sim/bad.hpp",
                                             "#include <vector>\n"
                                             "#include \"sim/time.hpp\"\n"
                                             "#include \"models/spec/gpu_spec.hpp\"\n"
                                             "  #  include <nlohmann/json.hpp>\n"
                                             "// #include \"tools/cli.hpp\" is a comment\n"
                                             "#include <boost/graph/adjacency_list.hpp>\n");
  REQUIRE(violations.size() == 5);
  CHECK(violations[0] == "sim/bad.hpp:3: models/spec/gpu_spec.hpp: sim/ may not include models/");
  CHECK(violations[1].starts_with("sim/bad.hpp:4: nlohmann/json.hpp: JSON stays in"));
  CHECK(violations[2] == "sim/bad.hpp:4: nlohmann/json.hpp: sim/ uses the standard library only");
  CHECK(violations[3].starts_with("sim/bad.hpp:6: boost/graph/adjacency_list.hpp: Boost.Graph"));
  CHECK(violations[4].ends_with("sim/ uses the standard library only"));

  CHECK(include_violations("scenarios", "scenarios/ok.cpp",
                           "#include <nlohmann/json.hpp>\n#include \"models/spec/gpu_spec.hpp\"\n")
            .empty());
  CHECK(include_violations("models", "models/up.cpp", "#include \"scenarios/scenario.hpp\"\n")
            .size() == 1);
  CHECK(include_violations("tools", "tools/x.cpp", "#include <boost/graph/graph_traits.hpp>\n")
            .size() == 1);
  // planning/ sits between calibration/ and tools/: it may use the first, not the second.
  CHECK(include_violations("planning", "planning/ok.cpp", "#include \"calibration/step_inputs.hpp\"\n").empty());
  CHECK(include_violations("planning", "planning/up.cpp", "#include \"tools/render/sweep_table.hpp\"\n").size() == 1);
  CHECK(include_violations("calibration", "calibration/up.cpp", "#include \"planning/search/sweep_rows.hpp\"\n").size() == 1);
  // handoff/ sits between planning/ and tools/.
  CHECK(include_violations("handoff", "handoff/ok.cpp", "#include \"planning/search/sweep_rows.hpp\"\n").empty());
  CHECK(include_violations("handoff", "handoff/up.cpp", "#include \"tools/cli.hpp\"\n").size() == 1);
  CHECK(include_violations("planning", "planning/up.cpp", "#include \"handoff/x.hpp\"\n").size() == 1);
}

TEST_CASE("include rules: every source file follows the dependency direction") {
  const std::filesystem::path root = CLUSTERSIM_SOURCE_DIR;
  std::vector<std::string> violations;
  std::size_t files = 0;
  for (const auto& [folder, allowed] : allowed_folders()) {
    if (!std::filesystem::exists(root / folder)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root / folder)) {
      const auto extension = entry.path().extension();
      if (!entry.is_regular_file() || (extension != ".hpp" && extension != ".cpp")) continue;
      std::ifstream file(entry.path());
      std::ostringstream text;
      text << file.rdbuf();
      const auto found = include_violations(
          folder, std::filesystem::relative(entry.path(), root).string(), text.str());
      violations.insert(violations.end(), found.begin(), found.end());
      ++files;
    }
  }
  CHECK(files > 10);
  for (const auto& violation : violations) FAIL_CHECK(violation);
}

}  // namespace
