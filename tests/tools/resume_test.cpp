// `sweep --search`, `plan` and `failures` with `--resume FILE`: a run killed midway (SIGKILL, after its resume file holds at
// least one finished part) goes on from the file and prints exactly what an uninterrupted run
// prints (issue 22, item 13).

#include <doctest/doctest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>

#include "tests/tools/cli_runner.hpp"

namespace clustersim::test {
namespace {

// Llama 3 8B on 2 nodes of 8 H100, on one thread: a few seconds in 32 parts.
constexpr const char* kSearch =
    "sweep --search --top 0 --quiet --jobs 1 --set model.preset=llama3-8b --set cluster.num_gpus=16 --set parallelism.pp=2 "
    "--set training.seq_len=2048 --set training.global_batch=16";

std::size_t count_of(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

// The number of parts the job line of a resume file announces ("job <hash> <parts>").
std::size_t parts_of(const std::string& text) {
  const auto line = text.find("\njob ");
  if (line == std::string::npos) return 0;
  const auto space = text.find(' ', line + 5);
  return std::stoul(text.substr(space + 1));
}

struct Killed {
  bool killed = false;        // SIGKILL reached it before it finished
  std::string resume_text{};  // the resume file as the kill left it
};

// Starts `clustersim ARGUMENTS` (stdout, stderr to files in `dir`) and kills it once `resume`
// holds at least one finished part. Every version of the file is complete (it is written
// atomically), so what is read is always a whole file.
Killed run_and_kill(const std::string& arguments, const std::string& resume, const TempDir& dir) {
  const std::string command = "cd '" + std::string(CLUSTERSIM_SOURCE_DIR) + "' && exec '" +
                              std::string(CLUSTERSIM_BINARY) + "' " + arguments + " >'" + dir / "killed.out" +
                              "' 2>'" + dir / "killed.err" + "'";
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  Killed result;
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
  while (std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return result;  // finished before any kill
    if (std::filesystem::exists(resume) && count_of(read_text(resume), "\nchunk ") >= 1) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      result.killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
      result.resume_text = read_text(resume);
      return result;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  FAIL("the search wrote no part of its resume file within 5 minutes");
  return result;
}

TEST_CASE("sweep --resume: a search killed midway goes on and prints what an uninterrupted one prints") {
  const TempDir dir;
  const Outcome whole = run_clustersim(std::string(kSearch) + " --csv '" + dir / "whole.csv" + "'");
  REQUIRE(whole.exit_code == 0);
  const std::string whole_csv = read_text(dir / "whole.csv");
  REQUIRE(count_of(whole_csv, "\n") > 40);  // enough layouts for many parts

  const std::string resume = dir / "search.resume";
  const std::string resumed_args = std::string(kSearch) + " --csv '" + dir / "resumed.csv" + "' --resume '" + resume + "'";
  // The kill needs the job to be still running when the first part lands; on a machine so loaded
  // that a whole search finishes between two polls, try again.
  Killed killed;
  for (int attempt = 0; attempt < 5 && !killed.killed; ++attempt) {
    std::filesystem::remove(resume);
    killed = run_and_kill(resumed_args, resume, dir);
  }
  REQUIRE(killed.killed);
  const std::size_t parts = parts_of(killed.resume_text);
  const std::size_t done = count_of(killed.resume_text, "\nchunk ");
  CAPTURE(done);
  CHECK(killed.resume_text.starts_with("clustersim resume 1\n"));
  CHECK(parts > 1);
  CHECK(done >= 1);
  CHECK(done < parts);                                         // killed midway
  CHECK_FALSE(std::filesystem::exists(dir / "resumed.csv"));   // no output before the end

  // A resume file is refused, and left as it is, by another search and when it is no resume file.
  const std::string other = dir / "other.resume";
  std::filesystem::copy_file(resume, other);
  const Outcome another = run_clustersim(std::string(kSearch) + " --set training.seq_len=4096 --resume '" + other + "'");
  check_fails_cleanly(another, "holds the progress of another job");
  CHECK(read_text(other) == killed.resume_text);
  check_fails_cleanly(run_clustersim(std::string(kSearch) + " --csv '" + dir / "x.csv" + "' --resume '" + dir / "x.csv" + "'"),
                      "is also an output file of the command");
  check_fails_cleanly(run_clustersim(std::string(kSearch) + " --resume -"), "--resume: needs a file name");
  const Outcome not_resume = run_clustersim(std::string(kSearch) + " --resume '" + dir / "whole.csv" + "'");
  check_fails_cleanly(not_resume, "not a clustersim resume file");
  CHECK(read_text(dir / "whole.csv") == whole_csv);

  const Outcome finished = run_clustersim(resumed_args);
  REQUIRE(finished.exit_code == 0);
  CHECK(finished.out == whole.out);
  CHECK(read_text(dir / "resumed.csv") == whole_csv);
  CHECK_FALSE(std::filesystem::exists(resume));  // removed once the output is written

  // Uninterrupted, --resume prints the same as without it.
  const Outcome fresh = run_clustersim(resumed_args);
  REQUIRE(fresh.exit_code == 0);
  CHECK(fresh.out == whole.out);
  CHECK(read_text(dir / "resumed.csv") == whole_csv);
}

TEST_CASE("failures --resume: a study killed midway goes on and prints what an uninterrupted one prints") {
  // Chunk 0 holds the main runs; the interval sweep after it runs 15 times as many, so the kill
  // lands while it runs.
  const std::string study = "failures --runs 200 --quiet --json";
  const TempDir dir;
  const Outcome whole = run_clustersim(study);
  REQUIRE(whole.exit_code == 0);
  const std::string resume = dir / "failures.resume";
  const std::string resumed_args = study + " --resume '" + resume + "'";
  Killed killed;
  for (int attempt = 0; attempt < 5 && !killed.killed; ++attempt) {
    std::filesystem::remove(resume);
    killed = run_and_kill(resumed_args, resume, dir);
  }
  REQUIRE(killed.killed);
  const std::size_t done = count_of(killed.resume_text, "\nchunk ");
  CAPTURE(done);
  CHECK(done >= 1);
  CHECK(done < parts_of(killed.resume_text));
  check_fails_cleanly(run_clustersim("failures --runs 201 --quiet --resume '" + resume + "'"),
                      "holds the progress of another job");
  const Outcome finished = run_clustersim(resumed_args);
  REQUIRE(finished.exit_code == 0);
  CHECK(finished.out == whole.out);
  CHECK_FALSE(std::filesystem::exists(resume));
}

TEST_CASE("plan --resume: a plan killed midway goes on and prints what an uninterrupted one prints") {
  const std::string plan =
      "plan --quiet --set model.preset=llama3-8b --set cluster.num_gpus=16 --set parallelism.pp=2 "
      "--gpus h100-sxm --topologies rail_optimized,fat_tree --min-gpus 8 --max-gpus 32";
  const TempDir dir;
  const Outcome whole = run_clustersim(plan + " --jobs 1");
  REQUIRE(whole.exit_code == 0);
  const std::string resume = dir / "plan.resume";
  const std::string resumed_args = plan + " --resume '" + resume + "'";
  Killed killed;
  for (int attempt = 0; attempt < 5 && !killed.killed; ++attempt) {
    std::filesystem::remove(resume);
    killed = run_and_kill(resumed_args + " --jobs 1", resume, dir);
  }
  REQUIRE(killed.killed);
  const std::size_t done = count_of(killed.resume_text, "\nchunk ");
  CAPTURE(done);
  CHECK(done >= 1);
  CHECK(done < parts_of(killed.resume_text));
  check_fails_cleanly(run_clustersim(plan + " --deadline-days 30 --resume '" + resume + "'"),
                      "holds the progress of another job");
  const Outcome finished = run_clustersim(resumed_args + " --jobs 2");  // threads do not change the result
  REQUIRE(finished.exit_code == 0);
  CHECK(finished.out == whole.out);
  CHECK_FALSE(std::filesystem::exists(resume));
}

TEST_CASE("sweep --resume needs a search that simulates every layout") {
  check_fails_cleanly(run_clustersim("sweep scenarios/seed/twelve-layouts.json --resume x.resume"),
                      "--resume needs --search");
  // A top-N search prunes; its parts would prune apart, and print other counts.
  check_fails_cleanly(run_clustersim("sweep --search --top 5 --resume x.resume"),
                      "--resume needs a search that simulates every layout that fits");
}

}  // namespace
}  // namespace clustersim::test
