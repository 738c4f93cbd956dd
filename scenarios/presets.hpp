#pragma once
/// Named GPU types and transformer shapes, read from the data files under scenarios/presets/
/// (embedded at build time). Every value in those files carries its source in a "sources" object.
/// A scenario names a preset ("cluster.gpu": "h100-sxm", "model.preset": "llama3-70b") and may
/// override any of its fields.

#include <string>
#include <string_view>
#include <vector>

#include "models/spec/gpu_spec.hpp"
#include "models/spec/transformer_spec.hpp"

namespace clustersim::scenarios {

/// Sorted preset names, e.g. {"a100-80gb", "b200", ...}.
std::vector<std::string> gpu_preset_names();
std::vector<std::string> model_preset_names();

/// The preset in SI units. Throws ScenarioError listing the known names for an unknown one.
models::GpuSpec gpu_preset(std::string_view name);
models::TransformerSpec model_preset(std::string_view name);

/// The bundled compute profile (models::default_compute_profile) a GPU runs with: the one its
/// preset names in "compute_profile", for a SKU without kernels measured of its own that borrows
/// those of a like part (h100-96gb-500w -> h100-sxm); else, and for a name that is no preset, the
/// GPU's own name.
std::string gpu_compute_profile(std::string_view gpu);
inline constexpr std::string_view kComputeProfileKey = "compute_profile";

/// The preset's data file as embedded ("" if unknown): for tools that show sources.
std::string_view gpu_preset_text(std::string_view name);
std::string_view model_preset_text(std::string_view name);

}  // namespace clustersim::scenarios
