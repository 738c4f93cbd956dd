#include "tools/resume_file.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <regex>

#include "tools/command.hpp"

namespace clustersim::tools {
namespace {

TEST_CASE("resume file: a file belongs to one job of one build of the program") {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "clustersim-resume-file-test.resume";
  std::filesystem::remove(path);
  {
    ResumeFile file(path.string(), "sweep --search scenario-a", 3);
    file.add(1, "{\"rows\":[1.5]}");
  }
  ResumeFile again(path.string(), "sweep --search scenario-a", 3);
  REQUIRE(again.find(1) != nullptr);
  CHECK(*again.find(1) == "{\"rows\":[1.5]}");
  CHECK(again.find(0) == nullptr);
  CHECK_THROWS_AS(ResumeFile(path.string(), "sweep --search scenario-b", 3), CliError);
  CHECK_THROWS_AS(ResumeFile(path.string(), "sweep --search scenario-a", 4), CliError);
  // The identity names the build, not only the version: a hash of the running executable.
  const std::string identity = program_identity();
  CHECK(std::regex_match(identity, std::regex("clustersim [^ ]+ build [0-9a-f]{16}\n")));
  CHECK(program_identity() == identity);
  again.remove();
  CHECK_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace clustersim::tools
