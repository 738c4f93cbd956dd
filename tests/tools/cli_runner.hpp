#pragma once
// Runs the built clustersim binary (or any shell command) for the CLI tests: exit code, stdout and
// stderr apart, and the checks every failing command must pass.

#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "tests/temp_dir.hpp"

namespace clustersim::test {

struct Outcome {
  int exit_code = -1;
  std::string out{};
  std::string err{};
};

/// Runs a shell command line, capturing its stdout and stderr apart.
inline Outcome run_shell(const std::string& command) {
  const TempDir dir;
  const std::string out = dir / "out", err = dir / "err";
  const int status = std::system((command + " >'" + out + "' 2>'" + err + "'").c_str());
  return {.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1, .out = read_text(out), .err = read_text(err)};
}

/// Runs `clustersim ARGUMENTS` from `cwd`, by default the source directory (so relative scenario
/// paths work).
inline Outcome run_clustersim(const std::string& arguments, const std::string& cwd = CLUSTERSIM_SOURCE_DIR) {
  return run_shell("cd '" + cwd + "' && '" + std::string(CLUSTERSIM_BINARY) + "' " + arguments);
}

/// A failed command: exit code 2, one line on stderr, nothing on stdout.
inline void check_fails_cleanly(const Outcome& outcome, const std::string& expected_in_message) {
  CAPTURE(outcome.err);
  CHECK(outcome.exit_code == 2);
  CHECK(outcome.out.empty());
  CHECK(outcome.err.starts_with("clustersim: error: "));
  CHECK(outcome.err.find('\n') == outcome.err.size() - 1);
  CHECK(outcome.err.find(expected_in_message) != std::string::npos);
}

}  // namespace clustersim::test
