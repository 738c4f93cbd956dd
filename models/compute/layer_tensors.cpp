#include "models/compute/layer_tensors.hpp"

#include "models/spec/attention_shape.hpp"

#include <array>
#include <span>

namespace clustersim::models {

namespace {

// One module's parameter tensors (at most a weight and a bias), in elements.
struct Module {
  std::array<double, 2> tensors{};
  int count = 0;

  double params() const { return tensors[0] + tensors[1]; }
};

Module module_of(double weight, double bias = 0.0) {
  return bias > 0.0 ? Module{{weight, bias}, 2} : Module{{weight, 0.0}, 1};
}

// A module at work in a pass: the parameters it holds gathered, and the tensors it gathers first
// (0 where they stay gathered from before).
struct Use {
  double live = 0;
  double gathers = 0;
};

// Gathers issued ahead in a pass whose uses repeat cyclically (layer after layer): a module's
// gathers are prefetched when the module before it holds fewer than max_live parameters.
double prefetched(std::span<const Use> uses, double max_live) {
  double out = 0.0;
  for (std::size_t i = 0; i < uses.size(); ++i) {
    const Use& before = uses[(i + uses.size() - 1) % uses.size()];
    if (max_live <= 0.0 || before.live < max_live) out += uses[i].gathers;
  }
  return out;
}

}  // namespace

double kv_width_per_rank(const TransformerSpec& model, std::int64_t tp) {
  const std::int64_t kv_heads = attention_kv_heads(model);
  const std::int64_t kv_heads_per_rank = (kv_heads + tp - 1) / tp;  // replicated if g < tp
  return static_cast<double>(kv_heads_per_rank * qk_head_dim(model));
}

LayerTensors layer_parameter_tensors(const TransformerSpec& model, std::int64_t tp, const TensorRules& rules,
                                     bool recomputed) {
  const auto h = static_cast<double>(model.hidden);
  const auto f = static_cast<double>(model.ffn_hidden);
  const auto t = static_cast<double>(tp);
  const double kv = kv_width_per_rank(model, tp);
  const double q = static_cast<double>(model.heads * head_dim_of(model));  // h when heads are h / a wide
  std::array<Module, 9> modules{};
  std::size_t count = 0;
  auto add = [&](Module m) { modules[count++] = m; };
  if (model.mlp == MlpKind::swiglu) {
    add(module_of(h));          // RMSNorm
    add(module_of(h * q / t));  // q, k, v, output projection
    add(module_of(h * kv));
    add(module_of(h * kv));
    add(module_of(h * q / t));
    add(module_of(h));          // RMSNorm
    for (int m = 0; m < 3; ++m) add(module_of(h * f / t));  // gate, up, down
  } else {
    add(module_of(h, h));                                      // LayerNorm
    add(module_of(h * (q / t + 2.0 * kv), q / t + 2.0 * kv));  // fused QKV
    add(module_of(h * q / t, h));                              // projection
    add(module_of(h, h));                                      // LayerNorm
    add(module_of(h * f / t, f / t));                          // MLP matrices
    add(module_of(h * f / t, h));
  }
  const std::span<const Module> layer(modules.data(), count);
  LayerTensors out;
  // Per module (forward order): its gathered tensors and their elements, and whether a recomputed
  // forward releases it (the modules after it, recomputed then backpropagated, 2 x their params).
  std::array<double, 9> gathered_tensors{}, gathered_params{};
  std::array<bool, 9> released{};
  double after = 0.0;
  for (std::size_t i = layer.size(); i-- > 0;) {
    const Module& m = layer[i];
    released[i] = recomputed && rules.reuse_distance > 0.0 && 2.0 * after >= rules.reuse_distance;
    for (int k = 0; k < m.count; ++k) {
      out.tensors += 1.0;
      if (m.tensors[k] < rules.persistence_threshold) continue;
      gathered_tensors[i] += 1.0;
      gathered_params[i] += m.tensors[k];
    }
    out.gathered += gathered_tensors[i];
    out.gathered_params += gathered_params[i];
    if (released[i]) out.regathered += gathered_tensors[i];
    after += m.params();
  }
  // The passes' sequences of modules that hold gathered parameters (persistent-only ones are
  // skipped by the prefetch and compute next to nothing).
  std::array<Use, 18> forward{}, backward{};
  std::size_t nf = 0, nb = 0;
  for (std::size_t i = 0; i < layer.size(); ++i)
    if (gathered_tensors[i] > 0.0) forward[nf++] = {.live = gathered_params[i], .gathers = gathered_tensors[i]};
  if (recomputed)
    for (std::size_t i = 0; i < nf; ++i) backward[nb++] = forward[i];
  for (std::size_t i = layer.size(); i-- > 0;) {
    if (!(gathered_tensors[i] > 0.0)) continue;
    const bool gathers = !recomputed || released[i];
    backward[nb++] = {.live = gathered_params[i], .gathers = gathers ? gathered_tensors[i] : 0.0};
  }
  out.prefetched_forward = prefetched(std::span<const Use>(forward.data(), nf), rules.max_live);
  out.prefetched_backward = prefetched(std::span<const Use>(backward.data(), nb), rules.max_live);
  return out;
}

}  // namespace clustersim::models
