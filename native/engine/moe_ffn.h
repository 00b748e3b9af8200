// A mixture-of-experts FFN (arch::Moe), built as llama.cpp's build_moe_ffn builds it, op for op,
// so the forward pass equals llama.cpp inference.
#pragma once

#include "ggml.h"

namespace hone {

struct Hparams;
struct LayerWeights;

// The FFN of the normed input x [n_embd, n_tokens] through layer L's router and experts.
// Gradients: to x through the router's softmax, the selected weights and the experts
// (MUL_MAT_ID's backward, patch 0010); the experts and the router are frozen, and top-k
// selection itself has no gradient (its indices are integers).
ggml_tensor * moe_ffn(ggml_context * ctx, const Hparams & hp, const LayerWeights & L, ggml_tensor * x, int il);

} // namespace hone
