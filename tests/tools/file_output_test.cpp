#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <stdexcept>

#include "tests/tools/cli_runner.hpp"
#include "tools/file_output.hpp"

namespace {

using clustersim::test::read_text;

TEST_CASE("write_file_atomically: replaces the file whole and leaves no temporary") {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("clustersim-file-output-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = dir / "trace.json";
  clustersim::tools::write_file_atomically(path, "first");
  clustersim::tools::write_file_atomically(path, "second, longer");
  CHECK(read_text(path) == "second, longer");
  CHECK(std::distance(std::filesystem::directory_iterator(dir),
                      std::filesystem::directory_iterator()) == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("write_file_atomically: an unwritable path throws naming it") {
  const std::filesystem::path path = "/nonexistent-dir/clustersim/trace.json";
  try {
    clustersim::tools::write_file_atomically(path, "x");
    FAIL("expected an error");
  } catch (const std::runtime_error& error) {
    CHECK(std::string(error.what())
              .starts_with("cannot write /nonexistent-dir/clustersim/trace.json: "));
  }
}

}  // namespace
