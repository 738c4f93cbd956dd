#include "scenarios/bounded_input.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>

#include "scenarios/scenario_error.hpp"

namespace clustersim::scenarios {
namespace {

std::mutex& inputs_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::set<FileIdentity>& inputs_read() {
  static std::set<FileIdentity> inputs;
  return inputs;
}

std::string limit_text(std::size_t limit) {
  if (limit % (std::size_t{1} << 20) == 0) return std::to_string(limit >> 20) + " MiB";
  return std::to_string(limit) + " bytes";
}

// Closes the descriptor on every path out of the reader.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_input_file_bounded(const std::filesystem::path& path, std::size_t limit) {
  const std::string name = path.string();
  const auto fail = [&](const std::string& rule) -> ScenarioError { return ScenarioError(name, "", rule); };
  if (name.empty()) throw fail("an empty file name");
  Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    if (errno == ENOENT) throw fail("no such file");
    throw fail(std::string("cannot open the file: ") + std::strerror(errno));
  }
  struct stat status {};
  if (::fstat(file.fd, &status) != 0) throw fail(std::string("cannot read the file: ") + std::strerror(errno));
  if (S_ISDIR(status.st_mode)) throw fail("is a directory, not a file");
  const std::string over_limit = "larger than the " + limit_text(limit) + " limit for input files";
  if (S_ISREG(status.st_mode) && static_cast<std::uintmax_t>(status.st_size) > limit) throw fail(over_limit);

  std::string text;
  if (S_ISREG(status.st_mode)) text.reserve(static_cast<std::size_t>(status.st_size));
  char chunk[1 << 16];
  while (true) {
    const ssize_t got = ::read(file.fd, chunk, sizeof chunk);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw fail(std::string("cannot read the file: ") + std::strerror(errno));
    }
    if (got == 0) break;
    if (text.size() + static_cast<std::size_t>(got) > limit) throw fail(over_limit);
    text.append(chunk, static_cast<std::size_t>(got));
  }
  const std::lock_guard lock(inputs_mutex());
  inputs_read().insert(file_identity(status));
  return text;
}

FileIdentity file_identity(const struct stat& status) {
  return {.device = status.st_dev,
          .inode = status.st_ino,
          .changed_ns = static_cast<std::int64_t>(status.st_ctim.tv_sec) * 1'000'000'000 + status.st_ctim.tv_nsec};
}

std::optional<FileIdentity> file_identity(const std::filesystem::path& path) {
  struct stat status {};
  if (::stat(path.c_str(), &status) != 0) return std::nullopt;
  return file_identity(status);
}

bool is_input_file(const FileIdentity& identity) {
  const std::lock_guard lock(inputs_mutex());
  return inputs_read().contains(identity);
}

}  // namespace clustersim::scenarios
