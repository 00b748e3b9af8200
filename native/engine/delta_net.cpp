#include "delta_net.h"

#include "ggml-backend.h"
#include "graph.h"
#include "model.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace hone {

// Chunks of up to 64 tokens, as llama.cpp's chunked path; shorter windows take one chunk.
static int chunk_for(int T) {
    int c = 1;
    while (c < T && c < 64) c *= 2;
    return c;
}

static int doubling_levels(int C) {
    int l = 0;
    while ((1 << l) < C) l++;
    return l;
}

size_t delta_net_graph_nodes(int T) {
    const int C = chunk_for(T), chunks = (T + C - 1) / C;
    // per chunk: ~12 forward nodes and views, their backward and one accumulation per view
    return 1024 + (size_t) chunks * 160;
}

DeltaNetInputs make_delta_net_inputs(ggml_context * ctx, const Hparams & hp, int T, int B) {
    DeltaNetInputs dn;
    dn.chunk = chunk_for(T);
    dn.t_padded = (T + dn.chunk - 1) / dn.chunk * dn.chunk;
    const int64_t C = dn.chunk;
    // the padded input [n_embd, d_conv - 1 + T_padded] and the output [d_inner, T_padded], per sequence
    const int64_t padded_in = (int64_t) hp.n_embd * (hp.ssm_d_conv - 1 + dn.t_padded), out = (int64_t) hp.ssm_d_inner * dn.t_padded;
    dn.zeros = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, std::max(padded_in, out) * B);
    dn.lower = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, C, C);
    dn.strict = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, C, C);
    dn.eye = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, C, C);
    dn.halves = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, C, C, std::max(1, doubling_levels(dn.chunk)));
    ggml_set_name(dn.zeros, "dn_zeros");
    ggml_set_name(dn.lower, "dn_lower");
    ggml_set_name(dn.strict, "dn_strict");
    ggml_set_name(dn.eye, "dn_eye");
    ggml_set_name(dn.halves, "dn_halves");
    for (ggml_tensor * t : { dn.zeros, dn.lower, dn.strict, dn.eye, dn.halves }) ggml_set_input(t);
    return dn;
}

void set_delta_net_inputs(const DeltaNetInputs & dn) {
    if (!dn.zeros) return;
    if (dn.zeros->buffer) ggml_backend_tensor_memset(dn.zeros, 0, 0, ggml_nbytes(dn.zeros));
    const int C = dn.chunk, levels = (int) dn.halves->ne[2];
    std::vector<float> lower((size_t) C * C), strict((size_t) C * C), eye((size_t) C * C), halves((size_t) C * C * levels, 0.0f);
    for (int t = 0; t < C; t++) {
        for (int j = 0; j < C; j++) {
            const size_t i = (size_t) t * C + j; // ne0 = j
            lower[i] = j <= t;
            strict[i] = j < t;
            eye[i] = j == t;
            for (int l = 0; (1 << l) < C; l++) {
                const int b = 1 << l;
                halves[(size_t) l * C * C + i] = t / (2 * b) == j / (2 * b) && (t / b) % 2 == 1 && (j / b) % 2 == 0;
            }
        }
    }
    auto upload = [](ggml_tensor * t, const std::vector<float> & v) {
        if (t->buffer) ggml_backend_tensor_set(t, v.data(), 0, v.size() * sizeof(float));
    };
    upload(dn.lower, lower);
    upload(dn.strict, strict);
    upload(dn.eye, eye);
    upload(dn.halves, halves);
}

ggml_tensor * sigmoid_differentiable(ggml_context * ctx, ggml_tensor * x) {
    return ggml_scale_bias(ctx, ggml_tanh(ctx, ggml_scale(ctx, x, 0.5f)), 0.5f, 0.5f);
}

// Products inside the recurrence stay F32 on GPUs (the BF16 GEMM switch would round the
// triangular inverse's terms).
static ggml_tensor * mul_mat_f32(ggml_context * ctx, ggml_tensor * a, ggml_tensor * b) {
    ggml_tensor * r = ggml_mul_mat(ctx, a, b);
    ggml_mul_mat_set_prec(r, GGML_PREC_F32);
    return r;
}

// Transposes and permutes pass their gradients on as strided views, which ggml's binary ops and
// CUDA's ACC refuse; behind a RESHAPE (whose backward makes the gradient contiguous) they do not.
static ggml_tensor * transposed(ggml_context * ctx, ggml_tensor * t) { return ggml_cont(ctx, ggml_transpose(ctx, ggml_reshape(ctx, t, t))); }

// Notation: a tensor [ne0 = j, ne1 = t] holds row t, column j; ggml_mul_mat(a, b)[m, n] =
// sum_k a[k, m] b[k, n]. Per chunk (tokens t, j of C), with gamma the cumulative log decay:
//   A(t, j)  = beta_t e^(gamma_t - gamma_j) k_t.k_j (j < t),   T = (I + A)^-1
//   V' = T (beta V),   K' = T (beta e^gamma K)
//   delta = V' - K' S,   O = (e^gamma Q) S + [e^(gamma_t - gamma_j) q_t.k_j]_(j <= t) delta
//   S <- e^(gamma_C) S + (e^(gamma_C - gamma) K)^T delta
// which is the per-token rule S <- e^g S + k (beta (v - e^g S^T k))^T, o = S^T q, summed exactly.
ggml_tensor * delta_net(ggml_context * ctx, const Hparams & hp, const LayerWeights & L, const DeltaNetInputs & dn,
                        const MatMul & mm, ggml_tensor * x, int T, int B, int il) {
    const int64_t D = hp.n_embd, K = hp.ssm_d_conv, Hk = hp.ssm_n_group, Hv = hp.ssm_dt_rank, dk = hp.ssm_d_state;
    const int64_t dv = hp.ssm_d_inner / Hv, C = dn.chunk, Tp = dn.t_padded, N = Tp / C, W = K - 1 + Tp, HB = Hv * B;
    const int64_t channels = 2 * Hk * dk + Hv * dv;
    const size_t f = sizeof(float);

    // Each sequence padded to [K - 1 zeros | T tokens | Tp - T zeros]: the projections of the
    // zero columns are zero (no biases), the convolution's initial state; the tail only reaches
    // outputs past T, which are dropped.
    ggml_tensor * zin = ggml_view_2d(ctx, dn.zeros, D, W * B, D * f, 0);
    ggml_tensor * xp = ggml_acc(ctx, zin, ggml_reshape_3d(ctx, x, D, T, B), D * f, D * W * f, D * W * B * f, (K - 1) * D * f);
    ggml_tensor * qkv = tag(mm(L.wqkv, xp), "dn_qkv", il); // [channels, W*B]
    ggml_tensor * z = tag(mm(L.wqkv_gate, xp), "dn_z", il);  // [Hv*dv, W*B]
    // a projection's Tp tokens per sequence, after the K - 1 leading pads
    auto tokens = [&](ggml_tensor * t) { return ggml_cont(ctx, ggml_view_3d(ctx, t, t->ne[0], Tp, B, t->nb[1], t->nb[1] * W, t->nb[1] * (K - 1))); };
    ggml_tensor * beta = sigmoid_differentiable(ctx, tokens(mm(L.ssm_beta, xp)));                              // [Hv, Tp, B]
    ggml_tensor * g = ggml_mul(ctx, ggml_softplus(ctx, ggml_add(ctx, tokens(mm(L.ssm_alpha, xp)), L.ssm_dt)), L.ssm_a); // log decay

    // The causal convolution (ggml_ssm_conv): out[:, t] = sum_k w[:, k] * in[:, t + k], summed in its order.
    ggml_tensor * w = L.ssm_conv1d->type == GGML_TYPE_F32 ? L.ssm_conv1d : ggml_cast(ctx, L.ssm_conv1d, GGML_TYPE_F32);
    ggml_tensor * wt = transposed(ctx, w); // [channels, K]
    ggml_tensor * conv = nullptr;
    for (int64_t k = 0; k < K; k++) {
        ggml_tensor * shifted = ggml_view_3d(ctx, qkv, channels, Tp, B, qkv->nb[1], qkv->nb[1] * W, qkv->nb[1] * k);
        ggml_tensor * term = ggml_mul(ctx, shifted, ggml_view_1d(ctx, wt, channels, wt->nb[1] * k));
        conv = conv ? ggml_add(ctx, conv, term) : term;
    }
    conv = tag(ggml_silu(ctx, conv), "dn_conv", il); // [channels, Tp, B]

    // Q and K heads L2-normed, x / max(|x|, eps), as an RMS norm x / sqrt(|x|^2 + eps^2) (no
    // backward for L2_NORM; they differ only where |x| is near eps); Q also times 1/sqrt(d_k).
    const size_t row = conv->nb[1];
    ggml_tensor * q = ggml_view_4d(ctx, conv, dk, Hk, Tp, B, dk * f, row, conv->nb[2], 0);
    ggml_tensor * k = ggml_view_4d(ctx, conv, dk, Hk, Tp, B, dk * f, row, conv->nb[2], Hk * dk * f);
    ggml_tensor * v = ggml_view_4d(ctx, conv, dv, Hv, Tp, B, dv * f, row, conv->nb[2], 2 * Hk * dk * f);
    const float eps2 = hp.norm_eps * hp.norm_eps / (float) dk, inv_sqrt = 1.0f / std::sqrt((float) dk);
    // copied before the norms: ggml-cuda's RMS_NORM_BACK reads its forward input as contiguous rows
    q = ggml_scale(ctx, ggml_rms_norm(ctx, ggml_cont(ctx, q), eps2), inv_sqrt * inv_sqrt);
    k = ggml_scale(ctx, ggml_rms_norm(ctx, ggml_cont(ctx, k), eps2), inv_sqrt);
    if (Hk != Hv) { // value head h reads key head h % Hk, as llama.cpp's repeat and fused op tile them
        q = ggml_repeat_4d(ctx, q, dk, Hv, Tp, B);
        k = ggml_repeat_4d(ctx, k, dk, Hv, Tp, B);
    }

    // [d, heads, Tp, B] -> [d, C, N, heads*B]; per-token scalars [heads, Tp, B] -> [1, C, N, heads*B]
    auto chunked = [&](ggml_tensor * t) {
        ggml_tensor * r = ggml_is_contiguous(t) ? t : ggml_cont(ctx, t);
        r = ggml_reshape(ctx, r, r);
        return ggml_reshape_4d(ctx, ggml_cont(ctx, ggml_permute(ctx, r, 0, 2, 1, 3)), t->ne[0], C, N, HB);
    };
    auto per_token = [&](ggml_tensor * t) { return chunked(ggml_reshape_4d(ctx, t, 1, Hv, Tp, B)); };
    ggml_tensor * qc = chunked(q), * kc = chunked(k), * vc = chunked(v), * bc = per_token(beta);
    ggml_tensor * gam = mul_mat_f32(ctx, dn.lower, ggml_reshape_2d(ctx, per_token(g), C, N * HB)); // gamma_t = sum_{j<=t} g_j
    ggml_tensor * gam_row = ggml_reshape_4d(ctx, gam, 1, C, N, HB), * gam_col = ggml_reshape_4d(ctx, gam, C, 1, N, HB);
    // e^(gamma_t - gamma_j), masked before exp (the upper triangle could overflow); broadcasts go
    // through ADD, whose backward reduces them (SUB's does not)
    ggml_tensor * diff = ggml_add(ctx, ggml_repeat_4d(ctx, gam_row, C, C, N, HB), ggml_neg(ctx, gam_col));
    ggml_tensor * ex = ggml_exp(ctx, ggml_mul(ctx, diff, dn.lower));
    ggml_tensor * decay_lower = ggml_mul(ctx, ex, dn.lower), * decay_strict = ggml_mul(ctx, ex, dn.strict);

    ggml_tensor * kb = ggml_mul(ctx, kc, bc), * vb = ggml_mul(ctx, vc, bc);
    ggml_tensor * A = ggml_mul(ctx, mul_mat_f32(ctx, kc, kb), decay_strict);
    // T = (I + A)^-1 by doubling: M_2b = M_b - M_b P_b M_b, where P_b holds A's entries between
    // the halves of each block of 2b and M_b inverts the blocks of b; M_2 = I - P_1 (C = 1: the
    // plane is all zero, M = I).
    auto between_halves = [&](int l) { return ggml_mul(ctx, A, ggml_view_2d(ctx, dn.halves, C, C, dn.halves->nb[1], l * dn.halves->nb[2])); };
    ggml_tensor * M = ggml_add(ctx, ggml_neg(ctx, between_halves(0)), dn.eye);
    for (int l = 1; (1 << l) < C; l++) {
        ggml_tensor * P = between_halves(l);
        ggml_tensor * pm_t = mul_mat_f32(ctx, P, transposed(ctx, M)); // (P M)^T
        M = ggml_sub(ctx, M, mul_mat_f32(ctx, pm_t, M));             // M - M (P M)
    }
    tag(M, "dn_inverse", il);
    ggml_tensor * eg = ggml_exp(ctx, gam_row);
    ggml_tensor * vt = transposed(ctx, mul_mat_f32(ctx, transposed(ctx, vb), M));             // V'^T [C, dv, N, HB]
    ggml_tensor * kcd = mul_mat_f32(ctx, transposed(ctx, ggml_mul(ctx, kb, eg)), M);          // K' [dk, C, N, HB]
    ggml_tensor * qg = ggml_mul(ctx, qc, eg);
    ggml_tensor * kq = ggml_mul(ctx, mul_mat_f32(ctx, kc, qc), decay_lower);                   // (j, t), j <= t
    ggml_tensor * glast = ggml_cont(ctx, ggml_view_4d(ctx, gam_row, 1, 1, N, HB, gam_row->nb[1], gam_row->nb[2], gam_row->nb[3], (C - 1) * gam_row->nb[1]));
    ggml_tensor * kg_t = transposed(ctx, ggml_mul(ctx, kc, ggml_exp(ctx, ggml_add(ctx, ggml_neg(ctx, gam_row), glast)))); // [C, dk, N, HB]
    ggml_tensor * elast = ggml_exp(ctx, glast);

    // Across chunks: S [dk, dv] per head and sequence, from zero (a window starts a sequence).
    auto slice = [&](ggml_tensor * t, int64_t c) { return ggml_view_4d(ctx, t, t->ne[0], t->ne[1], 1, t->ne[3], t->nb[1], t->nb[2], t->nb[3], c * t->nb[2]); };
    ggml_tensor * out = N > 1 ? ggml_view_4d(ctx, dn.zeros, dv, C, N, HB, dv * f, dv * C * f, dv * Tp * f, 0) : nullptr;
    ggml_tensor * S = nullptr;
    for (int64_t c = 0; c < N; c++) {
        ggml_tensor * delta_t = slice(vt, c); // [C, dv]
        if (S) delta_t = ggml_sub(ctx, delta_t, mul_mat_f32(ctx, slice(kcd, c), S));
        ggml_tensor * o = mul_mat_f32(ctx, delta_t, slice(kq, c)); // [dv, C]
        if (S) o = ggml_add(ctx, o, mul_mat_f32(ctx, S, slice(qg, c)));
        if (c + 1 < N) {
            ggml_tensor * upd = mul_mat_f32(ctx, slice(kg_t, c), delta_t); // [dk, dv]
            S = S ? ggml_add(ctx, ggml_mul(ctx, S, slice(elast, c)), upd) : upd;
        }
        // ACC onto zeros rather than SET: SET's backward negates a strided view, which CUDA runs on the CPU
        out = N == 1 ? o : ggml_acc(ctx, out, o, out->nb[1], out->nb[2], out->nb[3], c * out->nb[2]);
    }
    // [dv, Tp, Hv, B] -> [dv, Hv, T, B]
    ggml_tensor * o = ggml_cont(ctx, ggml_permute(ctx, ggml_reshape_4d(ctx, out, dv, Tp, Hv, B), 0, 2, 1, 3)); // behind a RESHAPE
    if (Tp != T) o = ggml_cont(ctx, ggml_view_4d(ctx, o, dv, Hv, T, B, o->nb[1], o->nb[2], o->nb[3], 0));
    tag(o, "dn_core", il);

    // the gated RMS norm per head: norm(o) * w * silu(z), then ssm_out
    ggml_tensor * zt = ggml_cont(ctx, ggml_view_4d(ctx, z, dv, Hv, T, B, dv * f, z->nb[1], z->nb[1] * W, z->nb[1] * (K - 1)));
    ggml_tensor * gated = ggml_mul(ctx, ggml_mul(ctx, ggml_rms_norm(ctx, o, hp.norm_eps), L.ssm_norm), ggml_silu(ctx, zt));
    return tag(mm(L.ssm_out, ggml_reshape_2d(ctx, gated, Hv * dv, (int64_t) T * B)), "dn_out", il);
}

} // namespace hone
