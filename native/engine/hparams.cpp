// Reading an architecture's hyperparameters from a GGUF as llama.cpp's loaders read them, by
// its description (arch/): head and FFN counts per layer, RoPE and attention windows per
// layer, scales and soft caps, and the refusals (with the file and the key named) for what the
// graph does not build.
#include "model.h"

#include "hone_tools.h"
#include "error.h"

#include <cmath>
#include <cstring>

namespace hone {

// A per-layer integer array (bool or any integer width) as a vector of n; empty if the key is
// absent. llama.cpp reads counts as exactly one entry per layer, patterns as at least that many.
static std::vector<int> layer_array(const hone_model & m, const std::string & key, int n, bool exact) {
    const gguf_context * g = m.gguf;
    const int64_t id = gguf_find_key(g, key.c_str());
    if (id < 0) return {};
    const gguf_type t = gguf_get_kv_type(g, id) == GGUF_TYPE_ARRAY ? gguf_get_arr_type(g, id) : GGUF_TYPE_COUNT;
    const bool wide = t == GGUF_TYPE_INT32 || t == GGUF_TYPE_UINT32;
    const bool ints = wide || t == GGUF_TYPE_BOOL || t == GGUF_TYPE_INT8 || t == GGUF_TYPE_UINT8;
    const size_t len = ints ? gguf_get_arr_n(g, id) : 0;
    if (!ints || len < (size_t) n || (exact && len != (size_t) n)) {
        fail(HONE_E_FORMAT, "%s: '%s' must be an integer array of %s%d entries (one per layer)", m.path.c_str(), key.c_str(),
             exact ? "" : "at least ", n);
    }
    const uint8_t * d = (const uint8_t *) gguf_get_arr_data(g, id);
    std::vector<int> v(n);
    for (int i = 0; i < n; i++) v[i] = wide ? ((const int32_t *) d)[i] : t == GGUF_TYPE_INT8 ? (int) (int8_t) d[i] : (int) d[i];
    return v;
}

// A count given once for every layer or as an array with one entry per layer (OpenELM).
static std::vector<int> per_layer(const hone_model & m, const std::string & key, bool required, int def) {
    const int64_t id = gguf_find_key(m.gguf, key.c_str());
    if (id >= 0 && gguf_get_kv_type(m.gguf, id) == GGUF_TYPE_ARRAY) {
        std::vector<int> v = layer_array(m, key, m.hp.n_layer_all, true);
        v.resize(m.hp.n_layer);
        return v;
    }
    if (id < 0 && required) fail(HONE_E_FORMAT, "%s: missing metadata key '%s'", m.path.c_str(), key.c_str());
    return std::vector<int>(m.hp.n_layer, id < 0 ? def : (int) gguf_u32(m.gguf, key, false));
}

// Fails naming the file and the key when a key llama.cpp's loader requires is absent.
static void require_key(const hone_model & m, const std::string & key) {
    if (gguf_find_key(m.gguf, key.c_str()) < 0) fail(HONE_E_FORMAT, "%s: missing metadata key '%s'", m.path.c_str(), key.c_str());
}

// Granite 4: windowed layers and RoPE layers from the file's per-layer patterns (the window
// pattern required, the RoPE pattern optional: all layers by default).
static void read_window_patterns(hone_model & m, uint32_t window) {
    Hparams & hp = m.hp;
    const std::string a = hp.arch_name + ".";
    const int n = hp.n_layer;
    const std::string key = a + "attention.sliding_window_pattern";
    require_key(m, key);
    const int64_t id = gguf_find_key(m.gguf, key.c_str());
    // one value for every layer, as llama.cpp's get_key_or_arr reads a scalar
    const std::vector<int> swa = gguf_get_kv_type(m.gguf, id) == GGUF_TYPE_ARRAY ? layer_array(m, key, n, false)
                                                                                : std::vector<int>(n, (int) gguf_u32(m.gguf, key, true));
    const std::vector<int> rope = layer_array(m, a + "attention.rope_pattern", n, false);
    hp.n_swa = (int) window;
    for (int il = 0; il < n; il++) {
        hp.swa_l[il] = swa[il] != 0;
        if (!rope.empty()) hp.rope_l[il] = hp.has_rope() && rope[il] != 0;
    }
    for (int d : layer_array(m, a + "deepstack_mapping", n, false)) {
        if (d >= 0) fail(HONE_E_UNSUPPORTED, "%s: deepstack inputs ('%sdeepstack_mapping') cannot train yet", m.path.c_str(), a.c_str());
    }
}

// The windowed layers' RoPE, as the description's rule says (global layers keep the file's).
static void apply_window_rope(hone_model & m) {
    Hparams & hp = m.hp;
    const arch::WindowRope r = hp.desc->window.rope;
    const bool own_base = r == arch::WindowRope::OWN_BASE;
    const float swa_base = gguf_f32(m.gguf, hp.arch_name + ".rope.freq_base_swa", own_base ? 10000.0f : hp.rope_freq_base);
    // SmallThinker's graph keeps RoPE everywhere in a model of 4 layers (its NoPE step of 4 equals the depth)
    const bool nope_global = r == arch::WindowRope::GLOBAL_NOPE || r == arch::WindowRope::GLOBAL_NOPE_AFTER_LEAD ||
                             (r == arch::WindowRope::SWA_BASE_GLOBAL_NOPE && hp.n_layer != 4);
    // Cohere 2 MoE's dense leading layers keep RoPE whatever their kind
    const int keep = r == arch::WindowRope::GLOBAL_NOPE_AFTER_LEAD ? hp.n_layer_dense_lead : 0;
    for (int il = 0; il < hp.n_layer; il++) {
        if (!hp.swa_l[il]) {
            if (nope_global && il >= keep) hp.rope_l[il] = 0;
            continue;
        }
        if (own_base || r == arch::WindowRope::SWA_BASE || r == arch::WindowRope::SWA_BASE_GLOBAL_NOPE) hp.rope_base_l[il] = swa_base;
        const bool plain = r == arch::WindowRope::UNSCALED || r == arch::WindowRope::GLOBAL_UNSCALED;
        if (own_base || plain) hp.rope_scale_l[il] = 1.0f;
        if (plain) { // OLMo 3, Mellum: plain RoPE, no YaRN, in windowed layers
            hp.rope_ext_l[il] = 0.0f;
            hp.rope_attn_l[il] = 1.0f;
        }
    }
}

// Every layer but the last of each period windowed, as the description's rule says when and
// with which RoPE (OLMo 3, EXAONE 4 32B, PLaMo 3, Gemma 2/3, Mellum).
static void read_periodic_windows(hone_model & m, uint32_t window) {
    Hparams & hp = m.hp;
    const arch::WindowRule & w = hp.desc->window;
    const gguf_context * g = m.gguf;
    const std::string a = hp.arch_name + ".";
    const int n = hp.n_layer;
    const bool on = w.when == arch::WindowWhen::ALWAYS || (w.when == arch::WindowWhen::AT_DEPTH && n == w.depth) ||
                    (w.when == arch::WindowWhen::IF_WINDOW && window > 0);
    if (!on) return;
    hp.n_swa = window == 0 || w.fixed_size ? w.default_size : (int) window;
    const int64_t pk = gguf_find_key(g, (a + "attention.sliding_window_pattern").c_str());
    if (pk >= 0 && gguf_get_kv_type(g, pk) == GGUF_TYPE_ARRAY) {
        fail(HONE_E_UNSUPPORTED, "%s: a per-layer '%sattention.sliding_window_pattern' array cannot train yet", m.path.c_str(), a.c_str());
    }
    const uint32_t period = gguf_u32(g, a + "attention.sliding_window_pattern", false, (uint32_t) w.period);
    const bool first_global = w.layout == arch::Windows::PERIODIC_FIRST_GLOBAL;
    if (w.rope == arch::WindowRope::SWA_BASE_GLOBAL_NOPE && period != 4) {
        fail(HONE_E_UNSUPPORTED, "%s: '%sattention.sliding_window_pattern' is %u: llama.cpp's graph takes RoPE from every 4th layer "
             "whatever the pattern, which trains only with a pattern of 4", m.path.c_str(), a.c_str(), period);
    }
    for (int il = 0; il < n; il++) {
        hp.swa_l[il] = period == 0 || (first_global ? il % (int) period != 0 : il % (int) period < (int) period - 1);
    }
}

// RoPE and attention windows per layer, as llama.cpp's loaders set them.
static void read_layer_positions(hone_model & m) {
    Hparams & hp = m.hp;
    const arch::Desc & d = *hp.desc;
    const int n = hp.n_layer;
    hp.rope_l.assign(n, hp.has_rope());
    hp.rope_base_l.assign(n, hp.rope_freq_base);
    hp.rope_scale_l.assign(n, hp.rope_freq_scale);
    hp.rope_ext_l.assign(n, hp.rope_ext_factor);
    hp.rope_attn_l.assign(n, hp.rope_attn_factor);
    hp.swa_l.assign(n, 0);
    if (d.nope_period > 0) for (int il = d.nope_period - 1; il < n; il += d.nope_period) hp.rope_l[il] = 0;
    const uint32_t window = gguf_u32(m.gguf, hp.arch_name + ".attention.sliding_window", false, 0);
    if (d.window.layout == arch::Windows::PATTERN) read_window_patterns(m, window);
    if (d.window.layout == arch::Windows::PERIODIC || d.window.layout == arch::Windows::PERIODIC_FIRST_GLOBAL) read_periodic_windows(m, window);
    if (hp.n_swa > 0) apply_window_rope(m);
}

// Head sizes and rotated dims per layer: llama.cpp reads attention.key_length_swa and
// rope.dimension_count_swa for every architecture and gives them to windowed layers.
static void read_layer_heads(hone_model & m) {
    Hparams & hp = m.hp;
    const gguf_context * g = m.gguf;
    const std::string a = hp.arch_name + ".";
    const int hd_swa = (int) gguf_u32(g, a + "attention.key_length_swa", false, (uint32_t) hp.head_dim);
    const int rot_swa = (int) gguf_u32(g, a + "rope.dimension_count_swa", false, (uint32_t) hp.n_rot);
    // V's head size must be K's in each kind of layer (the graph shares one head size)
    const int v_full = (int) gguf_u32(g, a + "attention.value_length", false, (uint32_t) hp.head_dim);
    const int v_swa = (int) gguf_u32(g, a + "attention.value_length_swa", false, (uint32_t) v_full); // llama.cpp's default
    if (v_full != hp.head_dim || v_swa != hd_swa) {
        fail(HONE_E_UNSUPPORTED, "%s: V heads of %d/%d values (global/windowed layers) beside K heads of %d/%d cannot train yet",
             m.path.c_str(), v_full, v_swa, hp.head_dim, hd_swa);
    }
    hp.head_dim_l.assign(hp.n_layer, hp.head_dim);
    hp.n_rot_l.assign(hp.n_layer, hp.n_rot);
    for (int il = 0; il < hp.n_layer; il++) {
        if (!hp.swa_l[il]) continue; // global layers: read_rope checked the file's head size and rotated dims
        hp.head_dim_l[il] = hd_swa;
        hp.n_rot_l[il] = rot_swa;
        if (hd_swa <= 0 || (hp.rope_l[il] && (rot_swa <= 0 || rot_swa > hd_swa || rot_swa % 2))) {
            fail(HONE_E_FORMAT, "%s: layer %d has heads of %d values rotating %d: the rotated dims must be even and at most the head size",
                 m.path.c_str(), il, hd_swa, rot_swa);
        }
    }
}

// Layers that attend to an earlier layer's K and V (Gemma 4): the last attention.shared_kv_layers
// layers read the last computing layer of their kind, as llama.cpp's KV cache reuse (the last
// computing layer global, the one before it windowed).
static void read_shared_kv(hone_model & m) {
    Hparams & hp = m.hp;
    const std::string key = hp.arch_name + ".attention.shared_kv_layers";
    const int shared = (int) gguf_u32(m.gguf, key, false, 0);
    if (shared == 0) return; // none: every layer its own (Hparams::kv_from)
    hp.kv_from_l.resize(hp.n_layer);
    for (int il = 0; il < hp.n_layer; il++) hp.kv_from_l[il] = il;
    const int first = hp.n_layer_all - shared;
    if (first < 2 || first > hp.n_layer) {
        fail(HONE_E_FORMAT, "%s: '%s' is %d of %d layers: at least 2 layers must compute their own K and V", m.path.c_str(), key.c_str(), shared, hp.n_layer_all);
    }
    for (int il = first; il < hp.n_layer; il++) {
        const int from = first - (hp.swa_l[il] ? 2 : 1);
        if (hp.swa_l[from] != hp.swa_l[il] || hp.head_dim_l[from] != hp.head_dim_l[il] || hp.n_head_kv_l[from] != hp.n_head_kv_l[il]) {
            fail(HONE_E_FORMAT, "%s: layer %d reuses the K and V of layer %d ('%s'), whose window or K/V heads differ", m.path.c_str(), il, from, key.c_str());
        }
        hp.kv_from_l[il] = from;
    }
}

std::vector<std::string> trainable_architectures() {
    std::vector<std::string> names;
    for (const arch::Desc & d : arch::all()) names.push_back(d.name);
    return names;
}

static int ggml_rope_type(arch::Rope r) {
    switch (r) {
        case arch::Rope::NORMAL: return GGML_ROPE_TYPE_NORMAL;
        case arch::Rope::NEOX: return GGML_ROPE_TYPE_NEOX;
        case arch::Rope::MROPE: return GGML_ROPE_TYPE_MROPE;
        case arch::Rope::IMROPE: return GGML_ROPE_TYPE_IMROPE;
    }
    return GGML_ROPE_TYPE_NORMAL;
}

// M-RoPE's sections, as llama.cpp requires them (at most 4 values, the rest 0; one integer:
// every section that size, as its get_key_or_arr reads it).
static void read_rope_sections(hone_model & m) {
    Hparams & hp = m.hp;
    const gguf_context * g = m.gguf;
    const std::string key = hp.arch_name + ".rope.dimension_sections";
    require_key(m, key);
    const int64_t k = gguf_find_key(g, key.c_str());
    if (gguf_get_kv_type(g, k) != GGUF_TYPE_ARRAY) {
        const int v = (int) gguf_u32(g, key, true);
        for (int & x : hp.rope_sections) x = v;
        return;
    }
    const bool ints = gguf_get_arr_type(g, k) == GGUF_TYPE_INT32 || gguf_get_arr_type(g, k) == GGUF_TYPE_UINT32;
    const size_t n = ints ? gguf_get_arr_n(g, k) : 0;
    if (!ints || n > 4) fail(HONE_E_FORMAT, "%s: '%s' must be an array of at most 4 integers", m.path.c_str(), key.c_str());
    const int32_t * v = (const int32_t *) gguf_get_arr_data(g, k);
    for (size_t i = 0; i < n; i++) hp.rope_sections[i] = v[i];
}

// RoPE's base, scaling and kind beyond the layout: llama.cpp's refusals and its rules for the
// architectures that decide positions themselves.
static void read_rope(hone_model & m) {
    Hparams & hp = m.hp;
    const arch::Desc & d = *hp.desc;
    const gguf_context * g = m.gguf;
    const std::string a = hp.arch_name + ".";
    const bool has_sections = gguf_find_key(g, (a + "rope.dimension_sections").c_str()) >= 0;
    if (hp.n_pos_per_token() > 1 || (d.mrope_if_sections && has_sections)) {
        read_rope_sections(m);
        // M-RoPE when the first two sections are set, as llama.cpp's use_mrope() decides
        if (d.mrope_if_sections && hp.rope_sections[0] > 0 && hp.rope_sections[1] > 0) hp.rope_type = GGML_ROPE_TYPE_MROPE;
    }
    hp.rope_freq_base = gguf_f32(g, a + "rope.freq_base", 10000.0f);
    // As llama.cpp: a linear factor applies whatever the scaling type; llama3-style scaling
    // comes as the rope_freqs tensor; YaRN mixes interpolated and extrapolated frequencies
    // (ext_factor 1) over the original context. LongRoPE's factors come as two tensors (model.cpp),
    // its magnitude factor as rope.scaling.attn_factor.
    float factor = gguf_f32(g, a + "rope.scaling.factor", 0.0f);
    if (factor == 0.0f) factor = gguf_f32(g, a + "rope.scale_linear", 0.0f);
    hp.rope_freq_scale = factor == 0.0f ? 1.0f : 1.0f / factor;
    const std::string scaling_type = gguf_str(g, a + "rope.scaling.type", "linear");
    if (scaling_type != "none" && scaling_type != "linear" && scaling_type != "llama3" && scaling_type != "yarn") {
        fail(HONE_E_UNSUPPORTED, "%s: rope scaling '%s' cannot train yet", m.path.c_str(), scaling_type.c_str());
    }
    if (scaling_type == "none") hp.rope_freq_scale = 1.0f; // llama.cpp never scales then
    hp.rope_ext_factor = scaling_type == "yarn" ? 1.0f : 0.0f;
    // llama.cpp's grok loader reads YaRN's betas from the file (beta_fast 8 by default); Hone's RoPE runs 32 and 1
    if (scaling_type == "yarn" && hp.desc->scales == arch::Scales::GROK) {
        fail(HONE_E_UNSUPPORTED, "%s: YaRN RoPE scaling in grok (with its own YaRN betas) cannot train yet", m.path.c_str());
    }
    hp.n_ctx_orig = (int) gguf_u32(g, a + "rope.scaling.original_context_length", false, (uint32_t) hp.n_ctx_train);
    // Partial rotary embeddings (ChatGLM, GLM-4) rotate the first n_rot dims of each head.
    if (hp.n_rot <= 0 || hp.n_rot > hp.head_dim || hp.n_rot % 2) {
        fail(HONE_E_FORMAT, "%s: '%srope.dimension_count' is %d: it must be even and at most the head size %d", m.path.c_str(), a.c_str(), hp.n_rot, hp.head_dim);
    }
    if (d.positions == arch::Positions::ALIBI) hp.alibi_max_bias = 8.0f;
    if (d.positions == arch::Positions::ALIBI_KEY) hp.alibi_max_bias = gguf_f32(g, a + "attention.max_alibi_bias", 0.0f);
    if (d.positions == arch::Positions::BY_DEPTH) {
        if (hp.n_layer != 32) hp.rope_type = -1;
        if (hp.n_layer == 40) hp.alibi_max_bias = 8.0f;
    }
    if (d.rope_base == arch::RopeBase::NTK_ALPHA) {
        const float alpha = gguf_f32(g, a + "rope.scaling.alpha", 0.0f);
        if (alpha > 0.0f) hp.rope_freq_base *= std::pow(alpha, (float) hp.head_dim / (float) (hp.head_dim - 2));
    }
    // The rotated values' magnitude factor, as llama.cpp multiplies it in for every scaling
    // type (with YaRN, ggml's own 1 + 0.1 ln(factor) and llama.cpp's cancelling of it are both
    // inside the rope op: the factor passed is the file's).
    hp.rope_attn_factor = gguf_f32(g, a + "rope.scaling.attn_factor", 1.0f);
    if (d.rope_base == arch::RopeBase::FIXED_DEFAULTS) {
        hp.rope_freq_base = 10000.0f;
        hp.rope_freq_scale = 1.0f;
    }
}

// Granite-style scales, Gemma's and Phi-3's Q scale, the soft caps.
static void read_scales(hone_model & m) {
    Hparams & hp = m.hp;
    const arch::Desc & d = *hp.desc;
    const gguf_context * g = m.gguf;
    const std::string a = hp.arch_name + ".";
    if (d.scales == arch::Scales::MINICPM || d.scales == arch::Scales::GRANITE) {
        const bool minicpm = d.scales == arch::Scales::MINICPM; // llama.cpp's defaults; Granite stores them all
        hp.embedding_scale = gguf_f32(g, a + "embedding_scale", minicpm ? 12.0f : 0.0f);
        hp.residual_scale = gguf_f32(g, a + "residual_scale", minicpm ? 1.4f / std::sqrt((float) hp.n_layer) : 0.0f);
        hp.logit_scale = gguf_f32(g, a + "logit_scale", minicpm ? 256.0f / (float) hp.n_embd : 1.0f);
        hp.attention_scale = gguf_f32(g, a + "attention.scale", 0.0f);
    }
    if (d.scales == arch::Scales::LOGIT_MULTIPLIED) hp.logit_scale = gguf_f32(g, a + "logit_scale", 1.0f);
    if (d.scales == arch::Scales::GROK) { // llama.cpp's grok defaults for older files
        hp.embedding_scale = gguf_f32(g, a + "embedding_scale", 78.38367176906169f);
        hp.logit_scale = gguf_f32(g, a + "logit_scale", 0.5773502691896257f);
    }
    if (d.q_scale == arch::QScale::OUTPUT_SCALE_KEY) hp.q_scale = gguf_f32(g, a + "attention.output_scale", 0.08838834764831845f);
    if (d.kq_scale_inverse_dim) hp.attention_scale = 1.0f / (float) hp.head_dim;
    if (d.kq_unscaled) hp.attention_scale = 1.0f;
    if (d.embeddings_sqrt_scaled) hp.embedding_scale = std::sqrt((float) hp.n_embd);
    if (d.q_scale == arch::QScale::HEAD_DIM) {
        const bool by_embd = d.q_scale_embd_depth > 0 && hp.n_layer == d.q_scale_embd_depth;
        hp.q_scale = 1.0f / std::sqrt(by_embd ? (float) (hp.n_embd / hp.n_head) : (float) hp.head_dim);
    }
    if (d.final_softcap.read) hp.final_softcap = gguf_f32(g, a + "final_logit_softcapping", d.final_softcap.def);
    if (d.attn_softcap.read) hp.attn_softcap = gguf_f32(g, a + "attn_logit_softcapping", d.attn_softcap.def);
}

// The router's function (Moe::GATED_SHARED_COUNT, GATED_NORM_FF): softmax 1 or sigmoid 2, as llama.cpp's enum.
static void read_gating(hone_model & m) {
    Hparams & hp = m.hp;
    const std::string a = hp.arch_name + ".";
    const uint32_t gating = gguf_u32(m.gguf, a + "expert_gating_func", hp.desc->moe_gating_default == 0, (uint32_t) hp.desc->moe_gating_default);
    if (gating != 1 && gating != 2) {
        fail(HONE_E_UNSUPPORTED, "%s: '%sexpert_gating_func' is %u: Hone's graph builds softmax (1) and sigmoid (2) routers",
             m.path.c_str(), a.c_str(), gating);
    }
    hp.expert_gating = (int) gating;
}

// The dense layers before the experts (leading_dense_block_count, 0 where absent and not required).
static int read_dense_lead(const hone_model & m, bool required) {
    const std::string key = m.hp.arch_name + ".leading_dense_block_count";
    const int n = (int) gguf_u32(m.gguf, key, required, 0);
    if (n > m.hp.n_layer) fail(HONE_E_FORMAT, "%s: '%s' (%d) is more than the %d layers", m.path.c_str(), key.c_str(), n, m.hp.n_layer);
    return n;
}

// A mixture of experts' counts, as llama.cpp's loader requires them (experts and used ones non-zero).
static void read_experts(hone_model & m) {
    Hparams & hp = m.hp;
    const gguf_context * g = m.gguf;
    const std::string a = hp.arch_name + ".";
    hp.n_expert = (int) gguf_u32(g, a + "expert_count", true);
    hp.n_expert_used = (int) gguf_u32(g, a + "expert_used_count", true);
    if (hp.n_expert <= 0 || hp.n_expert_used <= 0 || hp.n_expert_used > hp.n_expert) {
        fail(HONE_E_FORMAT, "%s: '%sexpert_count' (%d) and '%sexpert_used_count' (%d) must be positive, used at most all",
             m.path.c_str(), a.c_str(), hp.n_expert, a.c_str(), hp.n_expert_used);
    }
    if (hp.desc->moe == arch::Moe::SOFTMAX_NORM_FF) { // as llama.cpp's llama and granite loaders: no shared expert without the key
        hp.n_ff_exp = hp.n_ff;
        const uint32_t shared_def = hp.desc->shared_ff_always ? (uint32_t) hp.n_ff_exp : 0; // the experts' width
        hp.n_ff_shexp = hp.desc->shared_ff_key ? (int) gguf_u32(g, a + "expert_shared_feed_forward_length", false, shared_def) : 0;
        return;
    }
    if (arch::shared_count(hp.desc->moe)) { // as llama.cpp's deepseek, glm4moe, dots1, bailingmoe and exaone-moe loaders
        hp.n_ff_exp = (int) gguf_u32(g, a + "expert_feed_forward_length", true);
        // the shared experts: expert_shared_count of the experts' width, (EXAONE-MoE) one of its own
        // width, or (Ling 2) that many of their own width
        const int own = hp.desc->shared_ff_key ? (int) gguf_u32(g, a + "expert_shared_feed_forward_length", false, (uint32_t) hp.n_ff_exp) : 0;
        hp.n_ff_shexp = !hp.desc->shared_ff_key        ? hp.n_ff_exp * (int) gguf_u32(g, a + "expert_shared_count", true)
                        : hp.desc->shared_ff_per_expert ? own * (int) gguf_u32(g, a + "expert_shared_count", true)
                                                        : own;
        hp.n_layer_dense_lead = hp.desc->moe_dense_lead_key ? read_dense_lead(m, false) : 0;
        hp.expert_weights_scale = gguf_f32(g, a + "expert_weights_scale", 0.0f);
        if (hp.desc->moe_norm_key) hp.expert_weights_norm = gguf_bool(g, a + "expert_weights_norm", false);
        if (hp.desc->moe == arch::Moe::GATED_SHARED_COUNT) read_gating(m);
        return;
    }
    if (hp.desc->moe == arch::Moe::GATED_SHARED_HALF) { // as llama.cpp's cohere2moe loader
        hp.n_ff_exp = (int) gguf_u32(g, a + "expert_feed_forward_length", false, (uint32_t) hp.n_ff);
        const int count = (int) gguf_u32(g, a + "expert_shared_count", false, 0);
        hp.n_ff_shexp = count > 0 ? (int) gguf_u32(g, a + "expert_shared_feed_forward_length", false, (uint32_t) (hp.n_ff_exp * count)) : 0;
        hp.n_layer_dense_lead = read_dense_lead(m, true);
        hp.expert_weights_norm = gguf_bool(g, a + "expert_weights_norm", false);
        hp.expert_weights_scale = gguf_f32(g, a + "expert_weights_scale", 0.0f);
        read_gating(m);
        return;
    }
    if (hp.desc->moe == arch::Moe::GATED_NORM_RAW_ROUTER) { // as llama.cpp's smallthinker loader (its width has no usable default)
        hp.n_ff_exp = (int) gguf_u32(g, a + "expert_feed_forward_length", true);
        hp.n_ff_shexp = 0;
        read_gating(m);
        return;
    }
    if (hp.desc->moe == arch::Moe::SOFTMAX_NORM_OPTIONAL_DENSE) { // as llama.cpp's grok loader
        hp.n_ff_exp = (int) gguf_u32(g, a + "expert_feed_forward_length", false, (uint32_t) hp.n_ff);
        hp.n_ff_shexp = 0;
        return;
    }
    if (hp.desc->moe == arch::Moe::SOFTMAX_NORM_PARALLEL_DENSE) { // as llama.cpp's arctic loader: experts feed_forward_length wide
        hp.n_ff_exp = hp.n_ff;
        hp.n_ff_shexp = 0;
        return;
    }
    if (hp.desc->moe == arch::Moe::GATED_NORM_FF) { // as llama.cpp's minimax-m2 loader: experts --ff wide
        hp.n_ff_exp = hp.n_ff;
        hp.n_ff_shexp = 0;
        read_gating(m);
        return;
    }
    if (hp.desc->moe == arch::Moe::SOFTMAX_NORM_BESIDE_DENSE) { // as llama.cpp's gemma4 loader, which reads the width as optional
        hp.n_ff_exp = (int) gguf_u32(g, a + "expert_feed_forward_length", true); // (0 would make experts of no width)
        hp.n_ff_shexp = 0;
        return;
    }
    if (hp.desc->moe == arch::Moe::SOFTMAX_NORM_BIAS) { // as llama.cpp's ernie4_5-moe loader
        hp.n_ff_exp = (int) gguf_u32(g, a + "expert_feed_forward_length", true);
        hp.n_ff_shexp = (int) gguf_u32(g, a + "expert_shared_feed_forward_length", false, 0);
        hp.n_layer_dense_lead = read_dense_lead(m, false);
        // llama.cpp's loader gives every layer after the dense ones experts and no dense FFN, while its
        // graph runs a dense FFN in the layers off the step: only a step of 1 (every released file) runs
        const uint32_t step = gguf_u32(g, a + "interleave_moe_layer_step", true);
        if (step != 1) {
            fail(HONE_E_UNSUPPORTED, "%s: '%sinterleave_moe_layer_step' is %u: llama.cpp's ernie4_5-moe graph runs only a step of 1 (its loader gives "
                 "the layers off the step no dense FFN)", m.path.c_str(), a.c_str(), step);
        }
        return;
    }
    hp.n_ff_exp = (int) gguf_u32(g, a + "expert_feed_forward_length", false, (uint32_t) (hp.n_ff / hp.n_expert_used));
    hp.n_ff_shexp = (int) gguf_u32(g, a + "expert_shared_feed_forward_length", false, (uint32_t) hp.n_ff);
}

// Head and FFN counts, per layer where the file gives arrays.
static void read_counts(hone_model & m) {
    Hparams & hp = m.hp;
    const gguf_context * g = m.gguf;
    const std::string a = hp.arch_name + ".";
    hp.n_layer_all = gguf_u32(g, a + "block_count", true);
    hp.n_embd    = gguf_u32(g, a + "embedding_length", true);
    const int nextn = (int) gguf_u32(g, a + "nextn_predict_layers", false, 0);
    hp.n_layer = hp.n_layer_all - nextn;
    // every block has tensors of its own: a count past the file's tensors (or past any real
    // model's) is a damaged header, and would size per-layer tables by it before any tensor is
    // looked for (a file of hyperparameters alone, as the unit tests read, holds no tensors)
    const int64_t n_tensors = gguf_get_n_tensors(g);
    int64_t n_block_tensors = 0;
    for (int64_t i = 0; i < n_tensors; i++) n_block_tensors += strncmp(gguf_get_tensor_name(g, i), "blk.", 4) == 0;
    if (hp.n_layer_all > 4096 || (n_block_tensors > 0 && (int64_t) hp.n_layer_all > n_tensors) || nextn < 0) {
        fail(HONE_E_FORMAT, "%s: '%sblock_count' is %u but the file holds %lld tensors: the header is damaged", m.path.c_str(), a.c_str(),
             (unsigned) hp.n_layer_all, (long long) n_tensors);
    }
    if (hp.n_layer <= 0) {
        fail(HONE_E_FORMAT, "%s: '%sblock_count' is %d with %d multi-token-prediction blocks: no layers", m.path.c_str(), a.c_str(), hp.n_layer_all, nextn);
    }
    hp.n_ff_l      = per_layer(m, a + "feed_forward_length", true, 0);
    hp.n_head_l    = per_layer(m, a + "attention.head_count", true, 0);
    hp.n_head_kv_l = per_layer(m, a + "attention.head_count_kv", false, -1);
    for (int il = 0; il < hp.n_layer; il++) {
        int & kv = hp.n_head_kv_l[il];
        if (kv < 0) kv = hp.n_head_l[il];
        if (hp.n_head_l[il] == 0 || kv == 0 || hp.n_ff_l[il] == 0) {
            fail(HONE_E_UNSUPPORTED, "%s: layer %d has no attention or no FFN (a head or FFN count of 0): such layers cannot train yet", m.path.c_str(), il);
        }
        if (hp.n_head_l[il] % kv != 0) {
            fail(HONE_E_FORMAT, "%s: layer %d has inconsistent head counts (%d heads, %d kv heads)", m.path.c_str(), il, hp.n_head_l[il], kv);
        }
    }
    hp.n_ff = hp.n_ff_l[0];
    hp.n_head = hp.n_head_l[0];
    hp.n_head_kv = hp.n_head_kv_l[0];
    hp.head_dim  = gguf_u32(g, a + "attention.key_length", false, hp.n_embd / hp.n_head);
    hp.n_rot     = gguf_u32(g, a + "rope.dimension_count", false, hp.head_dim);
    hp.n_ctx_train = gguf_u32(g, a + "context_length", false, 2048);
}

// Gated delta-net layers (Qwen3.5): their sizes, as llama.cpp's qwen35 loader reads them and as
// its graph needs them consistent, and which layers are recurrent.
static void read_delta_net(hone_model & m) {
    Hparams & hp = m.hp;
    const gguf_context * g = m.gguf;
    const std::string a = hp.arch_name + ".";
    hp.ssm_d_conv = (int) gguf_u32(g, a + "ssm.conv_kernel", true);
    hp.ssm_d_inner = (int) gguf_u32(g, a + "ssm.inner_size", true);
    hp.ssm_d_state = (int) gguf_u32(g, a + "ssm.state_size", true);
    hp.ssm_dt_rank = (int) gguf_u32(g, a + "ssm.time_step_rank", true);
    hp.ssm_n_group = (int) gguf_u32(g, a + "ssm.group_count", true);
    const bool heads_ok = hp.ssm_dt_rank > 0 && hp.ssm_n_group > 0 && hp.ssm_dt_rank % hp.ssm_n_group == 0 &&
                          hp.ssm_d_inner % hp.ssm_dt_rank == 0 && hp.ssm_d_inner / hp.ssm_dt_rank == hp.ssm_d_state;
    if (hp.ssm_d_conv < 1 || !heads_ok) {
        fail(HONE_E_FORMAT, "%s: inconsistent delta-net sizes: %sssm.conv_kernel %d, ssm.inner_size %d, ssm.state_size %d, "
             "ssm.time_step_rank %d (value heads), ssm.group_count %d (key heads): value heads must be a multiple of key heads "
             "and inner_size / value heads must equal state_size", m.path.c_str(), a.c_str(), hp.ssm_d_conv, hp.ssm_d_inner,
             hp.ssm_d_state, hp.ssm_dt_rank, hp.ssm_n_group);
    }
    std::vector<int> recurrent = layer_array(m, a + "attention.recurrent_layers", hp.n_layer_all, false);
    if (recurrent.empty()) {
        const uint32_t interval = gguf_u32(g, a + "full_attention_interval", false, arch::FULL_ATTENTION_INTERVAL);
        if (interval == 0) fail(HONE_E_FORMAT, "%s: '%sfull_attention_interval' is 0", m.path.c_str(), a.c_str());
        for (int il = 0; il < hp.n_layer_all; il++) recurrent.push_back((il + 1) % (int) interval != 0);
    }
    hp.recurrent_l.assign(recurrent.begin(), recurrent.begin() + hp.n_layer);
}

void read_hparams(hone_model & m) {
    const gguf_context * g = m.gguf;
    Hparams & hp = m.hp;
    hp.arch_name = gguf_str(g, "general.architecture");
    if (hp.arch_name.empty()) fail(HONE_E_FORMAT, "%s: missing 'general.architecture'", m.path.c_str());
    hp.desc = arch::find(hp.arch_name);
    if (!hp.desc) {
        std::string trainable;
        for (const std::string & k : trainable_architectures()) trainable += (trainable.empty() ? "" : ", ") + k;
        fail(HONE_E_UNSUPPORTED, "%s: architecture '%s' cannot train yet: %s (trainable: %s)",
             m.path.c_str(), hp.arch_name.c_str(), describe_scan(scan_architecture(m.path)).c_str(), trainable.c_str());
    }
    const arch::Desc & d = *hp.desc;
    const std::string a = hp.arch_name + ".";
    for (const arch::RequiredKey & k : d.required_keys) require_key(m, a + k.name);
    const bool no_rope = d.positions == arch::Positions::ALIBI || d.positions == arch::Positions::ALIBI_KEY || d.positions == arch::Positions::LEARNED;
    hp.rope_type = no_rope ? -1 : ggml_rope_type(d.rope);
    read_counts(m);
    const bool experts = d.moe != arch::Moe::NONE && (!d.experts_optional || gguf_u32(g, a + "expert_count", false, 0) > 0);
    if (experts) read_experts(m);
    if (d.delta_net) read_delta_net(m);
    // Train with the epsilon inference will use, read or not.
    hp.layer_norm = d.norm_kind == arch::NormKind::LAYER;
    if (d.norm_kind == arch::NormKind::RMS_IF_KEY) { // as llama.cpp's cohere2moe loader: one of the two epsilons is required
        hp.layer_norm = gguf_find_key(g, (a + "attention.layer_norm_rms_epsilon").c_str()) < 0;
        if (hp.layer_norm && gguf_find_key(g, (a + "attention.layer_norm_epsilon").c_str()) < 0) {
            fail(HONE_E_FORMAT, "%s: neither '%sattention.layer_norm_rms_epsilon' nor '%sattention.layer_norm_epsilon' is set", m.path.c_str(),
                 a.c_str(), a.c_str());
        }
    }
    const char * eps_key = hp.layer_norm ? "attention.layer_norm_epsilon" : "attention.layer_norm_rms_epsilon";
    hp.norm_eps = d.zero_norm_eps ? 0.0f : gguf_f32(g, a + (d.norm_kind == arch::NormKind::RMS_IF_KEY ? eps_key : arch::norm_eps_key(d.norm_kind)), 1e-5f);
    if (d.clamp_kqv_key) hp.clamp_kqv = gguf_f32(g, a + "attention.clamp_kqv", 0.0f);
    if (d.parallel_residual_key) hp.parallel_residual = gguf_bool(g, a + "use_parallel_residual", false);
    const uint32_t loops = d.refuses_loops ? gguf_u32(g, a + "num_loops", false, 1) : 1;
    if (loops > 1) fail(HONE_E_UNSUPPORTED, "%s: looped layers (%snum_loops = %u) cannot train yet", m.path.c_str(), a.c_str(), loops);
    read_rope(m);
    if (d.attn_temperature) {
        hp.attn_temp_scale = gguf_f32(g, a + "attention.temperature_scale", 0.0f);
        if (hp.attn_temp_scale != 0.0f && hp.n_ctx_orig <= 0) fail(HONE_E_FORMAT, "%s: attention temperature scaling needs an original context length", m.path.c_str());
    }
    read_layer_positions(m);
    read_layer_heads(m);
    if (d.shared_kv) read_shared_kv(m);
    if (d.per_layer_embeddings) hp.n_embd_per_layer = (int) gguf_u32(g, a + "embedding_length_per_layer_input", true);
    read_scales(m);
}

} // namespace hone
