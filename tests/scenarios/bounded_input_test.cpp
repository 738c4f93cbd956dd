#include "scenarios/bounded_input.hpp"

#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "scenarios/scenario_error.hpp"
#include "tests/temp_dir.hpp"

namespace clustersim::scenarios {
namespace {

std::string read_error_of(const std::filesystem::path& path, std::size_t limit = kMaxInputFileBytes) {
  try {
    (void)read_input_file_bounded(path, limit);
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "(accepted)";
}

TEST_CASE("bounded input: a file within the limit is read whole and remembered as an input") {
  const test::TempDir dir;
  const std::string path = dir / "in.json";
  std::ofstream(path) << "0123456789";
  CHECK(read_input_file_bounded(path, 10) == "0123456789");
  const auto identity = file_identity(path);
  REQUIRE(identity.has_value());
  CHECK(is_input_file(*identity));
  // Another name of the same file is the same input.
  std::filesystem::create_symlink(path, dir / "link.json");
  CHECK(file_identity(dir / "link.json") == identity);
  // A file never read is not.
  std::ofstream(dir / "other.json") << "x";
  CHECK_FALSE(is_input_file(*file_identity(dir / "other.json")));
}

TEST_CASE("bounded input: over the limit, a directory, a missing file: errors naming the file and the limit") {
  const test::TempDir dir;
  const std::string path = dir / "big.json";
  std::ofstream(path) << "01234567890";
  CHECK(read_error_of(path, 10) == path + ": larger than the 10 bytes limit for input files");
  CHECK(read_error_of(dir / "none.json") == dir / "none.json" + ": no such file");
  CHECK(read_error_of(dir / "") .ends_with(": is a directory, not a file"));
  CHECK(read_error_of("") == "an empty file name");
}

TEST_CASE("bounded input: /dev/zero (no size, no end) stops at the limit quickly") {
  const auto start = std::chrono::steady_clock::now();
  CHECK(read_error_of("/dev/zero") == "/dev/zero: larger than the 64 MiB limit for input files");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK(read_error_of("/dev/zero", 100'000) == "/dev/zero: larger than the 100000 bytes limit for input files");
}

}  // namespace
}  // namespace clustersim::scenarios
