// A mixture-of-experts FFN (arch::Moe), built as llama.cpp's build_moe_ffn builds it, op for op,
// so the forward pass equals llama.cpp inference.
#pragma once

#include "ggml.h"

namespace hone {

struct Hparams;
struct LayerWeights;

// The FFN of the normed input x [n_embd, n_tokens] through layer L's router and experts; the
// router reads router_in (x itself but for Gemma 4's, which routes from its own norm of the
// layer's input). Gradients: to x and router_in through the router's softmax, the selected
// weights and the experts (MUL_MAT_ID's backward, patch 0010); the experts and the router are
// frozen, and top-k selection itself has no gradient (its indices are integers).
// smooth_gelu: GEGLU experts' GELU from TANH and products (the gradient check's).
ggml_tensor * moe_ffn(ggml_context * ctx, const Hparams & hp, const LayerWeights & L, ggml_tensor * x, ggml_tensor * router_in, int il,
                      bool smooth_gelu);

} // namespace hone
