// AdamW over the adapter, run once per optimizer step as small graphs of its own: the
// global gradient norm (for reporting and clipping), then the update on the clipped
// accumulated gradient. The optimizer owns its state: each tensor's moments, the update count
// (bias correction) and both graphs; the gradients it reads are the trainer's accumulators.
#pragma once

#include "hone.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"
#include "ggml.h"

#include <cstdint>
#include <vector>

namespace hone {

class AdamW {
  public:
    // One trainable tensor: its gradient accumulator (F32, the trainer's) and moments (AdamW's).
    struct Slot {
        ggml_tensor * param = nullptr; // the adapter's A or B
        ggml_tensor * grad = nullptr;  // gradient summed over the step's micro-batches
        ggml_tensor * m = nullptr;     // first moment  (adamw_m.<param>)
        ggml_tensor * v = nullptr;     // second moment (adamw_v.<param>)
    };

    AdamW() = default;
    AdamW(const AdamW &) = delete;
    AdamW & operator=(const AdamW &) = delete;
    ~AdamW();

    // Creates the moments, AdamW's params and the clip scale in ctx_state (the caller allocates
    // its buffer), and both graphs, for these (param, gradient) pairs. Every gradient is a view
    // of `grad_all`, whose other elements stay zero: the norm and the clipping run over it whole.
    // `params_buf` (or null): the buffer holding exactly these params, each at its gradient's
    // offset in `grad_all`, which is as large as the buffer; AdamW then runs once over all of it.
    void build(ggml_context * ctx_state, const std::vector<std::pair<ggml_tensor *, ggml_tensor *>> & params_and_grads,
               ggml_tensor * grad_all, ggml_backend_buffer_t params_buf);
    // Allocates both graphs' intermediate tensors on `backend` once ctx_state has its buffer.
    void alloc(ggml_backend_t backend);

    // L2 norm of the accumulated gradient over every trainable tensor.
    float gradient_norm();
    // One update with learning rate `lr` on `clip` times the accumulated gradient (the caller
    // zeroes the accumulators afterwards).
    void step(const hone_train_params & p, float lr, float clip);

    const std::vector<Slot> & slots() const { return slots_; }
    ggml_cgraph * step_graph() const { return g_step_; }
    ggml_cgraph * norm_graph() const { return g_norm_; }
    // Bytes of both graphs' intermediate buffers (after alloc).
    size_t graph_bytes() const;

    int64_t updates = 0; // updates applied (steps without loss tokens apply none); checkpointed

  private:
    std::vector<Slot> slots_;
    ggml_tensor * hparams_ = nullptr;    // F32 [7]: lr, beta1, beta2, eps, weight decay, bias corrections
    ggml_tensor * clip_scale_ = nullptr; // F32 [1]
    ggml_tensor * grad_sumsq_ = nullptr; // F32 [1]
    ggml_context * ctx_ = nullptr;       // the graphs' nodes
    ggml_cgraph * g_step_ = nullptr, * g_norm_ = nullptr;
    ggml_gallocr_t step_alloc_ = nullptr, norm_alloc_ = nullptr;
    ggml_backend_t backend_ = nullptr;
};

// The factor that brings `norm` down to `max_norm` (1 when max_norm is 0 or not exceeded).
float clip_factor(float norm, float max_norm);

} // namespace hone
