#pragma once
/// Reads a Megatron-LM launch as people write it into pretrain_gpt.py's arguments:
///  - a launch script (bash): `VAR=value` and `export VAR=value` lines, bash arrays
///    (`ARGS=( ... )`, `ARGS+=( ... )`) with comments, `$VAR`, `${VAR}`, `${VAR:-default}`,
///    `${ARRAY[@]}` and `$((a * b))` expansions, `\`-continued lines, `if [[ ... ]]; then / elif /
///    else / fi` blocks whose conditions compare strings (`==`, `!=`, `-z`, `-n`, joined by `||` and
///    `&&`), and one launcher line (torchrun, python -m torch.distributed.run/launch, or python)
///    that runs a .py script: its --nnodes and --nproc-per-node give the world size;
///  - a bare command line or arguments file ("--tensor-model-parallel-size 8 --num-layers 80 ...");
///  - the `arguments` block Megatron-LM prints at start-up ("  tensor_model_parallel_size ..... 8").
/// Limitations: other shell syntax (functions, loops, command substitution, here-documents) is not
/// run: a word holding it is kept as written. A condition it cannot evaluate is taken as false (its
/// else branch runs), said in the notes.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "handoff/frameworks/megatron_lm_rules.hpp"

namespace clustersim::handoff {

struct MegatronScript {
  MegatronArguments arguments{};  // world_size: nnodes x nproc_per_node where the launcher says both
  std::int64_t nnodes = 0;        // 0: not said
  std::int64_t nproc_per_node = 0;
  std::vector<std::string> notes{};  // what the reading assumed
};

/// The arguments of `text`; throws std::invalid_argument ("line N: ...") for text that has no
/// Megatron-LM arguments or an unterminated quote or array.
MegatronScript read_megatron_script(std::string_view text);

}  // namespace clustersim::handoff
