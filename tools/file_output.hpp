#pragma once
/// Writing result files (traces, reports) so that a failed or interrupted run never leaves a
/// half-written file: commands write only after everything succeeded, and then atomically.

#include <filesystem>
#include <string_view>

namespace clustersim::tools {

/// Writes `content` to a temporary file next to `path`, then renames it over `path` (atomic on
/// POSIX within one file system). Throws std::runtime_error naming the path on failure, leaving
/// any previous file at `path` untouched.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace clustersim::tools
