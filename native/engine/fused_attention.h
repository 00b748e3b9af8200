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

} // namespace hone
