#include "handoff/export/megatron_args.hpp"

#include <fmt/format.h>

#include "models/step/pipeline_schedule.hpp"

namespace clustersim::handoff {

std::vector<std::string> megatron_args(const models::TransformerSpec& model, const planning::Layout& layout) {
  const auto& p = layout.parallelism;
  const auto& t = layout.training;
  std::vector<std::string> args{fmt::format("--tensor-model-parallel-size {}", p.tp),
                                fmt::format("--pipeline-model-parallel-size {}", p.pp)};
  const std::vector<std::int64_t> split = models::split_layers(model.layers, p.pp, p.vp);
  if (p.vp > 1) args.push_back(fmt::format("--num-layers-per-virtual-pipeline-stage {}", split.at(split.size() / 2)));
  if (p.pp > 1 && split.front() != split.at(split.size() / 2)) {
    // Uneven split: the first and last stages carry the fewer layers (models/step/pipeline_schedule.hpp).
    args.push_back(fmt::format("--decoder-first-pipeline-num-layers {}", split.front()));
    args.push_back(fmt::format("--decoder-last-pipeline-num-layers {}", split.back()));
  }
  if (p.cp > 1) args.push_back(fmt::format("--context-parallel-size {}", p.cp));
  if (p.sp) args.emplace_back("--sequence-parallel");
  args.push_back(fmt::format("--micro-batch-size {}", t.micro_batch));
  args.push_back(fmt::format("--global-batch-size {}", t.global_batch));
  args.push_back(fmt::format("--seq-length {}", t.seq_len));
  switch (t.recompute) {
    case models::Recompute::none: break;
    case models::Recompute::selective: args.emplace_back("--recompute-activations"); break;
    case models::Recompute::full:
      args.emplace_back("--recompute-granularity full");
      args.emplace_back("--recompute-method uniform");
      args.emplace_back("--recompute-num-layers 1");
      break;
    case models::Recompute::op: break;  // torchtitan's policy: Megatron-LM has no flag for it
  }
  switch (p.zero) {
    case 0: break;
    case 1: args.emplace_back("--use-distributed-optimizer"); break;
    case 2:
      args.emplace_back("--use-distributed-optimizer");
      args.emplace_back("# ZeRO-2 (sharded gradients) has no Megatron-LM flag; the distributed optimizer is ZeRO-1");
      break;
    default: args.emplace_back("--use-torch-fsdp2"); break;
  }
  if (t.overlap_grad_reduce && p.zero < 3) args.emplace_back("--overlap-grad-reduce");
  if (t.overlap_param_gather && (p.zero == 1 || p.zero == 2)) args.emplace_back("--overlap-param-gather");
  args.emplace_back(t.precision == models::Precision::fp8 ? "--bf16 --fp8-format hybrid" : "--bf16");
  if (t.cuda_graphs) args.emplace_back("--enable-cuda-graph");
  return args;
}

}  // namespace clustersim::handoff
