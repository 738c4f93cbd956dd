#pragma once
/// The data files under scenarios/ (presets, example scenarios, validation CSVs) and the bundled
/// calibration profiles ("calibration/profiles/<gpu>.json"), compiled into
/// the library so the binary works from any directory and never reads them at run time.
/// The definition is generated at build time by scenarios/embed_presets.cmake.

#include <span>
#include <string_view>

namespace clustersim::scenarios {

struct EmbeddedFile {
  std::string_view path{};  // relative to scenarios/, e.g. "presets/gpus/h100-sxm.json"
  std::string_view text{};
};

/// Every embedded file, sorted by path.
std::span<const EmbeddedFile> embedded_files();

/// The file at `path`, or nullptr.
const EmbeddedFile* find_embedded_file(std::string_view path);

}  // namespace clustersim::scenarios
