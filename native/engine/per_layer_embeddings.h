// Gemma 4's per-layer embeddings, as llama.cpp's gemma4 graph builds them: every layer gets a
// slice of width n_epl made of a frozen table row per token (per_layer_token_embd, times √n_epl)
// and a projection of the scaled token embeddings (per_layer_model_proj, times 1/√n_embd,
// RMS-normed), the two summed times 1/√2; after its FFN the layer adds
// norm(proj(gelu(gate · x) * slice)) to its output.
#pragma once

#include "ggml.h"

struct hone_model;

namespace hone {

struct LayerWeights;

// The table's rows of the tokens for every layer, scaled: [n_epl * n_layer, tokens]. Frozen:
// nothing here needs a gradient.
ggml_tensor * per_layer_table_rows(ggml_context * ctx, const hone_model & m, ggml_tensor * tokens);

// Layer il's slice [n_epl, tokens] of the per-layer inputs. Computed per layer from its rows of
// the projection (the same products as llama.cpp's one projection of all layers), so the
// backward adds into the embeddings' gradient with no [n_epl, tokens, n_layer] accumulations.
ggml_tensor * per_layer_input(ggml_context * ctx, const hone_model & m, ggml_tensor * rows, ggml_tensor * embd, int il);

// x + norm(proj(gelu(gate · x) * input)): the layer's per-layer embedding added to its output.
// `smooth_gelu`: GELU from TANH and products (the gradient check's finite differences).
ggml_tensor * add_per_layer_embedding(ggml_context * ctx, const hone_model & m, const LayerWeights & L, ggml_tensor * x,
                                      ggml_tensor * input, bool smooth_gelu);

} // namespace hone
