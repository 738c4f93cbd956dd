#include "tools/render/op_table.hpp"

#include <fmt/format.h>

namespace clustersim::tools {

namespace {

std::string kind_text(const models::OpCost& op) {
  switch (op.kind) {
    case models::OpKind::gemm: return "gemm";
    case models::OpKind::attention:
      return fmt::format("attention ({}{})", models::attention_kernel_name(op.attention_kernel),
                         op.attention_fp8 ? ", fp8" : "");
    case models::OpKind::attention_gemm: return "attention gemm";
    case models::OpKind::elementwise: return "memory-bound";
  }
  return "?";
}

std::string shape_text(const models::OpCost& op) {
  if (op.gemm_m == 0) return "";
  const std::string shape = fmt::format("{}x{}x{}", op.gemm_m, op.gemm_n, op.gemm_k);
  return op.gemm_groups > 1 ? fmt::format("{} x{}", shape, op.gemm_groups) : shape;
}

// Achieved rates; 0 where the op has no FLOPs (or bytes) or takes no time.
double per_s(double amount, double seconds) { return seconds > 0.0 ? amount / seconds : 0.0; }

}  // namespace

nlohmann::ordered_json ops_json(const std::vector<models::TimedOp>& ops) {
  auto out = nlohmann::ordered_json::array();
  for (const models::TimedOp& t : ops) {
    nlohmann::ordered_json j;
    j["part"] = models::op_part_name(t.part);
    j["name"] = t.op.name;
    j["kind"] = kind_text(t.op);
    if (t.op.gemm_m > 0)
      j["gemm"] = {{"m", t.op.gemm_m}, {"n", t.op.gemm_n}, {"k", t.op.gemm_k}, {"groups", t.op.gemm_groups}};
    j["flops"] = t.op.flops;
    j["hbm_bytes"] = t.op.bytes;
    j["kernels"] = t.op.kernels;
    j["time_s"] = t.seconds;
    j["tflops_per_s"] = per_s(t.op.flops, t.seconds) / 1e12;
    j["hbm_gb_per_s"] = per_s(t.op.bytes, t.seconds) / 1e9;
    out.push_back(std::move(j));
  }
  return out;
}

std::string ops_text(const std::vector<models::TimedOp>& ops) {
  std::string out =
      "\n  compute of one micro-batch on one GPU, op by op (a layer's ops once; the stages run them for each of "
      "their\n  layers; the embedding on the first stage, the output layer on the last). FLOPs as executed (a "
      "causal\n  attention's half of the score matrix). Times are each op's roofline plus its launch gaps: "
      "without the\n  CPU's issue, the slowdown beside communication, communication and the optimizer step, "
      "which the stage\n  times above include.\n\n";
  out += fmt::format("  {:<20} {:<24} {:<22} {:>20} {:>10} {:>9} {:>10} {:>7} {:>7}\n", "part", "op", "kind",
                     "gemm m x n x k", "GFLOP", "HBM MB", "time us", "TF/s", "GB/s");
  models::OpPart part = ops.empty() ? models::OpPart::layer_forward : ops.front().part;
  double part_s = 0.0;
  const auto close_part = [&] {
    out += fmt::format("  {:<45}{:>76.1f}\n", fmt::format("{} total", models::op_part_name(part)), part_s * 1e6);
  };
  for (const models::TimedOp& t : ops) {
    if (t.part != part) {
      close_part();
      part = t.part;
      part_s = 0.0;
    }
    part_s += t.seconds;
    out += fmt::format("  {:<20} {:<24} {:<22} {:>20} {:>10.2f} {:>9.1f} {:>10.1f} {:>7.1f} {:>7.0f}\n",
                       models::op_part_name(t.part), t.op.name, kind_text(t.op), shape_text(t.op), t.op.flops / 1e9,
                       t.op.bytes / 1e6, t.seconds * 1e6, per_s(t.op.flops, t.seconds) / 1e12,
                       per_s(t.op.bytes, t.seconds) / 1e9);
  }
  if (!ops.empty()) close_part();
  return out;
}

}  // namespace clustersim::tools
