#include "moe_ffn.h"

#include "delta_net.h"
#include "graph.h"
#include "hone_arch.h"
#include "model.h"

#include <cmath>
#include <utility>

namespace hone {

// The weighted experts [n_embd, n_used, n_tokens] summed in slot order, as llama.cpp adds its views.
static ggml_tensor * sum_slots(ggml_context * ctx, ggml_tensor * experts) {
    const int64_t n_embd = experts->ne[0], n_used = experts->ne[1], n_tokens = experts->ne[2];
    ggml_tensor * out = ggml_view_2d(ctx, experts, n_embd, n_tokens, experts->nb[2], 0);
    for (int64_t i = 1; i < n_used; i++) {
        out = ggml_add(ctx, out, ggml_view_2d(ctx, experts, n_embd, n_tokens, experts->nb[2], i * experts->nb[1]));
    }
    return n_used == 1 ? ggml_cont(ctx, out) : out; // a single slot's view is not contiguous
}

// A bias per expert added to each token's selected experts' rows: ggml_add_id's sums (which has
// no backward) as an ADD of the bias rows gathered by GET_ROWS (which do). bias [n, n_expert],
// t [n, n_used, n_tokens], ids: the selected experts, I32 [n_used * n_tokens] in slot order.
static ggml_tensor * add_expert_bias(ggml_context * ctx, ggml_tensor * t, ggml_tensor * bias, ggml_tensor * ids) {
    return ggml_add(ctx, t, ggml_reshape_3d(ctx, ggml_get_rows(ctx, bias, ids), t->ne[0], t->ne[1], t->ne[2]));
}

// ggml_swiglu_oai(gate, up, 1.702, 7) composed of ops with a backward: x = min(gate, 7),
// y = clamp(up, -7, 7), x / (1 + exp(-1.702 x)) * (y + 1), the first factor as silu(1.702 x) / 1.702.
static ggml_tensor * swiglu_oai(ggml_context * ctx, ggml_tensor * gate, ggml_tensor * up) {
    const float alpha = 1.702f, limit = 7.0f; // gpt-oss's, as llama.cpp hard-codes them
    ggml_tensor * x = ggml_clamp(ctx, gate, -INFINITY, limit);
    ggml_tensor * y = ggml_clamp(ctx, up, -limit, limit);
    ggml_tensor * glu = ggml_scale(ctx, ggml_silu(ctx, ggml_scale(ctx, x, alpha)), 1.0f / alpha);
    return ggml_add(ctx, ggml_mul(ctx, glu, y), glu);
}

// gpt-oss's FFN (Moe::SOFTMAX_WEIGHT_OAI), below
static ggml_tensor * moe_ffn_oai(ggml_context * ctx, const Hparams & hp, const LayerWeights & L, ggml_tensor * x, int il);

// The selected experts' gate and up products [n_ff_exp, n_used, n_tokens], from separate tensors
// or one fused (the gate half copied: GELU's and SILU's backwards run on contiguous tensors on CUDA).
static std::pair<ggml_tensor *, ggml_tensor *> gate_and_up(ggml_context * ctx, const LayerWeights & L, ggml_tensor * cur, ggml_tensor * selected) {
    if (!L.ffn_gate_up_exps) return { ggml_mul_mat_id(ctx, L.ffn_gate_exps, cur, selected), ggml_mul_mat_id(ctx, L.ffn_up_exps, cur, selected) };
    ggml_tensor * gu = ggml_mul_mat_id(ctx, L.ffn_gate_up_exps, cur, selected); // [2 n_ff_exp, n_used, n_tokens]: gate rows first
    const int64_t nff = gu->ne[0] / 2;
    ggml_tensor * gate = ggml_cont(ctx, ggml_view_3d(ctx, gu, nff, gu->ne[1], gu->ne[2], gu->nb[1], gu->nb[2], 0));
    return { gate, ggml_view_3d(ctx, gu, nff, gu->ne[1], gu->ne[2], gu->nb[1], gu->nb[2], nff * gu->nb[0]) };
}

// Each selected expert's output scale (Gemma 4's ffn_down_exps.scale [n_expert]) as
// [1, n_used, n_tokens], gathered by the selected experts as llama.cpp's build_lora_mm_id does.
static ggml_tensor * expert_scales(ggml_context * ctx, ggml_tensor * scale, ggml_tensor * selected) {
    const int64_t n_used = selected->ne[0], n_tokens = selected->ne[1];
    ggml_tensor * ids = ggml_reshape_1d(ctx, ggml_cont(ctx, selected), n_used * n_tokens);
    return ggml_reshape_3d(ctx, ggml_get_rows(ctx, ggml_reshape_2d(ctx, scale, 1, scale->ne[0]), ids), 1, n_used, n_tokens);
}

ggml_tensor * moe_ffn(ggml_context * ctx, const Hparams & hp, const LayerWeights & L, ggml_tensor * x, ggml_tensor * router_in, int il,
                      bool smooth_gelu) {
    if (hp.desc->moe == arch::Moe::SOFTMAX_WEIGHT_OAI) return moe_ffn_oai(ctx, hp, L, x, il);
    const int64_t n_embd = x->ne[0], n_tokens = x->ne[1];
    const int64_t n_expert = hp.n_expert, n_used = hp.n_expert_used;

    ggml_tensor * logits = tag(ggml_mul_mat(ctx, L.ffn_gate_inp, router_in), "ffn_moe_logits", il); // [n_expert, n_tokens]
    // A sigmoid router (expert_gating_func 2): the weights through tanh (SIGMOID has no backward);
    // top-k ranks ggml's own SIGMOID, as llama.cpp does, since nothing differentiates the ranking.
    const bool sigmoid = hp.expert_gating == 2;
    ggml_tensor * probs = tag(sigmoid ? sigmoid_differentiable(ctx, logits) : ggml_soft_max(ctx, logits), "ffn_moe_probs", il);
    ggml_tensor * ranked = sigmoid ? ggml_sigmoid(ctx, logits) : probs;
    if (L.ffn_exp_probs_b) ranked = tag(ggml_add(ctx, ranked, L.ffn_exp_probs_b), "ffn_moe_probs_biased", il); // for top-k only
    ggml_tensor * selected = ggml_argsort_top_k(ctx, ranked, (int) n_used); // I32 [n_used, n_tokens]

    // the selected experts' probabilities, renormalised for Moe::SOFTMAX_NORM or where the file says
    // (the clamp keeps llama.cpp's guard against a zero sum)
    const bool shared = arch::has_shared_expert(hp.desc->moe);
    const bool renormalised = arch::renormalises(hp.desc->moe) || hp.expert_weights_norm;
    ggml_tensor * weights = ggml_get_rows(ctx, ggml_reshape_3d(ctx, probs, 1, n_expert, n_tokens), selected); // [1, n_used, n_tokens]
    if (renormalised) {
        weights = ggml_reshape_2d(ctx, weights, n_used, n_tokens);
        ggml_tensor * sum = ggml_clamp(ctx, ggml_sum_rows(ctx, weights), 6.103515625e-5f, INFINITY);
        weights = ggml_reshape_3d(ctx, ggml_div(ctx, weights, sum), 1, n_used, n_tokens);
    }
    if (hp.expert_weights_scale != 0.0f && hp.expert_weights_scale != 1.0f) weights = ggml_scale(ctx, weights, hp.expert_weights_scale);
    tag(weights, "ffn_moe_weights", il);

    ggml_tensor * cur = ggml_reshape_3d(ctx, x, n_embd, 1, n_tokens);
    auto [gate, up] = gate_and_up(ctx, L, cur, selected); // [n_ff_exp, n_used, n_tokens]
    tag(gate, "ffn_moe_gate", il);
    tag(up, "ffn_moe_up", il);
    ggml_tensor * act;
    if (hp.desc->ffn == arch::Ffn::REGLU) act = ggml_mul(ctx, ggml_relu(ctx, gate), up); // SmallThinker
    else if (hp.desc->ffn != arch::Ffn::GEGLU) act = ggml_swiglu_split(ctx, gate, up);
    else act = smooth_gelu ? ggml_mul(ctx, gelu(ctx, gate, true), up) : ggml_geglu_split(ctx, gate, up); // Gemma 4
    tag(act, "ffn_moe_act", il);
    ggml_tensor * experts = tag(ggml_mul_mat_id(ctx, L.ffn_down_exps, act, selected), "ffn_moe_down", il); // [n_embd, n_used, n_tokens]
    if (L.ffn_down_exps_s) experts = tag(ggml_mul(ctx, experts, expert_scales(ctx, L.ffn_down_exps_s, selected)), "ffn_moe_down_scaled", il);
    experts = tag(ggml_mul(ctx, experts, weights), "ffn_moe_weighted", il);

    ggml_tensor * out = tag(sum_slots(ctx, experts), "ffn_moe_out", il);
    if (!L.ffn_up_shexp) return out;
    // the shared SwiGLU expert, added to the routed ones: ungated (Granite MoE Shared), or gated by
    // sigmoid(g) as llama.cpp writes it: Qwen2-MoE's silu(g) / g, Qwen3.5-MoE's SIGMOID (no
    // backward: through tanh). The gate vector's dot with each token is MUL and SUM_ROWS: a
    // product with a one-row matrix makes a one-column OUT_PROD in the backward (suspected in a
    // cuBLAS refusal on CUDA, qwen35moe).
    ggml_tensor * s = ggml_swiglu_split(ctx, ggml_mul_mat(ctx, L.ffn_gate_shexp, x), ggml_mul_mat(ctx, L.ffn_up_shexp, x));
    s = ggml_mul_mat(ctx, L.ffn_down_shexp, s);
    if (shared) {
        const bool sigmoid_op = hp.desc->moe == arch::Moe::SOFTMAX_NORM_SHARED;
        ggml_tensor * g = tag(ggml_sum_rows(ctx, ggml_mul(ctx, x, L.ffn_gate_inp_shexp)), "ffn_shexp_gate_inp", il); // [1, n_tokens]
        s = ggml_mul(ctx, s, sigmoid_op ? sigmoid_differentiable(ctx, g) : ggml_div(ctx, ggml_silu(ctx, g), g));
    }
    tag(s, "ffn_shexp_out", il);
    if (hp.desc->moe == arch::Moe::GATED_SHARED_HALF) return tag(ggml_scale(ctx, ggml_add(ctx, out, s), 0.5f), "ffn_out", il); // Cohere 2 MoE: averaged
    return tag(ggml_add(ctx, out, s), "ffn_out", il);
}

// Router logits with their bias, top-k on the logits, the selected logits' softmax as weights
// (llama.cpp's SOFTMAX_WEIGHT gating); experts with biases and SwiGLU-OAI.
static ggml_tensor * moe_ffn_oai(ggml_context * ctx, const Hparams & hp, const LayerWeights & L, ggml_tensor * x, int il) {
    const int64_t n_embd = x->ne[0], n_tokens = x->ne[1];
    const int64_t n_expert = hp.n_expert, n_used = hp.n_expert_used;

    ggml_tensor * logits = tag(ggml_add(ctx, ggml_mul_mat(ctx, L.ffn_gate_inp, x), L.ffn_gate_inp_b), "ffn_moe_logits", il); // [n_expert, n_tokens]
    ggml_tensor * selected = ggml_argsort_top_k(ctx, logits, (int) n_used); // I32 [n_used, n_tokens]
    ggml_tensor * weights = ggml_get_rows(ctx, ggml_reshape_3d(ctx, logits, 1, n_expert, n_tokens), selected); // [1, n_used, n_tokens]
    weights = ggml_soft_max(ctx, ggml_reshape_2d(ctx, weights, n_used, n_tokens));
    weights = tag(ggml_reshape_3d(ctx, weights, 1, n_used, n_tokens), "ffn_moe_weights", il);

    ggml_tensor * cur = ggml_reshape_3d(ctx, x, n_embd, 1, n_tokens);
    ggml_tensor * ids = ggml_reshape_1d(ctx, ggml_cont(ctx, selected), n_used * n_tokens); // top-k's view made flat for GET_ROWS
    ggml_tensor * up = add_expert_bias(ctx, ggml_mul_mat_id(ctx, L.ffn_up_exps, cur, selected), L.ffn_up_exps_b, ids);
    ggml_tensor * gate = add_expert_bias(ctx, ggml_mul_mat_id(ctx, L.ffn_gate_exps, cur, selected), L.ffn_gate_exps_b, ids);
    ggml_tensor * act = tag(swiglu_oai(ctx, tag(gate, "ffn_moe_gate", il), tag(up, "ffn_moe_up", il)), "ffn_moe_swiglu_oai", il);
    ggml_tensor * experts = add_expert_bias(ctx, ggml_mul_mat_id(ctx, L.ffn_down_exps, act, selected), L.ffn_down_exps_b, ids);
    experts = tag(ggml_mul(ctx, tag(experts, "ffn_moe_down", il), weights), "ffn_moe_weighted", il);

    return tag(sum_slots(ctx, experts), "ffn_moe_out", il);
}

} // namespace hone
