#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "scenarios/bounded_input.hpp"
#include "tests/tools/cli_runner.hpp"
#include "tools/file_output.hpp"

namespace {

namespace fs = std::filesystem;
using clustersim::test::check_fails_cleanly;
using clustersim::test::read_text;
using clustersim::test::run_clustersim;
using clustersim::test::TempDir;
using clustersim::tools::write_file_atomically;

std::string error_of(const fs::path& path, std::string_view content) {
  try {
    write_file_atomically(path, content);
  } catch (const std::runtime_error& error) {
    return error.what();
  }
  return "(written)";
}

mode_t mode_of(const fs::path& path) {
  struct stat status {};
  REQUIRE(::stat(path.c_str(), &status) == 0);
  return status.st_mode;
}

std::size_t entries(const fs::path& dir) {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

TEST_CASE("write_file_atomically: replaces the file whole and leaves no temporary") {
  const TempDir dir;
  const fs::path path = dir / "trace.json";
  write_file_atomically(path, "first");
  write_file_atomically(path, "second, longer");
  CHECK(read_text(path) == "second, longer");
  CHECK(entries(path.parent_path()) == 1);
}

TEST_CASE("write_file_atomically: an unwritable path throws naming it") {
  CHECK(error_of("/nonexistent-dir/clustersim/trace.json", "x")
            .starts_with("cannot write /nonexistent-dir/clustersim/trace.json: "));
  const TempDir dir;
  CHECK(error_of(dir / "", "x").ends_with(": is a directory"));
  CHECK(error_of("", "x") == "cannot write : an empty file name");
}

TEST_CASE("write_file_atomically: a replaced file keeps its mode, a new one gets the umask's") {
  const TempDir dir;
  const fs::path secret = dir / "secret.json";
  std::ofstream(secret) << "old";
  REQUIRE(::chmod(secret.c_str(), 0600) == 0);
  write_file_atomically(secret, "new");
  CHECK(read_text(secret) == "new");
  CHECK((mode_of(secret) & 07777) == 0600);

  const mode_t mask = ::umask(0);
  ::umask(mask);
  const fs::path fresh = dir / "fresh.json";
  write_file_atomically(fresh, "x");
  CHECK((mode_of(fresh) & 07777) == (0666 & ~mask));
}

TEST_CASE("write_file_atomically: a symbolic link is written through to its target and stays a link") {
  const TempDir dir;
  fs::create_directories(dir / "real");
  const fs::path target = dir / "real/trace.json", link = dir / "trace.json";
  std::ofstream(target) << "old";
  fs::create_symlink("real/trace.json", link);  // relative, resolved from the link's folder
  write_file_atomically(link, "new");
  CHECK(fs::is_symlink(link));
  CHECK(read_text(target) == "new");
  CHECK(entries(dir / "real") == 1);
  // A dangling link names the file to create.
  const fs::path dangling = dir / "dangling.json";
  fs::create_symlink(dir / "real/new.json", dangling);
  write_file_atomically(dangling, "made");
  CHECK(fs::is_symlink(dangling));
  CHECK(read_text(dir / "real/new.json") == "made");
  // A loop is an error, not a hang.
  fs::create_symlink(dir / "loop-b", dir / "loop-a");
  fs::create_symlink(dir / "loop-a", dir / "loop-b");
  CHECK(error_of(dir / "loop-a", "x").find("loop-a: ") != std::string::npos);
}

TEST_CASE("write_file_atomically: devices are written in place, a failed write is an error") {
  write_file_atomically("/dev/null", "discarded");
  CHECK(S_ISCHR(mode_of("/dev/null")));
  CHECK(error_of("/dev/full", "x") == "cannot write /dev/full: No space left on device");
  CHECK(S_ISCHR(mode_of("/dev/full")));
}

TEST_CASE("write_file_atomically: a file this process read as an input is refused, under any name") {
  const TempDir dir;
  const fs::path input = dir / "scenario.json";
  std::ofstream(input) << "{}";
  fs::create_symlink(input, dir / "alias.json");
  fs::create_hard_link(input, dir / "hard.json");
  (void)clustersim::scenarios::read_input_file_bounded(input);
  for (const fs::path& name : std::vector<fs::path>{input, dir / "alias.json", dir / "hard.json"}) {
    CAPTURE(name);
    CHECK(error_of(name, "x").ends_with("it is one of this command's input files (name another file for the output)"));
  }
  CHECK(read_text(input) == "{}");
}

TEST_CASE("write_file_atomically: \"-\" is kept for standard output, once") {
  write_file_atomically("-", "to stdout");
  CHECK(error_of("-", "again").find("another output already goes to standard output") != std::string::npos);
  CHECK(clustersim::tools::take_standard_output_file() == "to stdout");
  CHECK_FALSE(clustersim::tools::take_standard_output_file().has_value());
}

// The reproducers, through the binary.

TEST_CASE("cli outputs: run s.json --trace s.json is refused and leaves the scenario intact") {
  const TempDir dir;
  const fs::path scenario = dir / "s.json";
  fs::copy_file(fs::path(CLUSTERSIM_SOURCE_DIR) / "scenarios/examples/default.json", scenario);
  const std::string before = read_text(scenario);
  check_fails_cleanly(run_clustersim("run '" + scenario.string() + "' --trace '" + scenario.string() + "'"),
                      "it is one of this command's input files");
  fs::create_symlink(scenario, dir / "alias.json");
  check_fails_cleanly(run_clustersim("run '" + scenario.string() + "' --report '" + dir / "alias.json" + "'"),
                      "it is one of this command's input files");
  CHECK(read_text(scenario) == before);
  // A calibration profile is an input as well.
  const fs::path profile = dir / "p.json";
  fs::copy_file(fs::path(CLUSTERSIM_SOURCE_DIR) / "calibration/profiles/h100-sxm.json", profile);
  check_fails_cleanly(run_clustersim("run --set calibration.profile='" + profile.string() + "' --trace '" +
                                     profile.string() + "'"),
                      "it is one of this command's input files");
}

TEST_CASE("cli outputs: --trace /dev/full fails with exit 2, a mode-600 trace stays 600") {
  check_fails_cleanly(run_clustersim("run --trace /dev/full"), "cannot write /dev/full: No space left on device");
  const TempDir dir;
  const fs::path trace = dir / "trace.json";
  std::ofstream(trace) << "old";
  REQUIRE(::chmod(trace.c_str(), 0600) == 0);
  const auto outcome = run_clustersim("run --trace '" + trace.string() + "'");
  CHECK(outcome.exit_code == 0);
  CHECK(read_text(trace).starts_with("{"));
  CHECK((mode_of(trace) & 07777) == 0600);
}

TEST_CASE("cli outputs: --trace - sends the trace to stdout instead of the report, and not with --json") {
  const auto outcome = run_clustersim("run --trace -");
  CHECK(outcome.exit_code == 0);
  CHECK(outcome.err.empty());
  CHECK(outcome.out.starts_with("{"));
  CHECK(outcome.out.find("traceEvents") != std::string::npos);
  CHECK(outcome.out.find("MFU") == std::string::npos);  // no text report mixed in
  check_fails_cleanly(run_clustersim("run --trace - --json"), "an output file is \"-\" (standard output)");
  check_fails_cleanly(run_clustersim("run --trace - --report -"), "another output already goes to standard output");
}

TEST_CASE("cli outputs: a FIFO is written in place, /dev/stdout is standard output") {
  const TempDir dir;
  const std::string fifo = dir / "trace.fifo", got = dir / "got.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto outcome = clustersim::test::run_shell("cat '" + fifo + "' > '" + got + "' & cd '" CLUSTERSIM_SOURCE_DIR "' && '" +
                                                   std::string(CLUSTERSIM_BINARY) + "' run --trace '" + fifo + "'; wait");
  CHECK(outcome.exit_code == 0);
  CHECK(fs::is_fifo(fifo));
  CHECK(read_text(got).find("traceEvents") != std::string::npos);
  const auto to_stdout = run_clustersim("run --trace /dev/stdout");
  CHECK(to_stdout.exit_code == 0);
  CHECK(to_stdout.out.starts_with("{\"displayTimeUnit\""));
  CHECK(to_stdout.out.find("MFU") == std::string::npos);
}

TEST_CASE("cli inputs: /dev/zero is refused quickly with the size limit") {
  const auto start = std::chrono::steady_clock::now();
  check_fails_cleanly(run_clustersim("run /dev/zero"), "/dev/zero: larger than the 64 MiB limit for input files");
  check_fails_cleanly(run_clustersim("run --set calibration.profile=/dev/zero"),
                      "/dev/zero: larger than the 64 MiB limit for input files");
  check_fails_cleanly(run_clustersim("calibrate /dev/zero --gpu h100-sxm --out /dev/null"),
                      "/dev/zero: larger than the 64 MiB limit for input files");
  check_fails_cleanly(run_clustersim("validate /dev/zero"), "/dev/zero: larger than the 64 MiB limit");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

}  // namespace
