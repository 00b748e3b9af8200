// Activation recomputation (gradient checkpointing): the backward pass reads recomputed copies
// of the forward's activations instead of the originals, so that the originals die with the
// forward pass and only the checkpoints (each layer's output) live until the backward.
#pragma once

#include "ggml.h"

#include <unordered_set>
#include <vector>

namespace hone {

// Rewrites `gb` (forward nodes [0, n_forward), then the backward) in place: every backward
// node's source or view source that is a forward node outside `keep` becomes a clone of it,
// built recursively from `keep`, the graph's leafs and other clones, and placed just before the
// first backward node that reads it. Returns the number of clones added. The graph must have
// room for them (its size) and `ctx` for their tensor objects.
int recompute_activations(ggml_context * ctx, ggml_cgraph * gb, int n_forward, const std::unordered_set<const ggml_tensor *> & keep);

// The forward nodes worth keeping when recomputing: `checkpoints` (the layers' outputs) and every
// forward node that does not lead to the last of them (the output head and the loss), which
// would cost as much to recompute as it saves, except what leads to one of `rebuilt` from the
// checkpoints (the logits of a head in chunks: each is rebuilt just before its backward).
std::unordered_set<const ggml_tensor *> recompute_keep_set(ggml_cgraph * gb, int n_forward, const std::vector<ggml_tensor *> & checkpoints,
                                                           const std::vector<ggml_tensor *> & rebuilt = {});

// Selective recomputation (where selective_recompute_mode puts it): the forward nodes worth keeping
// are all but the cheap elementwise ones (norms, RoPE, gated activations, scales, sums, views)
// that can be rebuilt from tensors the backward reads anyway, so a layer's normalised inputs,
// rotated Q and K and the FFN's activation no longer live until the backward. A rebuilt tensor
// never keeps alive anything the backward would not have read; tensors of fewer than
// `min_elements` are kept (their clones would save nothing).
std::unordered_set<const ggml_tensor *> selective_keep_set(ggml_cgraph * gb, int n_forward, int64_t min_elements);

// When the trainer uses selective recomputation (full recomputation off). HONE_SELECTIVE_RECOMPUTE
// = 0: never (to measure what it costs), 1: always, auto: only where the plain graph's memory plan
// does not fit. Unset: always when the CPU trains (it costs little there), auto on a
// GPU (about 5 % of a step there, for 27 % less memory: docs/training.md).
enum class SelectiveMode { OFF, ON, AUTO };
SelectiveMode selective_recompute_mode(const char * env_value, bool gpu);
// the same, from the environment
SelectiveMode selective_recompute_mode(bool gpu);
// Whether HONE_SELECTIVE_RECOMPUTE is set (the mode was asked for, not the backend's default).
bool selective_recompute_asked();

} // namespace hone
