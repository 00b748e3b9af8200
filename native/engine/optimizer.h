// AdamW over the adapter, run once per optimizer step as small graphs of its own: the
// global gradient norm (for reporting and clipping), then the update on the clipped
// accumulated gradient, then the accumulators are zeroed.
#pragma once

struct hone_trainer;

namespace hone {

// Creates moments, AdamW params and the clip scale in tr.ctx_state, and both optimizer
// graphs, for tr.params (whose param and acc are set).
void build_optimizer(hone_trainer & tr);
// Allocates both graphs' intermediate tensors once tr.ctx_state has its buffer.
void alloc_optimizer(hone_trainer & tr);

// L2 norm of the gradient summed in the accumulators, over every trainable tensor.
float gradient_norm(hone_trainer & tr);

// The factor that brings `norm` down to `max_norm` (1 when max_norm is 0 or not exceeded).
float clip_factor(float norm, float max_norm);

// One AdamW update with learning rate `lr` on `clip` times the accumulated gradient; then
// zeroes the accumulators.
void optimizer_step(hone_trainer & tr, float lr, float clip);

void clear_gradients(hone_trainer & tr);

} // namespace hone
