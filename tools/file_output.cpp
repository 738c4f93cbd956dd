#include "tools/file_output.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <system_error>

namespace clustersim::tools {

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  // The process id keeps two concurrent runs writing the same path from sharing a temporary.
  std::filesystem::path temporary = path;
  temporary += ".tmp." + std::to_string(::getpid());
  const auto failure = [&](const std::string& reason) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    return std::runtime_error("cannot write " + path.string() + ": " + reason);
  };
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) throw failure(std::strerror(errno));
    file.write(content.data(), static_cast<std::streamsize>(content.size()));
    file.close();
    if (!file) throw failure(std::strerror(errno));
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) throw failure(error.message());
}

}  // namespace clustersim::tools
