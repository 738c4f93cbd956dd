#include "tools/file_output.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

#include "scenarios/bounded_input.hpp"

namespace clustersim::tools {
namespace {

struct OutputState {
  std::mutex mutex;
  std::optional<std::string> standard_output;
};

OutputState& output_state() {
  static OutputState state;
  return state;
}

class WriteError : public std::runtime_error {
 public:
  WriteError(const std::filesystem::path& path, const std::string& reason)
      : std::runtime_error("cannot write " + path.string() + ": " + reason) {}
};

std::string errno_text() { return std::strerror(errno); }

// The file a chain of symbolic links ends at, each link's relative target taken from the link's
// folder. The end need not exist (a dangling link names the file to create).
std::filesystem::path follow_links(const std::filesystem::path& path) {
  std::filesystem::path current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat status {};
    if (::lstat(current.c_str(), &status) != 0 || !S_ISLNK(status.st_mode)) return current;
    std::string target(static_cast<std::size_t>(PATH_MAX), '\0');
    const ssize_t length = ::readlink(current.c_str(), target.data(), target.size());
    if (length < 0) throw WriteError(path, "cannot read the symbolic link: " + errno_text());
    target.resize(static_cast<std::size_t>(length));
    const std::filesystem::path next(target);
    current = next.is_absolute() ? next : current.parent_path() / next;
  }
  throw WriteError(path, "too many levels of symbolic links");
}

void write_all(int fd, std::string_view content, const std::filesystem::path& path) {
  while (!content.empty()) {
    const ssize_t wrote = ::write(fd, content.data(), content.size());
    if (wrote < 0) {
      if (errno == EINTR) continue;
      throw WriteError(path, errno_text());
    }
    content.remove_prefix(static_cast<std::size_t>(wrote));
  }
}

// Devices, FIFOs, sockets: opened without creating or truncating, written, closed.
void write_in_place(const std::filesystem::path& path, std::string_view content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw WriteError(path, errno_text());
  try {
    write_all(fd, content, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::close(fd) != 0) throw WriteError(path, errno_text());
}

// A regular file or none: a temporary beside `target`, renamed over it.
void replace_atomically(const std::filesystem::path& shown, const std::filesystem::path& target,
                                const struct stat* existing, std::string_view content) {
  // The process id keeps two runs writing one path apart; O_EXCL never reuses a leftover.
  std::filesystem::path temporary;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temporary = target;
    temporary += ".tmp." + std::to_string(::getpid()) + (attempt > 0 ? "." + std::to_string(attempt) : "");
    fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt >= 100)) throw WriteError(shown, errno_text());
  }
  try {
    if (existing != nullptr) {
      if (::fchmod(fd, existing->st_mode & 07777) != 0) throw WriteError(shown, errno_text());
      // Only a privileged process can give a file to another owner; anyone else keeps the file
      // as theirs, as an editor saving it would.
      if (existing->st_uid != ::geteuid() || existing->st_gid != ::getegid()) {
        if (::fchown(fd, existing->st_uid, existing->st_gid) != 0) {
          // not permitted: the new file is ours
        }
      }
    }
    write_all(fd, content, shown);
    if (::fsync(fd) != 0) throw WriteError(shown, errno_text());
    const int closed = ::close(fd);
    fd = -1;
    if (closed != 0) throw WriteError(shown, errno_text());
    if (::rename(temporary.c_str(), target.c_str()) != 0) throw WriteError(shown, errno_text());
  } catch (...) {
    if (fd >= 0) ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
}

bool is_standard_output(const struct stat& status) {
  struct stat out {};
  return ::fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == status.st_dev && out.st_ino == status.st_ino;
}

void claim_standard_output(const std::filesystem::path& path, std::string_view content) {
  OutputState& state = output_state();
  const std::lock_guard lock(state.mutex);
  if (state.standard_output) {
    throw WriteError(path, "another output already goes to standard output (name a file for one of them)");
  }
  state.standard_output = std::string(content);
}

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view content, InputOverwrite inputs) {
  if (path.empty()) throw WriteError(path, "an empty file name");
  if (path == "-") {
    claim_standard_output(path, content);
    return;
  }
  const std::filesystem::path target = follow_links(path);
  struct stat status {};
  const bool exists = ::stat(path.c_str(), &status) == 0;
  if (!exists && errno != ENOENT) throw WriteError(path, errno_text());
  if (exists && inputs == InputOverwrite::refuse && scenarios::is_input_file(scenarios::file_identity(status))) {
    throw WriteError(path, "it is one of this command's input files (name another file for the output)");
  }
  if (exists && S_ISDIR(status.st_mode)) throw WriteError(path, "is a directory");
  if (exists && is_standard_output(status)) {
    claim_standard_output(path, content);
    return;
  }
  if (exists && !S_ISREG(status.st_mode)) {
    // By its own name: a device or FIFO behind a "magic" link such as /proc/self/fd/N opens right.
    write_in_place(path, content);
  } else {
    replace_atomically(path, target, exists ? &status : nullptr, content);
  }
}

std::optional<std::string> take_standard_output_file() {
  OutputState& state = output_state();
  const std::lock_guard lock(state.mutex);
  std::optional<std::string> content = std::move(state.standard_output);
  state.standard_output.reset();
  return content;
}

}  // namespace clustersim::tools
