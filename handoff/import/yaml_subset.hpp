#pragma once
/// A reader of the YAML that configuration override files use (Megatron-Bridge / NeMo 2 recipe
/// overrides): nested mappings by indentation (spaces), scalars (plain, 'single' or "double"
/// quoted), sequences of scalars as `- item` lines or `[a, b]`, comments, a leading `---`.
/// Limitations (each refused with its line number): tabs in indentation, anchors (&), aliases (*),
/// tags (!), block scalars (| and >), flow mappings ({...}), nested flow sequences, sequence items
/// that are mappings or sequences, duplicate keys, several documents.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace clustersim::handoff {

struct YamlNode {
  enum class Kind { scalar, mapping, sequence };
  Kind kind = Kind::scalar;
  std::string scalar{};  // quotes removed; "" for a key with no value (null)
  bool quoted = false;
  std::vector<std::pair<std::string, YamlNode>> entries{};  // a mapping's, in file order
  std::vector<YamlNode> items{};                           // a sequence's
  std::size_t line = 0;                                    // 1-based
};

/// "line N: what"; the caller prefixes the file name.
class YamlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The document of `text` (an empty one is an empty mapping). Throws YamlError.
YamlNode parse_yaml(std::string_view text);

/// One entry per scalar: its dotted path ("model.tensor_model_parallel_size") and text; a
/// sequence of scalars is one entry, "[a, b]". Mappings in file order.
std::vector<std::pair<std::string, std::string>> flatten_yaml(const YamlNode& root);

/// `value` as a YAML plain scalar where it reads back as the same string, else double-quoted.
std::string yaml_scalar(std::string_view value);

}  // namespace clustersim::handoff
