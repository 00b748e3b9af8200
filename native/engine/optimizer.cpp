#include "optimizer.h"

#include "env_switch.h"
#include "error.h"

#include <cmath>

namespace hone {

AdamW::~AdamW() {
    if (norm_alloc_) ggml_gallocr_free(norm_alloc_);
    if (step_alloc_) ggml_gallocr_free(step_alloc_);
    if (ctx_) ggml_free(ctx_);
}

void AdamW::build(ggml_context * ctx_state, const std::vector<std::pair<ggml_tensor *, ggml_tensor *>> & params_and_grads,
                  ggml_tensor * grad_all, ggml_backend_buffer_t params_buf) {
    const size_t n = params_and_grads.size();
    // Nodes: the clipping (one MUL in place over every gradient), then AdamW once over the
    // adapter's buffer read as one tensor (params_buf: every gradient at its parameter's offset),
    // else a view and an AdamW step per tensor; the norm is one SQR and one SUM. Each step's
    // gradients are cleared after it. Benchmarks' "before": HONE_FLAT_ADAMW=0 an AdamW step per
    // tensor; HONE_FLAT_GRADIENTS=0 also a MUL per tensor, and SQR, SUM and ADD per tensor for the norm.
    const bool flat = env_switch_on("HONE_FLAT_GRADIENTS");
    const int64_t row = 64; // elements: rows for the CPU's threads
    const int64_t n_all = ggml_nelements(grad_all);
    const bool flat_adamw = flat && params_buf && env_switch_on("HONE_FLAT_ADAMW") && n_all % row == 0 &&
                            ggml_backend_buffer_get_size(params_buf) == (size_t) n_all * sizeof(float);
    ggml_tensor * m_all = flat_adamw ? ggml_new_tensor_2d(ctx_state, GGML_TYPE_F32, row, n_all / row) : nullptr;
    ggml_tensor * v_all = flat_adamw ? ggml_new_tensor_2d(ctx_state, GGML_TYPE_F32, row, n_all / row) : nullptr;
    if (flat_adamw) {
        ggml_set_name(m_all, "adamw_m");
        ggml_set_name(v_all, "adamw_v");
    }
    // the moments of one tensor: its own, or the view of the flat moments at its gradient's offset
    const auto moment = [&](ggml_tensor * all, const ggml_tensor * grad) {
        if (!all) return ggml_new_tensor(ctx_state, GGML_TYPE_F32, GGML_MAX_DIMS, grad->ne);
        return ggml_view_4d(ctx_state, all, grad->ne[0], grad->ne[1], grad->ne[2], grad->ne[3], grad->nb[1], grad->nb[2], grad->nb[3],
                            grad->view_offs);
    };
    for (const auto & [param, grad] : params_and_grads) {
        if (grad->view_src != grad_all || !ggml_is_contiguous(grad)) fail(HONE_E_INTERNAL, "the gradient of %s is not a view of the flat accumulator", param->name);
        Slot s;
        s.param = param;
        s.grad = grad;
        s.m = moment(m_all, grad);
        s.v = moment(v_all, grad);
        ggml_format_name(s.m, "adamw_m.%s", param->name);
        ggml_format_name(s.v, "adamw_v.%s", param->name);
        slots_.push_back(s);
    }
    hparams_ = ggml_new_tensor_1d(ctx_state, GGML_TYPE_F32, 7);
    clip_scale_ = ggml_new_tensor_1d(ctx_state, GGML_TYPE_F32, 1);
    ggml_set_name(hparams_, "adamw_params");
    ggml_set_name(clip_scale_, "clip_scale");

    const size_t gsize = 8 * n + 16;
    ctx_ = ggml_init({ ggml_tensor_overhead() * (5 * n + 12) + 2 * ggml_graph_overhead_custom(gsize, false), nullptr, true });
    g_step_ = ggml_new_graph_custom(ctx_, gsize, false);
    g_norm_ = ggml_new_graph_custom(ctx_, gsize, false);
    // the views below read the clipped node, not grad_all: the graph then orders them after it
    ggml_tensor * clipped = flat ? ggml_mul_inplace(ctx_, grad_all, clip_scale_) : nullptr;
    if (clipped) ggml_set_name(clipped, "clipped gradients");
    if (flat_adamw) {
        // the whole adapter buffer as one parameter; its gaps' gradients and moments are zero, so they stay zero
        ggml_tensor * params_all = ggml_new_tensor_2d(ctx_, GGML_TYPE_F32, row, n_all / row);
        ggml_set_name(params_all, "adapter parameters");
        ggml_set_param(params_all);
        if (ggml_backend_tensor_alloc(params_buf, params_all, ggml_backend_buffer_get_base(params_buf)) != GGML_STATUS_SUCCESS) {
            fail(HONE_E_INTERNAL, "cannot view the adapter buffer as one tensor");
        }
        ggml_tensor * step = ggml_opt_step_adamw(ctx_, params_all, ggml_reshape_2d(ctx_, clipped, row, n_all / row), m_all, v_all, hparams_);
        ggml_set_name(step, "adamw step");
        ggml_build_forward_expand(g_step_, step);
    }
    ggml_tensor * sumsq = nullptr;
    for (const Slot & s : slots_) {
        if (!flat_adamw) {
            ggml_tensor * g = clipped ? ggml_view_4d(ctx_, clipped, s.grad->ne[0], s.grad->ne[1], s.grad->ne[2], s.grad->ne[3],
                                                     s.grad->nb[1], s.grad->nb[2], s.grad->nb[3], s.grad->view_offs)
                                      : ggml_mul(ctx_, s.grad, clip_scale_);
            ggml_tensor * step = ggml_opt_step_adamw(ctx_, s.param, g, s.m, s.v, hparams_);
            ggml_format_name(step, "adamw step %s", s.param->name);
            ggml_build_forward_expand(g_step_, step);
        }
        if (!flat) {
            ggml_tensor * sq = ggml_sum(ctx_, ggml_sqr(ctx_, s.grad));
            sumsq = sumsq ? ggml_add(ctx_, sumsq, sq) : sq;
        }
    }
    // flat (or no tensor at all): one square-and-sum over the whole accumulator
    grad_sumsq_ = sumsq ? sumsq : ggml_sum(ctx_, ggml_sqr(ctx_, grad_all));
    ggml_set_name(grad_sumsq_, "grad_sumsq");
    ggml_set_output(grad_sumsq_);
    ggml_build_forward_expand(g_norm_, grad_sumsq_);
}

void AdamW::alloc(ggml_backend_t backend) {
    backend_ = backend;
    ggml_backend_buffer_type_t bt = ggml_backend_get_default_buffer_type(backend);
    step_alloc_ = ggml_gallocr_new(bt);
    norm_alloc_ = ggml_gallocr_new(bt);
    if (!ggml_gallocr_alloc_graph(step_alloc_, g_step_) || !ggml_gallocr_alloc_graph(norm_alloc_, g_norm_)) {
        fail(HONE_E_MEMORY, "cannot allocate the optimizer graphs");
    }
}

size_t AdamW::graph_bytes() const {
    return ggml_gallocr_get_buffer_size(step_alloc_, 0) + ggml_gallocr_get_buffer_size(norm_alloc_, 0);
}

float AdamW::gradient_norm() {
    if (ggml_backend_graph_compute(backend_, g_norm_) != GGML_STATUS_SUCCESS) {
        fail(HONE_E_INTERNAL, "gradient norm failed on %s", ggml_backend_name(backend_));
    }
    float s = 0.0f;
    ggml_backend_tensor_get(grad_sumsq_, &s, 0, sizeof(s));
    return std::sqrt(s);
}

float clip_factor(float norm, float max_norm) {
    return max_norm > 0.0f && norm > max_norm ? max_norm / norm : 1.0f;
}

void AdamW::step(const hone_train_params & p, float lr, float clip) {
    updates++;
    const float t = (float) updates;
    const float beta1h = 1.0f / (1.0f - std::pow(p.beta1, t));
    const float beta2h = 1.0f / (1.0f - std::pow(p.beta2, t));
    const float par[7] = { lr, p.beta1, p.beta2, p.eps, p.weight_decay, beta1h, beta2h };
    ggml_backend_tensor_set(hparams_, par, 0, sizeof(par));
    ggml_backend_tensor_set(clip_scale_, &clip, 0, sizeof(clip));
    if (ggml_backend_graph_compute(backend_, g_step_) != GGML_STATUS_SUCCESS) {
        fail(HONE_E_INTERNAL, "optimizer step failed on %s", ggml_backend_name(backend_));
    }
}

} // namespace hone
