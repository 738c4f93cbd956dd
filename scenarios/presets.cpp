#include "scenarios/presets.hpp"

#include <nlohmann/json.hpp>

#include "scenarios/embedded_files.hpp"

namespace clustersim::scenarios {
namespace {

constexpr std::string_view gpu_dir = "presets/gpus/";
constexpr std::string_view model_dir = "presets/models/";
constexpr std::string_view extension = ".json";

std::vector<std::string> names_in(std::string_view dir) {
  std::vector<std::string> names;
  for (const auto& file : embedded_files()) {  // sorted by path, so names come out sorted
    if (file.path.starts_with(dir) && file.path.ends_with(extension)) {
      auto name = file.path.substr(dir.size());
      name.remove_suffix(extension.size());
      if (name.find('/') == std::string_view::npos) names.emplace_back(name);
    }
  }
  return names;
}

std::string_view text_of(std::string_view dir, std::string_view name) {
  const std::string path = std::string(dir) + std::string(name) + std::string(extension);
  const auto* file = find_embedded_file(path);
  return file ? file->text : std::string_view{};
}

}  // namespace

std::vector<std::string> gpu_preset_names() { return names_in(gpu_dir); }
std::vector<std::string> model_preset_names() { return names_in(model_dir); }
std::string_view gpu_preset_text(std::string_view name) { return text_of(gpu_dir, name); }
std::string_view model_preset_text(std::string_view name) { return text_of(model_dir, name); }

std::string gpu_compute_profile(std::string_view gpu) {
  const std::string_view text = gpu_preset_text(gpu);
  if (text.empty()) return std::string(gpu);
  // A malformed key is an error of the preset reader (gpu_preset), which every scenario goes through.
  const auto document = nlohmann::json::parse(text);
  const auto profile = document.find(kComputeProfileKey);
  return profile != document.end() && profile->is_string() ? profile->get<std::string>() : std::string(gpu);
}

}  // namespace clustersim::scenarios
