// The training graph's forward pass for llama-family models, written to match llama.cpp's
// inference graph op for op (same LoRA placement, RoPE, norms, masking), except that
// attention reads the micro-batch's own K and V instead of a KV cache, so K and V (and
// everything below them) get gradients.
#pragma once

#include "delta_net.h"
#include "ggml.h"
#include "ggml-backend.h"

#include <cstddef>
#include <cstdint>
#include <vector>

struct hone_model;
struct hone_adapter;

namespace hone {

struct ForwardInputs {
    // The context llama.cpp would run this graph in: LongRoPE picks its long factors past the original
    // context (training: the window; check-forward: llama.cpp's context, padded to 256)
    int n_ctx = 0;
    ggml_tensor * tokens = nullptr;  // I32 [T*B]
    ggml_tensor * pos = nullptr;     // I32 [T*B * n_pos], 0..T-1 per sequence (M-RoPE: section-major)
    ggml_tensor * kq_mask = nullptr; // F32 [T, T, 1, R], 0 or -inf (causal); ALiBi: [T, T, n_head, R], the heads' biases
    ggml_tensor * kq_mask_swa = nullptr; // F32 [T, T, 1, R], for sliding-window layers (Hparams::n_swa > 0)
    ggml_tensor * kq_mask_f16 = nullptr;     // F16 [T, T, 1, R]: kq_mask (plane 0) for fused attention
    ggml_tensor * kq_mask_swa_f16 = nullptr; // F16 [T, T, 1, R]: kq_mask_swa for fused attention
    // Packed rows (several sequences in one row, attention within each): the masks have one
    // plane per row (R = B; else R = 1, the same for every row) and are not exactly causal.
    bool packed = false;
    // The gradient check's finite-difference side: GELU built from TANH and products, because
    // ggml's CPU GELU reads an fp16 table, a step function at the scale of a finite difference.
    bool smooth_gelu = false;
    ggml_tensor * row_mask = nullptr; // optional F32 [1, T*B]: rows multiplied by 0 before the output head
    ggml_backend_t attention_backend = nullptr; // whose supports_op decides fused attention; null: the model's primary
    // Mistral 3's attention temperature (Hparams::attn_temp_scale): F32 [1, 1, T*B], Q's factor per
    // position, computed from the positions by set_positions
    ggml_tensor * attn_temp = nullptr;
    float attn_temp_scale = 0.0f;
    int attn_temp_floor = 0;
    DeltaNetInputs dn; // gated delta-net layers' constants (Qwen3.5); empty otherwise
};

struct Hparams;

// Graph size (nodes) for a forward + backward + accumulation graph of T tokens per sequence:
// measured at about 3x the forward graph; llama.cpp's inference-sized graph overflows at 16
// layers, so size from layers, plus the delta-net layers' chunk loops (delta_net.h).
size_t training_graph_size(const Hparams & hp, int T);

// Names a layer's tensor "what-il" (the op report and profiles read these names).
inline ggml_tensor * tag(ggml_tensor * t, const char * what, int il) {
    ggml_format_name(t, "%s-%d", what, il);
    return t;
}

// GELU's tanh form; `smooth`: built from TANH and products, 0.5 g (1 + tanh(c (g + a g^3))), the
// function ggml's GELU tabulates (the gradient check's finite differences need it smooth).
ggml_tensor * gelu(ggml_context * ctx, ggml_tensor * g, bool smooth);

// Inputs are created in ctx and flagged as graph inputs. B = sequences, T = tokens each;
// hp.n_pos_per_token() positions per token.
ForwardInputs make_forward_inputs(ggml_context * ctx, const Hparams & hp, int T, int B, bool packed = false);

// Whether layer il's fused-attention mask is exactly causal (0 up to the query, -inf past it),
// the promise its FLASH_ATTN_EXT node carries (ggml_flash_attn_ext_set_causal_exact, patch
// 0019): CUDA's fused forward and backward then hide keys by position and never read the mask.
// Windowed layers' masks and ALiBi's biases are not exactly causal.
bool attention_mask_exactly_causal(const Hparams & hp, int il);

// Uploads one position per token, repeated into M-RoPE's sections (t, t, t, 0) when the
// inputs take 4 per token.
void set_positions(const ForwardInputs & in, const std::vector<int32_t> & pos);

// Logits [n_vocab, T*B].
ggml_tensor * build_forward(ggml_context * ctx, const hone_model & m, const hone_adapter * ad, const ForwardInputs & in, int T, int B,
                            std::vector<ggml_tensor *> * layer_outputs = nullptr);
// build_forward in two parts: the layers and the final norm (times the row mask), [n_embd,
// T*B], then the output head over any rows of it.
ggml_tensor * build_trunk(ggml_context * ctx, const hone_model & m, const hone_adapter * ad, const ForwardInputs & in, int T, int B,
                          std::vector<ggml_tensor *> * layer_outputs = nullptr);
ggml_tensor * build_head(ggml_context * ctx, const hone_model & m, const hone_adapter * ad, ggml_tensor * cur);

// With recomputation the head and the loss run in chunks of rows whose F32 logits stay within
// this bound: each chunk's logits are rebuilt just before their backward, so one chunk's live
// at a time instead of [n_vocab, T*B].
constexpr int64_t HEAD_CHUNK_BYTES = 256ll << 20;
// Rows per chunk for the model's vocabulary: a power of two, at least 16.
int head_chunk_rows(const Hparams & hp);

struct LossInputs {
    ggml_tensor * targets = nullptr;    // I32 [T*B], the target token of each row, -1 on rows without loss
    ggml_tensor * loss_mask = nullptr;  // F32 [1, T*B], 1 on loss positions (the rows the head reads)
    ggml_tensor * loss_scale = nullptr; // F32 [1], rows / loss tokens of the whole optimizer step
};

// The loss's inputs, created in ctx and flagged as graph inputs.
LossInputs make_loss_inputs(ggml_context * ctx, int n_rows);

// Sum of cross-entropy over loss positions divided by the step's loss-token count (through
// loss_scale). The cross-entropy reads one class index per row (patch 0009): rows without
// loss (-1) add nothing and get a zero gradient, so no [n_vocab, rows] one-hot labels exist,
// and the logits' gradient is computed in the logits' own memory. Masked rows also reach the
// output head as zero vectors (ForwardInputs::row_mask = li.loss_mask).
ggml_tensor * build_loss(ggml_context * ctx, ggml_tensor * logits, const LossInputs & li);

struct TrainingLoss {
    ForwardInputs in;
    LossInputs li;
    ggml_tensor * loss = nullptr; // flagged as the graph's output and loss
    std::vector<ggml_tensor *> layer_outputs; // the embeddings, then each layer's output: recomputation's checkpoints
    ggml_tensor * head_input = nullptr;        // in chunks only: the final norm's output the chunks read
    std::vector<ggml_tensor *> head_logits;    // in chunks only: each chunk's logits (recomputed, not kept)
};

// The loss of B sequences of T tokens through the model and adapter, with its inputs (the
// loss mask also zeroes masked rows before the head): what training and the gradient check share.
// `attention_backend`: see ForwardInputs (tests schedule a stand-in GPU first).
// `chunk_rows` > 0 and below T*B: the head and the loss in chunks of that many rows (the same
// loss up to rounding).
// `packed`: the rows may hold several sequences each (ForwardInputs::packed).
TrainingLoss build_training_loss(ggml_context * ctx, const hone_model & m, const hone_adapter & ad, int T, int B,
                                 ggml_backend_t attention_backend = nullptr, int chunk_rows = 0, bool packed = false);

// Uploads the causal masks for T tokens. With ALiBi each head's plane holds its bias,
// slope * -(distance), with ggml's slopes: ggml has no backward for SOFT_MAX's own ALiBi, so
// the graph adds the same bias through the mask instead. Unpacked, the same for every
// micro-batch of a graph's allocation (the masks are outputs: no node reuses their memory).
// Packed (in.packed), `segments` gives every position of every row (T * B, row-major) the
// sequence it belongs to: a query sees only earlier keys of its own sequence (block-diagonal
// causal); null: each row one sequence.
void set_attention_masks(const ForwardInputs & in, const Hparams & hp, int T, const std::vector<int32_t> * segments = nullptr);
// set_attention_masks and the delta-net layers' chunk triangles.
void set_causal_mask(const ForwardInputs & in, const Hparams & hp, int T);

} // namespace hone
