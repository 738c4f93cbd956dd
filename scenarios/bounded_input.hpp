#pragma once
/// Reading an input file (a scenario, a profile, a sweep configs file, a calibration log, a
/// validation CSV, a file to merge) into memory, with a size limit, and remembering which files
/// this process has read so that an output file cannot replace one of its own inputs.
///
/// Limit: 64 MiB per file. The largest input the project itself ships is the validation CSV
/// (about 50 KB); calibration logs are kilobytes to a few megabytes. Without a limit
/// `clustersim run /dev/zero` grows until memory runs out. Pipes, FIFOs and character devices are
/// read in chunks against the same limit, so /dev/zero fails after 64 MiB, in well under a second.

#include <sys/stat.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace clustersim::scenarios {

inline constexpr std::size_t kMaxInputFileBytes = std::size_t{64} << 20;

/// The file's bytes. Throws ScenarioError "<path>: <rule>" when the file does not exist, is a
/// directory, cannot be read, or holds more than `limit` bytes (the rule names the limit). A file
/// read successfully is remembered as an input of this process (see is_input_file).
std::string read_input_file_bounded(const std::filesystem::path& path,
                                    std::size_t limit = kMaxInputFileBytes);

/// A file's identity: the device and inode numbers, which two names of one file share, and the
/// time of its last status change, so that a file made later under a reused inode number (after
/// the input was deleted) is not taken for the input.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  std::int64_t changed_ns = 0;
  friend auto operator<=>(const FileIdentity&, const FileIdentity&) = default;
};

FileIdentity file_identity(const struct stat& status);

/// The identity of the file `path` names, following symbolic links; nullopt if there is none.
std::optional<FileIdentity> file_identity(const std::filesystem::path& path);

/// Whether read_input_file_bounded has read this file in this process.
bool is_input_file(const FileIdentity& identity);

}  // namespace clustersim::scenarios
