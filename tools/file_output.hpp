#pragma once
/// Writing the output files a command is asked for (--trace, --report, --csv, --dot, --out), so
/// that a failed or interrupted run never leaves a half-written file and never destroys another
/// file. Commands write only after everything succeeded, and then:
///  - a regular file (or a new one) is replaced atomically: the bytes go to a temporary next to
///    it, which is flushed to disk and renamed over it. The file keeps its mode (a 600 file stays
///    600) and, where the process may, its owner; a new file gets the mode the umask gives;
///  - a symbolic link is written through: its target (resolved link by link, a dangling link
///    included) is replaced as above and the link stays;
///  - a character or block device, a FIFO or a socket is written in place, since replacing it by
///    a regular file would destroy it (/dev/null stays a device as root); a write error
///    (/dev/full: "No space left on device") is an error;
///  - "-" (or a name of this process's standard output, such as /dev/stdout) sends the file to
///    standard output in place of the command's report, which is then not printed; only one
///    output may go there, and not with --json (whose report must be the one JSON object on
///    standard output; see run_cli);
///  - a file this process has read as an input (the scenario, a calibration profile, a configs
///    file, a log, a CSV, a file to merge; compared by device and inode, so another name or a link
///    to it counts) is refused.
/// Every failure throws std::runtime_error "cannot write <path>: <reason>" and leaves any
/// previous file at the path untouched.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace clustersim::tools {

/// Whether the file may be one this process read: only for a file the command itself keeps up to
/// date, such as a resume file it reads back and rewrites.
enum class InputOverwrite { refuse, allow };

void write_file_atomically(const std::filesystem::path& path, std::string_view content,
                           InputOverwrite inputs = InputOverwrite::refuse);

/// The content written to "-" since the last call, if any (and forgets it). run_cli prints it
/// instead of the command's report.
std::optional<std::string> take_standard_output_file();

}  // namespace clustersim::tools
