#include "graph.h"

#include "error.h"
#include "fused_attention.h"
#include "ggml-backend.h"
#include "lora.h"
#include "model.h"
#include "moe_ffn.h"
#include "per_layer_embeddings.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace hone {

ForwardInputs make_forward_inputs(ggml_context * ctx, const Hparams & hp, int T, int B, bool packed) {
    ForwardInputs in;
    in.n_ctx = T;
    in.packed = packed;
    const int64_t R = packed ? B : 1; // mask planes: one per row when rows are packed
    in.tokens = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, (int64_t) T * B);
    in.pos = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, (int64_t) T * B * hp.n_pos_per_token());
    in.kq_mask = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, T, T, hp.alibi_max_bias > 0.0f ? hp.n_head : 1, R);
    ggml_set_name(in.tokens, "inp_tokens");
    ggml_set_name(in.pos, "inp_pos");
    ggml_set_name(in.kq_mask, "kq_mask");
    for (ggml_tensor * t : { in.tokens, in.pos, in.kq_mask }) ggml_set_input(t);
    if (hp.attn_temp_scale != 0.0f) {
        in.attn_temp = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 1, 1, (int64_t) T * B);
        ggml_set_name(in.attn_temp, "attn_temp");
        ggml_set_input(in.attn_temp);
        in.attn_temp_scale = hp.attn_temp_scale;
        in.attn_temp_floor = hp.n_ctx_orig;
    }
    if (hp.n_swa > 0) {
        in.kq_mask_swa = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, T, T, 1, R);
        ggml_set_name(in.kq_mask_swa, "kq_mask_swa");
        ggml_set_input(in.kq_mask_swa);
    }
    // the fused attention's masks (F16, as ggml_flash_attn_ext takes them); a graph whose
    // layers are all unfused leaves them unallocated, as every-layer-windowed models leave kq_mask
    in.kq_mask_f16 = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, T, T, 1, R);
    ggml_set_name(in.kq_mask_f16, "kq_mask_f16");
    ggml_set_input(in.kq_mask_f16);
    if (hp.n_swa > 0) {
        in.kq_mask_swa_f16 = ggml_new_tensor_4d(ctx, GGML_TYPE_F16, T, T, 1, R);
        ggml_set_name(in.kq_mask_swa_f16, "kq_mask_swa_f16");
        ggml_set_input(in.kq_mask_swa_f16);
    }
    // outputs too: the allocator then never lends their memory to a later node, so the masks a
    // trainer uploaded once stay valid for every step (set_attention_masks)
    for (ggml_tensor * t : { in.kq_mask, in.kq_mask_swa, in.kq_mask_f16, in.kq_mask_swa_f16 }) {
        if (t) ggml_set_output(t);
    }
    if (hp.desc && hp.desc->delta_net) in.dn = make_delta_net_inputs(ctx, hp, T, B);
    return in;
}

size_t training_graph_size(const Hparams & hp, int T) {
    size_t n = 4096 + (size_t) hp.n_layer * 1024;
    for (char recurrent : hp.recurrent_l) n += recurrent ? delta_net_graph_nodes(T) : 0;
    return n;
}

void set_positions(const ForwardInputs & in, const std::vector<int32_t> & pos) {
    if (in.attn_temp && in.attn_temp->buffer) { // as llama.cpp's llm_graph_input_attn_temp
        std::vector<float> t(pos.size());
        for (size_t i = 0; i < pos.size(); i++) {
            t[i] = std::log(std::floor((float) pos[i] / (float) in.attn_temp_floor) + 1.0) * in.attn_temp_scale + 1.0;
        }
        ggml_backend_tensor_set(in.attn_temp, t.data(), 0, t.size() * sizeof(float));
    }
    if (!in.pos->buffer) return; // no RoPE (ALiBi, NoPE-only models): the graph never reads positions
    const size_t n = pos.size();
    if ((size_t) in.pos->ne[0] == n) {
        ggml_backend_tensor_set(in.pos, pos.data(), 0, n * sizeof(int32_t));
        return;
    }
    std::vector<int32_t> all(4 * n, 0);
    for (size_t j = 0; j < 3; j++) std::copy(pos.begin(), pos.end(), all.begin() + j * n);
    ggml_backend_tensor_set(in.pos, all.data(), 0, all.size() * sizeof(int32_t));
}

void set_attention_masks(const ForwardInputs & in, const Hparams & hp, int T, const std::vector<int32_t> * segments) {
    const int heads = (int) in.kq_mask->ne[2], rows = (int) in.kq_mask->ne[3];
    // ggml_soft_max_ext's ALiBi slopes, computed as it computes them
    const uint32_t n_head_log2 = 1u << (uint32_t) std::floor(std::log2((float) heads));
    const float m0 = std::pow(2.0f, -hp.alibi_max_bias / n_head_log2);
    const float m1 = std::pow(2.0f, -(hp.alibi_max_bias / 2.0f) / n_head_log2);
    const size_t TT = (size_t) T * T;
    // key k is visible to query q of row b: earlier (or itself), and of the same sequence
    auto visible = [&](int b, int q, int k) { return k <= q && (!segments || (*segments)[(size_t) b * T + q] == (*segments)[(size_t) b * T + k]); };
    std::vector<float> mask(TT * heads * rows);
    for (int b = 0; b < rows; b++) {
        for (int h = 0; h < heads; h++) {
            const float slope = hp.alibi_max_bias <= 0.0f ? 0.0f : (uint32_t) h < n_head_log2 ? std::pow(m0, h + 1) : std::pow(m1, 2 * (h - n_head_log2) + 1);
            float * plane = mask.data() + ((size_t) b * heads + h) * TT;
            for (int q = 0; q < T; q++) {
                for (int k = 0; k < T; k++) plane[(size_t) q * T + k] = visible(b, q, k) ? slope * (float) (k - q) : -INFINITY;
            }
        }
    }
    std::vector<ggml_fp16_t> half(TT * rows);
    // F32 and F16 forms, each where the graph reads it; the F16 form has plane 0 of each row
    // (ALiBi layers stay unfused)
    auto upload = [&](ggml_tensor * f32, ggml_tensor * f16, int planes) {
        if (f32 && f32->buffer) ggml_backend_tensor_set(f32, mask.data(), 0, TT * planes * rows * sizeof(float));
        if (f16 && f16->buffer) {
            for (int b = 0; b < rows; b++) ggml_fp32_to_fp16_row(mask.data() + (size_t) b * planes * TT, half.data() + (size_t) b * TT, (int64_t) TT);
            ggml_backend_tensor_set(f16, half.data(), 0, half.size() * sizeof(ggml_fp16_t));
        }
    };
    upload(in.kq_mask, in.kq_mask_f16, heads); // unused when every layer is windowed
    if (in.kq_mask_swa) {
        // llama.cpp's standard window: query q sees keys q - n_swa + 1 .. q
        for (int b = 0; b < rows; b++) {
            for (int q = 0; q < T; q++) {
                for (int k = 0; k < T; k++) mask[(size_t) b * TT + (size_t) q * T + k] = visible(b, q, k) && q - k < hp.n_swa ? 0.0f : -INFINITY;
            }
        }
        upload(in.kq_mask_swa, in.kq_mask_swa_f16, 1);
    }
}

bool attention_mask_exactly_causal(const Hparams & hp, int il) { return !hp.swa_l[il] && hp.alibi_max_bias <= 0.0f; }

void set_causal_mask(const ForwardInputs & in, const Hparams & hp, int T) {
    set_attention_masks(in, hp, T);
    set_delta_net_inputs(in.dn);
}

// The scaled rank-r products scale·A·x of one layer, keyed by fused A: q/k/v (and gate/up)
// multiply their shared input by their fused A once.
struct SharedProducts {
    std::map<const ggml_tensor *, std::pair<const ggml_tensor *, ggml_tensor *>> by_a; // fused A -> (x, product)
};

// W·x plus the adapter's B·(scale·A·x). llama.cpp scales B·A·x (build_lora_mm); scaling the
// rank-r product instead is the same up to rounding and keeps the scale (and its backward)
// off the full-width activations: 2 x 7 passes over [n_out, tokens] per layer saved.
static ggml_tensor * lora_mm(ggml_context * ctx, const hone_adapter * ad, ggml_tensor * w, ggml_tensor * x, SharedProducts & shared) {
    const LoraPair * p = ad ? ad->find(w) : nullptr;
    if (!p) return ggml_mul_mat(ctx, w, x);
    ggml_tensor * ax;
    if (p->fused_a) {
        auto it = shared.by_a.find(p->fused_a);
        if (it == shared.by_a.end() || it->second.first != x) {
            it = shared.by_a.insert_or_assign(p->fused_a, std::make_pair(x, ggml_scale(ctx, ggml_mul_mat(ctx, p->fused_a, x), ad->scale()))).first;
        }
        ggml_tensor * all = it->second.second; // [r * members, tokens]
        const int64_t r = p->a->ne[1];
        ax = ggml_cont(ctx, ggml_view_2d(ctx, all, r, all->ne[1], all->nb[1], (size_t) p->slot * r * all->nb[0]));
    } else {
        ax = ggml_scale(ctx, ggml_mul_mat(ctx, p->a, x), ad->scale());
    }
    // the LoRA term built first, W·x last: W·x is then the node just before the sum, which
    // ggml-cuda runs as one GEMM accumulating into the sum (patch 0013); a + b == b + a exactly
    ggml_tensor * lora = ggml_mul_mat(ctx, p->b, ax);
    return ggml_add(ctx, lora, ggml_mul_mat(ctx, w, x));
}

// Names forward tensors "<what>-<layer>" so the op report can place every node in a layer.

static ggml_tensor * add_bias(ggml_context * ctx, ggml_tensor * x, ggml_tensor * b) { return b ? ggml_add(ctx, x, b) : x; }

// The architecture's norm (RMS or LayerNorm) times its weight plus its bias (Talkie's norms
// have no weight; only LayerNorms have biases).
static ggml_tensor * norm(ggml_context * ctx, const Hparams & hp, ggml_tensor * x, ggml_tensor * w, ggml_tensor * b = nullptr) {
    // ggml-cuda's RMS_NORM_BACK reads the forward input as contiguous rows, so a view (Q and K of a
    // fused Q/K/V) is copied first; the copy changes no value on any backend
    if (!ggml_is_contiguous(x)) x = ggml_cont(ctx, x);
    ggml_tensor * n = hp.layer_norm ? ggml_norm(ctx, x, hp.norm_eps) : ggml_rms_norm(ctx, x, hp.norm_eps);
    if (w) n = ggml_mul(ctx, n, w);
    return b ? ggml_add(ctx, n, b) : n;
}

ggml_tensor * gelu(ggml_context * ctx, ggml_tensor * g, bool smooth) {
    if (!smooth) return ggml_gelu(ctx, g);
    ggml_tensor * inner = ggml_mul(ctx, g, ggml_scale_bias(ctx, ggml_sqr(ctx, g), 0.7978845608f * 0.044715f, 0.7978845608f));
    return ggml_mul(ctx, g, ggml_scale_bias(ctx, ggml_tanh(ctx, inner), 0.5f, 0.5f));
}

// [hd, heads, T*B] -> [hd, T, heads, B] (a view; rows stay contiguous).
static ggml_tensor * heads_first(ggml_context * ctx, ggml_tensor * x, int hd, int heads, int T, int B) {
    return ggml_permute(ctx, ggml_reshape_4d(ctx, x, hd, heads, T, B), 0, 2, 1, 3);
}

// Grouped-query attention relies on MUL_MAT broadcasting K/V heads over Q heads; its backward
// only handles that broadcast for a single sequence, so with several sequences K/V heads are
// repeated explicitly (head h reads kv head h / (n_head / n_head_kv), as in the broadcast).
static ggml_tensor * repeat_kv(ggml_context * ctx, ggml_tensor * x, int n_head) {
    const int64_t n_kv = x->ne[2];
    if (n_kv == n_head || x->ne[3] == 1) return x;
    ggml_tensor * c = ggml_cont(ctx, x);
    c = ggml_reshape_4d(ctx, c, c->ne[0] * c->ne[1], 1, n_kv, c->ne[3]);
    c = ggml_repeat_4d(ctx, c, c->ne[0], n_head / n_kv, n_kv, c->ne[3]);
    return ggml_reshape_4d(ctx, c, x->ne[0], x->ne[1], n_head, x->ne[3]);
}

// A layer's K and V [hd, kv heads, T*B], as attention reads them.
struct LayerKv {
    ggml_tensor * k = nullptr, * v = nullptr;
};

// What one layer's attention and FFN builders share.
struct LayerCtx {
    ggml_context * ctx;
    const hone_model & m;
    const hone_adapter * ad;
    const ForwardInputs & in;
    SharedProducts & shared;
    std::vector<LayerKv> & kv; // each layer's K and V after norms and RoPE (shared-K/V layers read an earlier one's)
    int T, B, il;
    ggml_tensor * mm(ggml_tensor * w, ggml_tensor * x) const { return lora_mm(ctx, ad, w, x, shared); }
    ggml_tensor * norm(ggml_tensor * x, ggml_tensor * w) const { return hone::norm(ctx, m.hp, x, w); }
};

// RoPE as llama.cpp runs it: per-layer base and scale (windowed layers may differ), YaRN's
// ext_factor and original context, the attention factor, beta fast/slow 32/1.
static ggml_tensor * rope(const LayerCtx & c, ggml_tensor * x) {
    const Hparams & hp = c.m.hp;
    const float base = hp.rope_base_l[c.il], scale = hp.rope_scale_l[c.il];
    const float ext = hp.rope_ext_l[c.il], attn = hp.rope_attn_l[c.il];
    const int n_rot = hp.n_rot_l[c.il];
    // Gemma 4: the frequency factors (proportional RoPE) in global layers only; LongRoPE's set by
    // the context, as llama.cpp's get_rope_factors
    ggml_tensor * factors = hp.desc->rope_factors_global && hp.swa_l[c.il] ? nullptr : c.m.rope_freqs;
    if (!c.m.rope_freqs) factors = c.in.n_ctx > hp.n_ctx_orig ? c.m.rope_long : c.m.rope_short;
    if (hp.n_pos_per_token() > 1) {
        int sections[4] = { hp.rope_sections[0], hp.rope_sections[1], hp.rope_sections[2], hp.rope_sections[3] };
        return ggml_rope_multi(c.ctx, x, c.in.pos, factors, n_rot, sections, hp.rope_type, hp.n_ctx_orig,
                               base, scale, ext, attn, 32.0f, 1.0f);
    }
    return ggml_rope_ext(c.ctx, x, c.in.pos, factors, n_rot, hp.rope_type, hp.n_ctx_orig, base, scale, ext, attn, 32.0f, 1.0f);
}

// Q, K and V [hd, heads, T*B] from the normed input, normed and rotated as the architecture does;
// `gate` [hd*heads, T*B]: the output gate a gated Q projection carries (arch::Desc::q_gate), else null.
static void qkv(const LayerCtx & c, ggml_tensor * x, ggml_tensor *& q, ggml_tensor *& k, ggml_tensor *& v, ggml_tensor *& gate) {
    ggml_context * ctx = c.ctx;
    const Hparams & hp = c.m.hp;
    const arch::Desc & d = *hp.desc;
    const LayerWeights & L = c.m.layers[c.il];
    const int hd = hp.head_dim_l[c.il], nh = hp.n_head_l[c.il], nkv = hp.n_head_kv_l[c.il], N = c.T * c.B, il = c.il;
    // OLMo's attention.clamp_kqv, as llama.cpp's build_qkv applies it (after the biases)
    auto clamped = [&](ggml_tensor * t) { return hp.clamp_kqv > 0.0f ? ggml_clamp(ctx, t, -hp.clamp_kqv, hp.clamp_kqv) : t; };
    if (L.wqkv) {
        // fused Q/K/V as llama.cpp's build_qkv splits them: heads of Q, then K, then V per token
        ggml_tensor * f = tag(clamped(add_bias(ctx, c.mm(L.wqkv, x), L.bqkv)), "qkv", il);
        const size_t e = ggml_element_size(f), third = (size_t) f->ne[0] / 3 * e; // CogVLM's K and V offsets
        q = ggml_view_3d(ctx, f, hd, nh, N, hd * e, f->nb[1], 0);
        k = ggml_view_3d(ctx, f, hd, nkv, N, hd * e, f->nb[1], d.qkv_thirds ? third : (size_t) hd * nh * e);
        v = ggml_view_3d(ctx, f, hd, nkv, N, hd * e, f->nb[1], d.qkv_thirds ? 2 * third : (size_t) hd * (nh + nkv) * e);
    } else {
        q = tag(clamped(add_bias(ctx, c.mm(L.wq, x), L.bq)), "q", il);
        k = L.wk ? tag(clamped(add_bias(ctx, c.mm(L.wk, x), L.bk)), "k", il) : nullptr; // none in a shared-K/V layer
        v = L.wv ? tag(clamped(add_bias(ctx, c.mm(L.wv, x), L.bv)), "v", il) : k;        // Gemma 4 without attn_v: K's projection
        if (d.qk_norm == arch::QkNorm::WHOLE) {
            q = c.norm(q, L.q_norm);
            k = c.norm(k, L.k_norm);
        }
        if (d.q_gate) { // each head's Q, then its gate (Qwen3.5)
            const size_t e = ggml_element_size(q);
            gate = tag(ggml_cont_2d(ctx, ggml_view_3d(ctx, q, hd, nh, N, 2 * hd * e, q->nb[1], hd * e), (int64_t) hd * nh, N), "q_gate", il);
            q = ggml_view_3d(ctx, q, hd, nh, N, 2 * hd * e, q->nb[1], 0);
        } else {
            q = ggml_reshape_3d(ctx, q, hd, nh, N);
        }
        if (k) {
            k = ggml_reshape_3d(ctx, k, hd, nkv, N);
            v = ggml_reshape_3d(ctx, v, hd, nkv, N);
        }
    }
    if (v && d.v_norm) v = tag(c.norm(v, nullptr), "v_norm", il); // Gemma 4: RMS-normed per head, no weight
    const bool before_rope = d.qk_norm != arch::QkNorm::WHOLE && d.qk_norm != arch::QkNorm::AFTER_ROPE;
    if (L.q_norm && before_rope) q = c.norm(q, L.q_norm);
    if (L.k_norm && before_rope) k = c.norm(k, L.k_norm);
    if (hp.rope_l[il]) {
        q = tag(rope(c, q), "q_rope", il);
        if (k) k = tag(rope(c, k), "k_rope", il);
    }
    if (c.in.attn_temp) q = tag(ggml_mul(ctx, q, c.in.attn_temp), "q_temp", il); // Mistral 3
    // Hunyuan, Maincoder, Talkie: norms after RoPE (Talkie's K norm has no weight)
    if (d.qk_norm == arch::QkNorm::AFTER_ROPE) {
        if (L.q_norm) q = c.norm(q, L.q_norm);
        if (L.k_norm || d.norms == arch::Norms::WEIGHTLESS) k = c.norm(k, L.k_norm);
    }
    if (hp.q_scale != 0.0f) q = ggml_scale(ctx, q, hp.q_scale); // Gemma, Phi-3; the KQ scale is then 1
}

// Scores, softmax and products as separate nodes: [hd*nh, T*B]. Every backend trains it; the
// scores and probabilities ([T, T, nh, B] each, with their gradients) are held for the backward.
static ggml_tensor * unfused_attention(const LayerCtx & c, ggml_tensor * q, ggml_tensor * k, ggml_tensor * v, float kq_scale) {
    ggml_context * ctx = c.ctx;
    const Hparams & hp = c.m.hp;
    const LayerWeights & L = c.m.layers[c.il];
    const int hd = hp.head_dim_l[c.il], nh = hp.n_head_l[c.il], nkv = hp.n_head_kv_l[c.il], T = c.T, B = c.B, il = c.il;
    ggml_tensor * q4 = heads_first(ctx, q, hd, nh, T, B);
    ggml_tensor * k4 = repeat_kv(ctx, heads_first(ctx, k, hd, nkv, T, B), nh);
    // V transposed per head: [T, hd, heads, B], as llama.cpp's v_trans cache layout.
    ggml_tensor * vt = ggml_cont(ctx, ggml_permute(ctx, ggml_reshape_4d(ctx, v, hd, nkv, T, B), 1, 2, 0, 3));
    vt = repeat_kv(ctx, vt, nh);

    ggml_tensor * kq = tag(ggml_mul_mat(ctx, k4, q4), "kq", il); // [T_k, T_q, nh, B]
    ggml_mul_mat_set_prec(kq, GGML_PREC_F32);
    if (hp.attn_softcap > 0.0f) { // Gemma 2: cap * tanh(scores / cap)
        kq = ggml_scale(ctx, ggml_tanh(ctx, ggml_scale(ctx, kq, 1.0f / hp.attn_softcap)), hp.attn_softcap);
    }
    // ALiBi's biases come in the mask (set_causal_mask)
    kq = ggml_soft_max_ext(ctx, kq, hp.swa_l[il] ? c.in.kq_mask_swa : c.in.kq_mask, kq_scale, 0.0f);
    if (L.attn_sinks) ggml_soft_max_add_sinks(kq, L.attn_sinks); // its backward to kq is softmax's own
    tag(kq, "kq_soft_max", il);
    ggml_tensor * kqv = tag(ggml_mul_mat(ctx, vt, kq), "kqv", il); // [hd, T_q, nh, B]
    return ggml_cont_2d(ctx, ggml_permute(ctx, kqv, 0, 2, 1, 3), (int64_t) hd * nh, (int64_t) T * B);
}

// The same attention as one fused op (ggml_flash_attn_ext; its backward recomputes scores and
// probabilities per query block, so nothing of size T x T is held): [hd*nh, T*B], or null where
// the layer or the primary backend needs the unfused graph. ALiBi's per-head biases stay in the
// unfused path's F32 mask (an F16 mask would round them); a soft cap only with a KQ scale of 1
// (the fused op caps the scaled scores, the unfused graph caps before scaling, as llama.cpp's
// two paths do: they agree only then, as for Gemma 2, whose queries carry the scale).
static ggml_tensor * fused_attention(const LayerCtx & c, ggml_tensor * q, ggml_tensor * k, ggml_tensor * v, float kq_scale) {
    ggml_context * ctx = c.ctx;
    const Hparams & hp = c.m.hp;
    const LayerWeights & L = c.m.layers[c.il];
    const int hd = hp.head_dim_l[c.il], nh = hp.n_head_l[c.il], nkv = hp.n_head_kv_l[c.il], T = c.T, B = c.B, il = c.il;
    if (!fused_attention_allowed() || hp.alibi_max_bias > 0.0f || (hp.attn_softcap > 0.0f && kq_scale != 1.0f)) return nullptr;
    // grouped-query heads broadcast inside the op: no repeated K/V
    ggml_tensor * kqv = ggml_flash_attn_ext(ctx, heads_first(ctx, q, hd, nh, T, B), heads_first(ctx, k, hd, nkv, T, B),
                                            heads_first(ctx, v, hd, nkv, T, B), hp.swa_l[il] ? c.in.kq_mask_swa_f16 : c.in.kq_mask_f16,
                                            kq_scale, 0.0f, hp.attn_softcap > 0.0f ? hp.attn_softcap : 0.0f);
    if (L.attn_sinks) ggml_flash_attn_ext_add_sinks(kqv, L.attn_sinks);
    ggml_flash_attn_ext_set_prec(kqv, GGML_PREC_F32);
    // both masks are causal: the backward may skip later keys; an exactly causal one it may
    // apply by position without reading it
    const bool exact = !c.in.packed && attention_mask_exactly_causal(hp, il);
    if (exact) ggml_flash_attn_ext_set_causal_exact(kqv);
    else ggml_flash_attn_ext_set_causal(kqv, true);
    ggml_backend_t backend = c.in.attention_backend ? c.in.attention_backend : c.m.backends.primary;
    if (!backend_runs_fused_attention(backend, kqv)) return nullptr;
    // the rows' log-sum-exp from the forward, so that the backward need not recompute it
    if (exact && !L.attn_sinks && hp.attn_softcap == 0.0f) {
        ggml_tensor * lse = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, T, nh, B);
        if (give_attention_lse(backend, kqv, lse)) tag(lse, "kqv_lse", il);
    }
    tag(kqv, "kqv", il); // [hd, nh, T, B]: already the heads-last layout the output projection reads
    return ggml_reshape_2d(ctx, kqv, (int64_t) hd * nh, (int64_t) T * B);
}

// Attention over the micro-batch's own K and V, through attn_output: [n_embd, T*B].
static ggml_tensor * attention(const LayerCtx & c, ggml_tensor * x) {
    ggml_context * ctx = c.ctx;
    const Hparams & hp = c.m.hp;
    const LayerWeights & L = c.m.layers[c.il];
    const int il = c.il;
    const float kq_scale = hp.q_scale != 0.0f ? 1.0f : hp.attention_scale != 0.0f ? hp.attention_scale : 1.0f / std::sqrt((float) hp.head_dim_l[il]);
    ggml_tensor * q, * k, * v, * gate = nullptr;
    qkv(c, x, q, k, v, gate);
    // views of a fused Q/K/V that no RoPE or norm has copied yet
    auto contiguous = [&](ggml_tensor * t) { return ggml_is_contiguous(t) ? t : ggml_cont(ctx, t); };
    q = contiguous(q);
    if (hp.has_kv(il)) c.kv[il] = { contiguous(k), contiguous(v) };
    // a shared-K/V layer attends to its source layer's K and V: their gradients flow back there
    const LayerKv & read = c.kv[hp.kv_from(il)];
    k = read.k;
    v = read.v;
    ggml_tensor * cur = fused_attention(c, q, k, v, kq_scale);
    if (!cur) cur = unfused_attention(c, q, k, v, kq_scale);
    if (gate) cur = tag(ggml_mul(ctx, cur, sigmoid_differentiable(ctx, gate)), "attn_gated", il);
    if (L.attn_sub_norm) cur = tag(c.norm(cur, L.attn_sub_norm), "attn_sub_norm", il);
    cur = tag(add_bias(ctx, c.mm(L.wo, cur), L.bo), "attn_out", il);
    if (L.attn_post_norm) cur = tag(c.norm(cur, L.attn_post_norm), "attn_post_norm", il);
    return cur;
}

static ggml_tensor * dense_ffn(const LayerCtx & c, ggml_tensor * x);

// Gemma 4 26B-A4B: the dense FFN (post_ffw_norm_1 after it) and the experts (pre_ffw_norm_2
// before, post_ffw_norm_2 after) side by side, as llama.cpp's gemma4 graph; the router reads the
// layer's input RMS-normed without a weight, over √n_embd, times ffn_gate_inp.scale.
static ggml_tensor * dense_and_experts(const LayerCtx & c, ggml_tensor * x, ggml_tensor * ffn_inp) {
    ggml_context * ctx = c.ctx;
    const LayerWeights & L = c.m.layers[c.il];
    const Hparams & hp = c.m.hp;
    ggml_tensor * dense = tag(c.norm(dense_ffn(c, x), L.ffn_post_norm_1), "ffn_mlp", c.il);
    ggml_tensor * router_in = ggml_scale(ctx, ggml_rms_norm(ctx, ffn_inp, hp.norm_eps), 1.0f / sqrtf((float) hp.n_embd));
    router_in = ggml_mul(ctx, router_in, L.ffn_gate_inp_s);
    ggml_tensor * experts = moe_ffn(ctx, hp, L, tag(c.norm(ffn_inp, L.ffn_pre_norm_2), "ffn_norm_2", c.il), router_in, c.il, c.in.smooth_gelu);
    experts = tag(c.norm(experts, L.ffn_post_norm_2), "ffn_moe", c.il);
    return tag(ggml_add(ctx, dense, experts), "ffn_moe_combined", c.il);
}

// Arctic: the dense FFN of x and, beside it, the experts over the layer's input (before
// attention) through their own norm, as llama.cpp's arctic graph.
static ggml_tensor * dense_and_parallel_experts(const LayerCtx & c, ggml_tensor * x, ggml_tensor * layer_in) {
    const LayerWeights & L = c.m.layers[c.il];
    ggml_tensor * dense = dense_ffn(c, x);
    ggml_tensor * normed = tag(c.norm(layer_in, L.ffn_norm_exps), "ffn_norm_exps", c.il);
    ggml_tensor * experts = moe_ffn(c.ctx, c.m.hp, L, normed, normed, c.il, c.in.smooth_gelu);
    return tag(ggml_add(c.ctx, dense, experts), "ffn_moe_combined", c.il);
}

// The FFN of the normed input x (ffn_inp: the layer's input to it before the norm, which Gemma
// 4's router reads; layer_in: the layer's input before attention, which Arctic's experts read):
// a dense FFN, a mixture of experts (moe_ffn.cpp), or both side by side.
static ggml_tensor * ffn(const LayerCtx & c, ggml_tensor * x, ggml_tensor * ffn_inp = nullptr, ggml_tensor * layer_in = nullptr) {
    const LayerWeights & L = c.m.layers[c.il];
    if (L.ffn_norm_exps) return dense_and_parallel_experts(c, x, layer_in);
    if (c.m.hp.desc->moe == arch::Moe::SOFTMAX_NORM_OPTIONAL_DENSE && L.ffn_gate_inp) { // Grok: experts, and the dense FFN where there is one
        ggml_tensor * cur = moe_ffn(c.ctx, c.m.hp, L, x, x, c.il, c.in.smooth_gelu);
        if (L.ffn_up) cur = tag(ggml_scale(c.ctx, ggml_add(c.ctx, dense_ffn(c, x), cur), (float) M_SQRT1_2), "ffn_moe_combined", c.il);
        return L.ffn_post_norm ? tag(c.norm(cur, L.ffn_post_norm), "ffn_post_norm", c.il) : cur;
    }
    if (L.ffn_gate_inp && !L.ffn_pre_norm_2) { // SmallThinker's router reads the layer's input before any norm
        ggml_tensor * router_in = c.m.hp.desc->moe == arch::Moe::GATED_NORM_RAW_ROUTER ? layer_in : x;
        return moe_ffn(c.ctx, c.m.hp, L, x, router_in, c.il, c.in.smooth_gelu);
    }
    ggml_tensor * cur = L.ffn_pre_norm_2 ? dense_and_experts(c, x, ffn_inp) : dense_ffn(c, x);
    if (L.ffn_post_norm) cur = tag(c.norm(cur, L.ffn_post_norm), "ffn_post_norm", c.il);
    return cur;
}

// A dense FFN: SwiGLU (gate and up separate or fused), Arcee's relu^2, GELU, GEGLU.
static ggml_tensor * dense_ffn(const LayerCtx & c, ggml_tensor * x) {
    ggml_context * ctx = c.ctx;
    const LayerWeights & L = c.m.layers[c.il];
    const int il = c.il;
    ggml_tensor * up = tag(add_bias(ctx, c.mm(L.ffn_up, x), L.b_up), "ffn_up", il);
    ggml_tensor * cur;
    const arch::Ffn kind = c.m.hp.desc->ffn;
    if (kind == arch::Ffn::RELU2) {
        cur = ggml_sqr(ctx, ggml_relu(ctx, up));
    } else if (kind == arch::Ffn::GELU) {
        cur = gelu(ctx, up, c.in.smooth_gelu);
    } else if (L.ffn_gate) {
        ggml_tensor * gate = tag(add_bias(ctx, c.mm(L.ffn_gate, x), L.b_gate), "ffn_gate", il);
        // SwiGLU (GEGLU for Gemma) as llama.cpp builds it; the backward recomputes the activation
        if (kind == arch::Ffn::REGLU) {
            cur = ggml_mul(ctx, ggml_relu(ctx, gate), up);
        } else if (kind == arch::Ffn::GEGLU && c.in.smooth_gelu) {
            cur = ggml_mul(ctx, gelu(ctx, gate, true), up);
        } else {
            cur = kind == arch::Ffn::GEGLU ? ggml_geglu_split(ctx, gate, up) : ggml_swiglu_split(ctx, gate, up);
        }
    } else {
        // gate and up fused (ChatGLM, GLM-4): llama.cpp's one-input SwiGLU over the two halves,
        // built split since only the split form has a backward in ggml. The gate half is copied:
        // the backward applies SILU to it, which CUDA runs on contiguous tensors only.
        const int64_t nff = up->ne[0] / 2, N = up->ne[1];
        cur = ggml_swiglu_split(ctx, ggml_cont(ctx, ggml_view_2d(ctx, up, nff, N, up->nb[1], 0)),
                                ggml_view_2d(ctx, up, nff, N, up->nb[1], nff * ggml_element_size(up)));
    }
    tag(cur, "ffn_act", il);
    if (L.ffn_sub_norm) cur = tag(c.norm(cur, L.ffn_sub_norm), "ffn_sub_norm", il);
    return tag(add_bias(ctx, c.mm(L.ffn_down, cur), L.b_down), "ffn_out", il);
}

ggml_tensor * build_trunk(ggml_context * ctx, const hone_model & m, const hone_adapter * ad, const ForwardInputs & in, int T, int B,
                          std::vector<ggml_tensor *> * layer_outputs) {
    const Hparams & hp = m.hp;
    const arch::Desc & d = *hp.desc;
    const bool weightless = d.norms == arch::Norms::WEIGHTLESS;
    auto residual = [&](ggml_tensor * x) { return hp.residual_scale != 0.0f ? ggml_scale(ctx, x, hp.residual_scale) : x; };
    // OLMo 2 and EXAONE 4 have no pre-norms (norms after instead); Talkie's have no weights.
    auto pre_norm = [&](ggml_tensor * x, ggml_tensor * w, ggml_tensor * b, const char * what, int il) {
        return w || weightless ? tag(norm(ctx, hp, x, w, b), what, il) : x;
    };

    SharedProducts shared;
    ggml_tensor * inpL = ggml_get_rows(ctx, m.tok_embd, in.tokens);
    if (hp.embedding_scale != 0.0f) inpL = ggml_scale(ctx, inpL, hp.embedding_scale);
    if (d.embeddings_skip) inpL = ggml_rms_norm(ctx, inpL, hp.norm_eps);
    if (m.tok_norm) inpL = tag(norm(ctx, hp, inpL, m.tok_norm, m.tok_norm_b), "inp_norm", -1); // BLOOM
    if (m.pos_embd) { // GPT-2, StarCoder: one learned row per position
        if (T > m.pos_embd->ne[1]) {
            fail(HONE_E_INVALID_ARG, "%s: a window of %d tokens is longer than the model's %lld learned positions (its context_length)",
                 m.path.c_str(), T, (long long) m.pos_embd->ne[1]);
        }
        inpL = tag(ggml_add(ctx, inpL, ggml_get_rows(ctx, m.pos_embd, in.pos)), "inp_pos_embd", -1);
    }
    ggml_tensor * embd = inpL;
    if (layer_outputs) layer_outputs->push_back(inpL);
    ggml_tensor * pl_rows = hp.n_embd_per_layer > 0 ? per_layer_table_rows(ctx, m, in.tokens) : nullptr; // Gemma 4
    std::vector<LayerKv> kv(hp.n_layer);
    for (int il = 0; il < hp.n_layer; il++) {
        const LayerWeights & L = m.layers[il];
        const LayerCtx c{ ctx, m, ad, in, shared, kv, T, B, il };
        ggml_tensor * attn_in = pre_norm(inpL, L.attn_norm, L.attn_norm_b, "attn_norm", il);
        ggml_tensor * attn = hp.recurrent(il)
                                 ? delta_net(ctx, hp, L, in.dn, [&](ggml_tensor * w, ggml_tensor * x) { return c.mm(w, x); }, attn_in, T, B, il)
                                 : attention(c, attn_in);
        if (d.norms == arch::Norms::PARALLEL) {
            // PLaMo, Phi-2: the FFN reads the attention's input norm and both outputs join the residual
            inpL = tag(ggml_add(ctx, ggml_add(ctx, ffn(c, attn_in), attn), inpL), "l_out", il);
        } else if (hp.parallel_residual) {
            // GPT-NeoX: the FFN reads its own norm of the layer's input; both join the residual
            ggml_tensor * out = ffn(c, pre_norm(inpL, L.ffn_norm, L.ffn_norm_b, "ffn_norm", il));
            inpL = tag(ggml_add(ctx, ggml_add(ctx, out, inpL), attn), "l_out", il);
        } else {
            ggml_tensor * ffn_inp = tag(ggml_add(ctx, residual(attn), inpL), "ffn_inp", il);
            // StableLM 2 12B has no FFN norm: its FFN reads the attention's normed input
            ggml_tensor * ffn_in = !L.ffn_norm && d.tensors.ffn_norm_optional ? attn_in : pre_norm(ffn_inp, L.ffn_norm, L.ffn_norm_b, "ffn_norm", il);
            ggml_tensor * out = ffn(c, ffn_in, ffn_inp, inpL);
            inpL = tag(ggml_add(ctx, residual(out), ffn_inp), "l_out", il);
        }
        if (L.out_scale) inpL = tag(ggml_add(ctx, inpL, ggml_mul(ctx, embd, L.out_scale)), "l_out_skip", il);
        if (pl_rows) {
            ggml_tensor * input = per_layer_input(ctx, m, pl_rows, embd, il);
            inpL = tag(add_per_layer_embedding(ctx, m, L, inpL, input, in.smooth_gelu), "per_layer_embd_out", il);
        }
        if (L.layer_scale) inpL = tag(ggml_mul(ctx, inpL, L.layer_scale), "l_out_scaled", il);
        if (layer_outputs) layer_outputs->push_back(inpL);
    }
    ggml_tensor * cur = norm(ctx, hp, inpL, m.output_norm, m.output_norm_b);
    if (in.row_mask) cur = ggml_mul(ctx, cur, in.row_mask);
    return cur;
}

ggml_tensor * build_head(ggml_context * ctx, const hone_model & m, const hone_adapter * ad, ggml_tensor * cur) {
    const Hparams & hp = m.hp;
    const arch::Desc & d = *hp.desc;
    SharedProducts shared;
    ggml_tensor * logits = add_bias(ctx, lora_mm(ctx, ad, m.output, cur, shared), m.output_b);
    if (hp.final_softcap > 0.0f) {
        logits = ggml_scale(ctx, ggml_tanh(ctx, ggml_scale(ctx, logits, 1.0f / hp.final_softcap)), hp.final_softcap);
    }
    if (d.scales == arch::Scales::LOGIT_MULTIPLIED || d.scales == arch::Scales::GROK) logits = ggml_scale(ctx, logits, hp.logit_scale);
    else if (hp.logit_scale != 0.0f && hp.logit_scale != 1.0f) logits = ggml_scale(ctx, logits, 1.0f / hp.logit_scale);
    ggml_set_name(logits, "logits");
    return logits;
}

ggml_tensor * build_forward(ggml_context * ctx, const hone_model & m, const hone_adapter * ad, const ForwardInputs & in, int T, int B,
                            std::vector<ggml_tensor *> * layer_outputs) {
    return build_head(ctx, m, ad, build_trunk(ctx, m, ad, in, T, B, layer_outputs));
}

int head_chunk_rows(const Hparams & hp) {
    // the largest power of two of rows whose F32 logits stay within the bound
    const int64_t bound = HEAD_CHUNK_BYTES / ((int64_t) std::max(hp.n_vocab, 1) * (int64_t) sizeof(float));
    int rows = 16;
    while ((int64_t) rows * 2 <= bound) rows *= 2;
    return rows;
}

// the mean cross-entropy over all rows times the step's loss scale
static ggml_tensor * scaled_loss(ggml_context * ctx, ggml_tensor * mean_ce, const LossInputs & li) {
    ggml_tensor * loss = ggml_mul(ctx, mean_ce, li.loss_scale);
    ggml_set_name(loss, "loss");
    return loss;
}

TrainingLoss build_training_loss(ggml_context * ctx, const hone_model & m, const hone_adapter & ad, int T, int B,
                                 ggml_backend_t attention_backend, int chunk_rows, bool packed) {
    TrainingLoss t;
    t.in = make_forward_inputs(ctx, m.hp, T, B, packed);
    t.in.attention_backend = attention_backend;
    t.li = make_loss_inputs(ctx, T * B);
    t.in.row_mask = t.li.loss_mask;
    ggml_tensor * cur = build_trunk(ctx, m, &ad, t.in, T, B, &t.layer_outputs);
    const int rows = T * B;
    if (chunk_rows <= 0 || chunk_rows >= rows) {
        t.loss = build_loss(ctx, build_head(ctx, m, &ad, cur), t.li);
    } else {
        // the head and the cross-entropy per chunk of rows, each chunk's mean weighted by its
        // share of the rows: the same mean over all rows
        t.head_input = cur;
        ggml_tensor * sum = nullptr;
        for (int r0 = 0; r0 < rows; r0 += chunk_rows) {
            const int n = std::min(chunk_rows, rows - r0);
            ggml_tensor * x = ggml_view_2d(ctx, cur, cur->ne[0], n, cur->nb[1], (size_t) r0 * cur->nb[1]);
            ggml_tensor * logits = build_head(ctx, m, &ad, x);
            t.head_logits.push_back(logits);
            ggml_tensor * targets = ggml_view_1d(ctx, t.li.targets, n, (size_t) r0 * ggml_element_size(t.li.targets));
            ggml_tensor * ce = ggml_scale(ctx, ggml_cross_entropy_loss(ctx, logits, targets), (float) n / (float) rows);
            sum = sum ? ggml_add(ctx, sum, ce) : ce;
        }
        t.loss = scaled_loss(ctx, sum, t.li);
    }
    ggml_set_output(t.loss);
    ggml_set_loss(t.loss);
    return t;
}

LossInputs make_loss_inputs(ggml_context * ctx, int n_rows) {
    LossInputs li;
    li.targets = ggml_new_tensor_1d(ctx, GGML_TYPE_I32, n_rows);
    li.loss_mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 1, n_rows);
    li.loss_scale = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
    ggml_set_name(li.targets, "targets");
    ggml_set_name(li.loss_mask, "loss_mask");
    ggml_set_name(li.loss_scale, "loss_scale");
    for (ggml_tensor * t : { li.targets, li.loss_mask, li.loss_scale }) ggml_set_input(t);
    return li;
}

ggml_tensor * build_loss(ggml_context * ctx, ggml_tensor * logits, const LossInputs & li) {
    // class indices (patch 0009): no one-hot [n_vocab, rows] labels; the logits' gradient
    // takes the logits' place (the allocator runs the backward in place)
    return scaled_loss(ctx, ggml_cross_entropy_loss(ctx, logits, li.targets), li); // mean over all rows
}

} // namespace hone
