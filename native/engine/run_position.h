// Where a run stands and what data it trains on: what a checkpoint holds besides tensors.
#pragma once

#include <cstdint>

namespace hone {

// Where a run stands: everything besides tensors that a checkpoint must hold to continue
// bit-for-bit (the data order and the schedule are functions of the seed and the step).
struct RunPosition {
    int64_t step = 0;          // optimizer steps done
    int32_t micro = 0;         // micro-batches of step + 1 already accumulated (a mid-step pause)
    double loss_sum = 0.0;     // the loss those micro-batches contributed
    int64_t tokens = 0;        // real (non-padding) input tokens processed
    int64_t positions = 0;     // positions processed: the real tokens and the padding
    double elapsed_s = 0.0;    // training time before this process
    int32_t segment = 0;       // schedule segment: 0 for a run trained once, +1 for every continuation
    int64_t segment_start = 0; // optimizer steps done before this segment; its schedule and data order start here
    int64_t cursor = 0;        // the data-order index where the step in progress starts (a checkpoint's record; a
                               // resumed run recomputes it from the seed and the lengths)
};

// The data a checkpoint was trained on, checked when a resumed run starts.
struct DataIdentity {
    bool known = false;
    int64_t n_steps = 0;
    int32_t n_train = 0, n_eval = 0;
    uint64_t train_fp = 0, eval_fp = 0;
};

} // namespace hone
