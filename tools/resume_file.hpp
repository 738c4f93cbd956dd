#pragma once
/// Progress of a long job kept in a file, so that a killed run can go on where it stopped
/// (`--resume FILE` of sweep --search). The job is split into numbered chunks computed in a fixed
/// way; each finished chunk's result is kept as exact text (JSON whose numbers read back
/// bit-identically), and the whole file is rewritten atomically (tools/file_output.hpp) after every
/// chunk, so a kill leaves the file as it was after some chunk, never half written. The first lines
/// name the job: a hash of the program version and build (the executable's own bytes), the command, the normalised scenario and every
/// option that changes the result. A file of another job, or one that is not a resume file, is
/// refused (CliError, exit 2) and left alone; a missing file starts the job afresh. The caller
/// removes the file once the job's output is written.
///
/// Format (text): "clustersim resume 1\n", "job <16 hex digits> <chunks>\n", then per finished
/// chunk "chunk <index> <bytes>\n" followed by that many bytes and "\n".

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim::tools {

class ResumeFile {
 public:
  /// `job` is the job's identity (any text; its hash is kept), `chunks` how many there are.
  /// Reads `path` if it exists; throws CliError if it belongs to another job or is malformed.
  ResumeFile(std::string path, std::string_view job, std::size_t chunks);

  /// The kept result of a finished chunk, or nullptr.
  const std::string* find(std::size_t chunk) const;
  /// Keeps a finished chunk's result and rewrites the file atomically.
  void add(std::size_t chunk, std::string result);
  /// Removes the file (after the job's output is written).
  void remove() const;
  std::size_t finished() const { return results_.size(); }

 private:
  std::string render() const;

  std::string path_;
  std::string job_line_;
  std::size_t chunks_ = 0;
  std::map<std::size_t, std::string> results_;
};

/// What makes two runs the same program, one line: its version and, where the system shows the
/// running executable (Linux's /proc/self/exe), a hash of that file, so that a rebuilt binary of
/// the same version (whose numbers may differ) does not take over another build's progress.
std::string program_identity();

/// Throws CliError when the resume file would be one of the command's output files (`outputs`,
/// empty ones skipped): removing it after the job would remove the output.
void check_resume_path(const std::string& resume, const std::vector<std::string>& outputs);

/// The chunk of a job of `items` items, split into at most `max_chunks` contiguous, nearly equal
/// ranges: [begin, end) of chunk `chunk` of chunk_count(items, max_chunks).
std::size_t chunk_count(std::size_t items, std::size_t max_chunks);
std::size_t chunk_begin(std::size_t items, std::size_t chunks, std::size_t chunk);

}  // namespace clustersim::tools
