// Finite-difference check of the training graph's gradients with respect to LoRA A and B.
#pragma once

#include "hone.h"

#include <string>
#include <vector>

namespace hone {

struct GradCheckEntry {
    std::string tensor;   // e.g. "blk.0.attn_q.weight.lora_a"
    int64_t index = 0;    // flat element index
    double analytic = 0;  // the backward pass's gradient (F32)
    double numeric = 0;   // central difference of the loss, loss computed in float64 from the logits
    double rel_error = 0; // |analytic - numeric| / max(|analytic|, |numeric|)
    bool checked = false; // false: both below the floor, excluded from the bound
};

struct GradCheckParams {
    std::vector<int> layers;   // which layers' adapter tensors to sample
    int elements = 4;          // random elements per sampled tensor
    uint64_t seed = 1;
    float eps = 1e-2f;         // finite-difference step (F32 logits: smaller steps drown in rounding)
    double floor = 1e-3;       // |gradient| below this is noise-dominated: excluded
};

struct GradCheckResult {
    std::vector<GradCheckEntry> entries;
    bool quantized_base = false; // the numeric side ran on dequantized copies of the weights
};

GradCheckResult grad_check(hone_model & m, hone_adapter & ad, const std::vector<int32_t> & tokens, const GradCheckParams & p);

} // namespace hone
