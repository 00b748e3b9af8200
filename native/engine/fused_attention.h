// Whether a layer's attention runs as one fused op (ggml_flash_attn_ext, and for training its
// backward, patches 0007/0008) instead of the unfused graph (scores, softmax, products).
#pragma once

#include "ggml-backend.h"

namespace hone {

// HONE_FUSED_ATTENTION=0 keeps every layer unfused: the workaround if the fused op misbehaves
// on some backend, and the "before" of a benchmark.
bool fused_attention_allowed();

// Whether `backend` runs the fused forward kqv (a FLASH_ATTN_EXT node) and its backward.
// Backends without them (Metal today) keep the unfused graph, which every backend trains.
bool backend_runs_fused_attention(ggml_backend_t backend, ggml_tensor * kqv);

// Gives kqv (exactly causal, no sinks or soft cap) a log-sum-exp output `lse` (F32 [T, heads,
// B], patch 0023) where its backward reads it instead of recomputing it: a GPU backend that
// accepts the node with it (CUDA's training forward writes it). Elsewhere, or with
// HONE_ATTENTION_LSE=0 (benchmarks' "before"), kqv stays as it was. True if it was set.
bool give_attention_lse(ggml_backend_t backend, ggml_tensor * kqv, ggml_tensor * lse);

} // namespace hone
