#pragma once
/// The shape of a decoder-only transformer (GPT, Llama): enough to count its FLOPs, bytes and memory.

#include <cstdint>
#include <string>

namespace clustersim::models {

enum class MlpKind { gelu, swiglu };  // gelu: 2 matrices (also squared ReLU); swiglu: 3 matrices

struct TransformerSpec {
  std::string name;
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t ffn_hidden = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;  // = heads for multi-head attention; fewer for grouped-query attention
  std::int64_t vocab = 0;
  MlpKind mlp = MlpKind::swiglu;
  bool tied_embeddings = false;  // input embedding and logits share one matrix
  // Dropout probability of the hidden states (after attention, after the MLP, after the
  // embedding) and of the attention probabilities; 0: the model trains without dropout and stores
  // no dropout masks (PyTorch's dropout returns its input unchanged at p = 0).
  double dropout = 0.0;

  friend bool operator==(const TransformerSpec&, const TransformerSpec&) = default;
};

}  // namespace clustersim::models
