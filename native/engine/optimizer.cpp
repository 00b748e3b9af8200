#include "optimizer.h"

#include "error.h"
#include "model.h"
#include "trainer.h"

#include <cmath>

namespace hone {

void build_optimizer(hone_trainer & tr) {
    const size_t n = tr.params.size();
    for (ParamState & ps : tr.params) {
        ps.m = ggml_new_tensor(tr.ctx_state, GGML_TYPE_F32, GGML_MAX_DIMS, ps.param->ne);
        ps.v = ggml_new_tensor(tr.ctx_state, GGML_TYPE_F32, GGML_MAX_DIMS, ps.param->ne);
        ggml_format_name(ps.m, "adamw_m.%s", ps.param->name);
        ggml_format_name(ps.v, "adamw_v.%s", ps.param->name);
    }
    tr.adamw_params = ggml_new_tensor_1d(tr.ctx_state, GGML_TYPE_F32, 7);
    tr.clip_scale = ggml_new_tensor_1d(tr.ctx_state, GGML_TYPE_F32, 1);
    ggml_set_name(tr.adamw_params, "adamw_params");
    ggml_set_name(tr.clip_scale, "clip_scale");

    // Nodes: a MUL and an AdamW step per tensor; SQR, SUM and ADD per tensor for the norm.
    const size_t gsize = 8 * n + 16;
    tr.ctx_opt = ggml_init({ ggml_tensor_overhead() * (5 * n + 8) + 2 * ggml_graph_overhead_custom(gsize, false), nullptr, true });
    tr.g_opt = ggml_new_graph_custom(tr.ctx_opt, gsize, false);
    tr.g_norm = ggml_new_graph_custom(tr.ctx_opt, gsize, false);
    ggml_tensor * sumsq = nullptr;
    for (ParamState & ps : tr.params) {
        ggml_tensor * g = ggml_mul(tr.ctx_opt, ps.acc, tr.clip_scale);
        ggml_tensor * step = ggml_opt_step_adamw(tr.ctx_opt, ps.param, g, ps.m, ps.v, tr.adamw_params);
        ggml_format_name(step, "adamw step %s", ps.param->name);
        ggml_build_forward_expand(tr.g_opt, step);
        ggml_tensor * s = ggml_sum(tr.ctx_opt, ggml_sqr(tr.ctx_opt, ps.acc));
        sumsq = sumsq ? ggml_add(tr.ctx_opt, sumsq, s) : s;
    }
    tr.grad_sumsq = sumsq;
    ggml_set_name(sumsq, "grad_sumsq");
    ggml_set_output(sumsq);
    ggml_build_forward_expand(tr.g_norm, sumsq);
}

void alloc_optimizer(hone_trainer & tr) {
    ggml_backend_buffer_type_t bt = ggml_backend_get_default_buffer_type(tr.model->backends.primary);
    tr.opt_alloc = ggml_gallocr_new(bt);
    tr.norm_alloc = ggml_gallocr_new(bt);
    if (!ggml_gallocr_alloc_graph(tr.opt_alloc, tr.g_opt) || !ggml_gallocr_alloc_graph(tr.norm_alloc, tr.g_norm)) {
        fail(HONE_E_MEMORY, "cannot allocate the optimizer graphs");
    }
}

float gradient_norm(hone_trainer & tr) {
    ggml_backend_t primary = tr.model->backends.primary;
    if (ggml_backend_graph_compute(primary, tr.g_norm) != GGML_STATUS_SUCCESS) {
        fail(HONE_E_INTERNAL, "gradient norm failed on %s", ggml_backend_name(primary));
    }
    float s = 0.0f;
    ggml_backend_tensor_get(tr.grad_sumsq, &s, 0, sizeof(s));
    return std::sqrt(s);
}

float clip_factor(float norm, float max_norm) {
    return max_norm > 0.0f && norm > max_norm ? max_norm / norm : 1.0f;
}

void optimizer_step(hone_trainer & tr, float lr, float clip) {
    tr.pos.opt_iter++;
    const float t = (float) tr.pos.opt_iter;
    const float beta1h = 1.0f / (1.0f - std::pow(tr.p.beta1, t));
    const float beta2h = 1.0f / (1.0f - std::pow(tr.p.beta2, t));
    const float par[7] = { lr, tr.p.beta1, tr.p.beta2, tr.p.eps, tr.p.weight_decay, beta1h, beta2h };
    ggml_backend_tensor_set(tr.adamw_params, par, 0, sizeof(par));
    ggml_backend_tensor_set(tr.clip_scale, &clip, 0, sizeof(clip));
    ggml_backend_t primary = tr.model->backends.primary;
    if (ggml_backend_graph_compute(primary, tr.g_opt) != GGML_STATUS_SUCCESS) {
        fail(HONE_E_INTERNAL, "optimizer step failed on %s", ggml_backend_name(primary));
    }
    clear_gradients(tr);
}

void clear_gradients(hone_trainer & tr) { ggml_backend_buffer_clear(tr.buf_accs, 0); }

} // namespace hone
