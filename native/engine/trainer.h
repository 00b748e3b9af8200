#pragma once

#include "batch.h"
#include "graph.h"
#include "hone.h"
#include "memory_plan.h"
#include "op_profile.h"
#include "op_report.h"
#include "optimizer.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <array>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace hone {

// Where a run stands: everything besides tensors that a checkpoint must hold to continue
// bit-for-bit (the data order and the schedule are functions of the seed and the step).
struct RunPosition {
    int64_t step = 0;          // optimizer steps done
    int32_t micro = 0;         // micro-batches of step + 1 already accumulated (a mid-step pause)
    double loss_sum = 0.0;     // the loss those micro-batches contributed
    int64_t tokens = 0;        // tokens processed
    double elapsed_s = 0.0;    // training time before this process
    int32_t segment = 0;       // schedule segment: 0 for a run trained once, +1 for every continuation
    int64_t segment_start = 0; // optimizer steps done before this segment; its schedule and data order start here
};

// The data a checkpoint was trained on, checked when a resumed run starts.
struct DataIdentity {
    bool known = false;
    int64_t n_steps = 0;
    int32_t n_train = 0, n_eval = 0;
    uint64_t train_fp = 0, eval_fp = 0;
};

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
    std::string test_refuse_ops, test_frozen_param;
    int T = 0, B = 0;
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
