#pragma once

#include "batch.h"
#include "graph.h"
#include "hone.h"
#include "memory_plan.h"
#include "op_profile.h"
#include "op_report.h"
#include "optimizer.h"
#include "run_position.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <array>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace hone {

// Every split of a graph by the scheduler rewrites its nodes' sources to copies living in the
// scheduler's context, which the next split frees: splitting the same graph again (planning,
// then allocation, then training and evaluation in turn) must start from the sources as built.
struct GraphSources {
    std::vector<std::pair<ggml_tensor *, std::array<ggml_tensor *, GGML_MAX_SRC>>> nodes;
    void save(ggml_cgraph * g);
    void restore() const;
};

} // namespace hone

// The training loop, owned here rather than in llama_opt_epoch: a static graph built once
// and sized for training, inputs uploaded in one call each, gradients accumulated in F32
// across micro-batches, and AdamW run as a separate small graph once per optimizer step.
struct hone_trainer {
    hone_model * model = nullptr;
    hone_adapter * adapter = nullptr;
    hone_train_params p{};
    std::string checkpoint_dir, run_config; // owned copies of p's strings
    std::string test_refuse_ops, test_frozen_param, test_metal_rules;
    int test_head_chunk_rows = 0;
    int T = 0, B = 0;
    bool selective = false;               // selective recomputation (recompute.h), chosen before the graphs; never with p.recompute
    ggml_backend_t test_backend = nullptr;   // tests only: the op-refusing backend, scheduled first
    ggml_tensor * frozen_param = nullptr;    // tests only: a base tensor marked trainable (flag cleared on free)

    ggml_context * ctx_compute = nullptr; // inputs, forward, backward
    ggml_context * ctx_state = nullptr;   // loss seed gradient; AdamW's moments, params and clip scale
    ggml_context * ctx_accs = nullptr;    // gradient accumulators (cleared every step)
    ggml_backend_buffer_t buf_state = nullptr, buf_accs = nullptr;
    ggml_backend_sched_t sched = nullptr;

    ggml_cgraph * gf = nullptr;     // forward only (evaluation)
    ggml_cgraph * gb = nullptr;     // forward + backward
    const ggml_cgraph * sched_graph = nullptr; // the graph the scheduler is allocated for
    const ggml_cgraph * masks_set_for = nullptr; // the allocation whose attention masks are uploaded
    bool packed = false;                         // rows hold several sequences (p.pack, where the architecture allows)
    std::vector<int32_t> masks_segments;         // packed: the row layout the uploaded masks are for
    hone::ForwardInputs in;
    hone::LossInputs li;
    ggml_tensor * loss = nullptr;
    hone::AdamW opt;                      // the adapter's tensors, their accumulators and AdamW's state

    hone::GraphSources sources;                  // gb's node sources as built (gf's nodes are among them)
    int n_forward_nodes = 0;                     // gb's first nodes, up to the loss, are the forward pass
    std::set<const ggml_tensor *> trainable;     // the adapter's tensors
    hone::GradientWaste waste;                   // found once the backward pass is built
    hone::MemoryPlan memory;                     // planned at init, measured while training
    std::unique_ptr<hone::OpProfile> profile;    // set when p.profile
    bool stepped = false;                        // a step ran in this process (the first one also allocates)

    hone::RunPosition pos;
    hone::DataIdentity resumed_data; // set by hone_trainer_resume

    ~hone_trainer();
};

namespace hone {
// The run's shape as the memory plan's advice names it.
PlanShape plan_shape(const hone_trainer & tr);
} // namespace hone
