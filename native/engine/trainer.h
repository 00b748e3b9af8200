#pragma once

#include "batch.h"
#include "graph.h"
#include "hone.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <vector>

// The training loop, owned here rather than in llama_opt_epoch: a static graph built once
// and sized for training, inputs uploaded in one call each, gradients accumulated in F32
// across micro-batches, and AdamW run as a separate small graph once per optimizer step.
struct hone_trainer {
    hone_model * model = nullptr;
    hone_adapter * adapter = nullptr;
    hone_train_params p{};
    int T = 0, B = 0;

    ggml_context * ctx_compute = nullptr; // inputs, forward, backward
    ggml_context * ctx_state = nullptr;   // AdamW moments, loss seed gradient, AdamW params
    ggml_context * ctx_accs = nullptr;    // gradient accumulators (cleared every step)
    ggml_context * ctx_opt = nullptr;     // optimizer step nodes
    ggml_backend_buffer_t buf_state = nullptr, buf_accs = nullptr;
    ggml_backend_sched_t sched = nullptr;
    ggml_gallocr_t opt_alloc = nullptr;

    ggml_cgraph * gb = nullptr;     // forward + backward
    ggml_cgraph * g_opt = nullptr;  // AdamW steps
    hone::ForwardInputs in;
    hone::LossInputs li;
    ggml_tensor * loss = nullptr;
    ggml_tensor * adamw_params = nullptr;
    int64_t iter = 0; // optimizer steps done

    ~hone_trainer();
};
