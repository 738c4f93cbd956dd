#include "tools/resume_file.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "scenarios/bounded_input.hpp"
#include "sim/hashing.hpp"
#include "tools/command.hpp"
#include "tools/file_output.hpp"

namespace clustersim::tools {
namespace {

constexpr std::string_view kResumeMagic = "clustersim resume 1\n";

// A search's resume file keeps the rows of every layout that fits, a few hundred bytes each: more
// than the 64 MiB of a scenario input for the largest searches, so it has a limit of its own.
constexpr std::size_t kMaxResumeFileBytes = std::size_t{1} << 30;

// Reads "<number><terminator>" at `pos`, advancing past it; false if it is not there.
bool read_resume_number(std::string_view text, std::size_t& pos, char terminator, std::size_t& value) {
  const char* first = text.data() + pos;
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(first, last, value);
  if (error != std::errc{} || end == first || end == last || *end != terminator) return false;
  pos = static_cast<std::size_t>(end - text.data()) + 1;
  return true;
}

}  // namespace

std::string program_identity() {
  static const std::string identity = [] {
    std::string id = "clustersim " CLUSTERSIM_VERSION;
    constexpr std::size_t kMaxExecutableBytes = std::size_t{1} << 30;
    try {
      const std::string executable = scenarios::read_input_file_bounded("/proc/self/exe", kMaxExecutableBytes);
      id += fmt::format(" build {:016x}", sim::fnv1a64(executable));
    } catch (const std::exception&) {  // no /proc: the version alone
    }
    return id + "\n";
  }();
  return identity;
}

ResumeFile::ResumeFile(std::string path, std::string_view job, std::size_t chunks)
    : path_(std::move(path)),
      job_line_(fmt::format("job {:016x} {}\n", sim::fnv1a64(program_identity().append(job)), chunks)),
      chunks_(chunks) {
  if (path_.empty() || path_ == "-") throw CliError("--resume: needs a file name, got \"" + path_ + "\"");
  std::error_code error;
  if (!std::filesystem::exists(path_, error)) return;
  if (!std::filesystem::is_regular_file(path_, error)) {
    throw CliError("--resume " + path_ + ": not a regular file");
  }
  const std::string text = scenarios::read_input_file_bounded(path_, kMaxResumeFileBytes);
  const auto refuse = [&](std::string_view why) {
    throw CliError("--resume " + path_ + ": " + std::string(why) + "; left as it is (remove it to start afresh)");
  };
  if (!text.starts_with(kResumeMagic)) refuse("not a clustersim resume file");
  std::size_t pos = kResumeMagic.size();
  if (text.compare(pos, job_line_.size(), job_line_) != 0) {
    refuse("holds the progress of another job (scenario, options or program build differ)");
  }
  pos += job_line_.size();
  constexpr std::string_view chunk_word = "chunk ";
  while (pos < text.size()) {
    std::size_t index = 0, bytes = 0;
    if (text.compare(pos, chunk_word.size(), chunk_word) != 0) refuse("malformed");
    pos += chunk_word.size();
    if (!read_resume_number(text, pos, ' ', index) || !read_resume_number(text, pos, '\n', bytes)) refuse("malformed");
    if (index >= chunks_ || results_.contains(index) || bytes >= text.size() - pos || text[pos + bytes] != '\n') {
      refuse("malformed");
    }
    results_.emplace(index, text.substr(pos, bytes));
    pos += bytes + 1;
  }
}

const std::string* ResumeFile::find(std::size_t chunk) const {
  const auto it = results_.find(chunk);
  return it == results_.end() ? nullptr : &it->second;
}

std::string ResumeFile::render() const {
  std::string text(kResumeMagic);
  text += job_line_;
  for (const auto& [index, result] : results_) {
    text += fmt::format("chunk {} {}\n", index, result.size());
    text += result;
    text += '\n';
  }
  return text;
}

void ResumeFile::add(std::size_t chunk, std::string result) {
  results_[chunk] = std::move(result);
  // The constructor read the file as an input; it is the one output that may replace an input.
  write_file_atomically(path_, render(), InputOverwrite::allow);
}

void ResumeFile::remove() const {
  std::error_code ignored;
  std::filesystem::remove(path_, ignored);
}

void check_resume_path(const std::string& resume, const std::vector<std::string>& outputs) {
  std::error_code error;
  const std::filesystem::path own = std::filesystem::weakly_canonical(resume, error);
  for (const std::string& output : outputs) {
    if (output.empty()) continue;
    std::error_code ignored;
    if (output == resume || (!error && std::filesystem::weakly_canonical(output, ignored) == own)) {
      throw CliError("--resume " + resume + ": is also an output file of the command");
    }
  }
}

std::size_t chunk_count(std::size_t items, std::size_t max_chunks) {
  return std::max<std::size_t>(1, std::min(items, max_chunks));
}

std::size_t chunk_begin(std::size_t items, std::size_t chunks, std::size_t chunk) {
  // floor(items * chunk / chunks), without the product's overflow: items = q * chunks + r.
  const std::size_t q = items / chunks, r = items % chunks;
  return q * chunk + r * chunk / chunks;
}

}  // namespace clustersim::tools
