// The learning rate as a function of the optimizer step: a linear warm-up, then constant,
// linear or cosine decay to a floor. A pure function of the step, so a resumed run needs
// nothing but the step count to be back on the same curve.
#pragma once

#include "hone.h"

#include <cstdint>

namespace hone {

// Learning rate of optimizer step `step` (1-based) of `n_steps`:
//   warm-up, step <= W:  lr * step / W                       (step 1 already learns)
//   then, with p = (step - W - 1) / (n_steps - W) in [0, 1):
//     constant:  lr
//     linear:    lr_min + (lr - lr_min) * (1 - p)
//     cosine:    lr_min + (lr - lr_min) * (1 + cos(pi * p)) / 2
// so the first step after warm-up runs at the full rate and the last one just above lr_min.
float lr_at(const hone_train_params & p, int64_t step, int64_t n_steps);

// The learning rate of the optimizer step after `done` steps of a run planned to `n_steps`,
// whose current schedule segment started after `segment_start` steps (0 for a run trained
// once; a continued run's segment has its own warm-up and decay over its own steps).
float segment_lr(const hone_train_params & p, int64_t done, int64_t segment_start, int64_t n_steps);

// Optimizer steps a segment takes: p.n_steps, or p.n_epochs over n_train sequences in batches
// of p.n_batch (the last one partly from the next epoch's order).
int64_t planned_steps(const hone_train_params & p, int32_t n_train);

} // namespace hone
