// Qwen3.5's gated delta-net layer (linear attention) for training: the same function as
// llama.cpp's ggml_gated_delta_net and ggml_ssm_conv, written with ops ggml can differentiate
// (those two, SIGMOID, L2_NORM, CONCAT and SOLVE_TRI have no backward). The recurrence runs in
// chunks of C tokens as llama.cpp's own chunked path does (its WY form): within a chunk, matrix
// products; across chunks, a [d_k, d_v] state per head. The triangular solve becomes an inverse
// by block doubling (exact, log2 C levels of products), the within-chunk cumulative sum a
// product with a triangle of ones, the causal convolution a sum of shifted views.
#pragma once

#include "ggml.h"

#include <functional>

namespace hone {

struct Hparams;
struct LayerWeights;

// Constants the delta-net layers read, made by make_forward_inputs and uploaded with the
// causal mask (set_causal_mask): chunking, zeros to pad on, and the chunk's triangles.
struct DeltaNetInputs {
    int chunk = 0;                    // C: tokens per chunk, a power of two up to 64
    int t_padded = 0;                 // T rounded up to a multiple of C
    ggml_tensor * zeros = nullptr;    // F32, all 0: the padded input and the output are built on it
    ggml_tensor * lower = nullptr;    // F32 [C, C]: 1 where j <= t (ne0 = j, ne1 = t)
    ggml_tensor * strict = nullptr;   // F32 [C, C]: 1 where j < t
    ggml_tensor * eye = nullptr;      // F32 [C, C]: the identity
    ggml_tensor * halves = nullptr;   // F32 [C, C, log2 C]: level l: 1 where t and j share a block of 2^(l+1) and
                                      // t is in its lower half, j in its upper (the doubling's off-diagonal blocks)
};

// Nodes one delta-net layer adds to a training graph of T tokens per sequence (forward, backward
// and the gradients' accumulation through the chunk loop's views), beyond an attention layer's.
size_t delta_net_graph_nodes(int T);

// Creates the inputs in ctx (flagged as inputs) for B sequences of T tokens.
DeltaNetInputs make_delta_net_inputs(ggml_context * ctx, const Hparams & hp, int T, int B);
// Uploads their values (zeros and triangles).
void set_delta_net_inputs(const DeltaNetInputs & dn);

using MatMul = std::function<ggml_tensor *(ggml_tensor * w, ggml_tensor * x)>; // W·x with the layer's LoRA

// The layer's mixer output [n_embd, T*B] for its normed input x [n_embd, T*B]: projections
// (through `mm`), causal convolution and SiLU, L2-normed Q and K, β = sigmoid, the decay
// softplus(α + dt_bias)·A, the delta rule from a zero state, the gated RMS norm and ssm_out.
ggml_tensor * delta_net(ggml_context * ctx, const Hparams & hp, const LayerWeights & L, const DeltaNetInputs & dn,
                        const MatMul & mm, ggml_tensor * x, int T, int B, int il);

// sigmoid(x) as 0.5 + 0.5·tanh(x / 2): ggml's SIGMOID has no backward, TANH has (patch 0005).
ggml_tensor * sigmoid_differentiable(ggml_context * ctx, ggml_tensor * x);

} // namespace hone
