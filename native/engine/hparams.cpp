// Reading an architecture's hyperparameters from a GGUF as llama.cpp's loaders read them: which
// layout of the training graph it takes (the KNOWN table and its traits), head and FFN counts
// per layer, RoPE and attention windows per layer, scales and soft caps, and the refusals (with
// the file and the key named) for what the graph does not build.
#include "model.h"

#include "arch_scan.h"
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
    if (id >= 0 && gguf_get_kv_type(m.gguf, id) == GGUF_TYPE_ARRAY) return layer_array(m, key, m.hp.n_layer, true);
    if (id < 0 && required) fail(HONE_E_FORMAT, "%s: missing metadata key '%s'", m.path.c_str(), key.c_str());
    return std::vector<int>(m.hp.n_layer, id < 0 ? def : (int) gguf_u32(m.gguf, key, false));
}

// RoPE and attention windows per layer, as llama.cpp's loaders set them: SmolLM3 skips RoPE in
// every 4th layer; OLMo 3 (olmo2 with a window), EXAONE 4 32B, PLaMo 3, Granite 4 and the
// Gemmas window some layers.
static void read_layer_positions(hone_model & m, bool nope_every_4th, bool plamo3, bool granite_swa) {
    const bool gemma3 = m.hp.arch_name == "gemma3", gemma2 = m.hp.arch_name == "gemma2";
    Hparams & hp = m.hp;
    const gguf_context * g = m.gguf;
    const std::string a = hp.arch_name + ".";
    const int n = hp.n_layer;
    hp.rope_l.assign(n, hp.has_rope());
    hp.rope_base_l.assign(n, hp.rope_freq_base);
    hp.rope_scale_l.assign(n, hp.rope_freq_scale);
    hp.swa_l.assign(n, 0);
    if (nope_every_4th) for (int il = 3; il < n; il += 4) hp.rope_l[il] = 0;
    const uint32_t window = gguf_u32(g, a + "attention.sliding_window", granite_swa, 0);
    if (granite_swa) {
        // the window pattern is required, the RoPE pattern optional (all layers by default)
        const std::vector<int> swa = layer_array(m, a + "attention.sliding_window_pattern", n, false), rope = layer_array(m, a + "attention.rope_pattern", n, false);
        if (swa.empty()) fail(HONE_E_FORMAT, "%s: missing metadata key '%sattention.sliding_window_pattern'", m.path.c_str(), a.c_str());
        hp.n_swa = (int) window;
        for (int il = 0; il < n; il++) {
            hp.swa_l[il] = swa[il] != 0;
            if (!rope.empty()) hp.rope_l[il] = hp.has_rope() && rope[il] != 0;
        }
        for (int d : layer_array(m, a + "deepstack_mapping", n, false)) {
            if (d >= 0) fail(HONE_E_UNSUPPORTED, "%s: deepstack inputs ('%sdeepstack_mapping') cannot train yet", m.path.c_str(), a.c_str());
        }
        return;
    }
    const bool olmo3 = hp.arch_name == "olmo2" && window > 0, exaone4_32b = hp.arch_name == "exaone4" && n == 64;
    const bool own_swa_base = (plamo3 || gemma3) && window > 0; // PLaMo 3, Gemma 3
    if (!olmo3 && !exaone4_32b && !own_swa_base && !gemma2) return;
    hp.n_swa = (exaone4_32b || gemma2) && window == 0 ? 4096 : (int) window; // llama.cpp's defaults for both
    const int64_t pk = gguf_find_key(g, (a + "attention.sliding_window_pattern").c_str());
    if (pk >= 0 && gguf_get_kv_type(g, pk) == GGUF_TYPE_ARRAY) {
        fail(HONE_E_UNSUPPORTED, "%s: a per-layer '%sattention.sliding_window_pattern' array cannot train yet", m.path.c_str(), a.c_str());
    }
    const uint32_t period = gguf_u32(g, a + "attention.sliding_window_pattern", false, plamo3 ? 8 : gemma3 ? 6 : gemma2 ? 2 : 4);
    // Windowed layers' RoPE: the file's rope.freq_base_swa where given; else Gemma 2 keeps the
    // global base and PLaMo 3 / Gemma 3 take llama.cpp's default of 10000, both with scale 1.
    // OLMo 3's keep the base unscaled; EXAONE 4 32B's keep both.
    const float swa_base = gguf_f32(g, a + "rope.freq_base_swa", own_swa_base ? 10000.0f : hp.rope_freq_base);
    for (int il = 0; il < n; il++) hp.swa_l[il] = period == 0 || il % (int) period < (int) period - 1;
    for (int il = 0; il < n; il++) {
        if (!hp.swa_l[il]) {
            if (exaone4_32b) hp.rope_l[il] = 0; // EXAONE 4's global layers have no RoPE
            continue;
        }
        if (own_swa_base || gemma2) hp.rope_base_l[il] = swa_base;
        if (own_swa_base || olmo3) hp.rope_scale_l[il] = 1.0f;
    }
}

namespace {

// Architectures whose llama.cpp graph is one of ours: (name, layout, RoPE, graph traits).
// Each is tested for forward equivalence with llama.cpp (test/native/gradients.test.ts).
enum : unsigned {
    NOPE_EVERY_4TH = 1,     // SmolLM3: every 4th layer has no rotary embedding
    QK_NORM_AFTER_ROPE = 2, // Hunyuan, Maincoder, Talkie: Q/K norms after RoPE (Qwen3: before)
    QK_NORM_WHOLE = 4,      // OLMo 2: Q/K norms span the whole projection, not one head
    FFN_RELU2 = 8,          // Arcee: FFN = down(relu(up x)^2), no gate
    FFN_NORM_HF_NAME = 16,  // Seed-OSS: the FFN norm is stored as post_attention_norm
    ZERO_NORM_EPS = 32,     // Qwen2-VL: the pinned llama.cpp's loader reads no norm epsilon (it stays 0)
    MAY_LOOP = 64,          // Nanbeige: num_loops > 1 runs the layers again (refused: not built yet)
    ALIBI = 128,            // Refact: ALiBi (max bias 8, as llama.cpp hard-codes it), no RoPE
    BY_DEPTH = 256,         // Baichuan: 32 layers (7B) RoPE, 40 (13B) ALiBi, any other depth neither
    PARALLEL = 512,         // PLaMo: attention and FFN side by side on one norm
    SANDWICH = 1024,        // GLM-4: norms after attention and FFN as well as before
    TALKIE = 2048,          // weightless norms, normed embeddings added back per layer, logits times logit_scale
    ROPE_DEFAULTS = 4096,   // CogVLM: ggml_rope's fixed base 10000 and scale 1, whatever the file says
    ALWAYS_TIED = 8192,     // OpenELM, BitNet: the output head is token_embd even where output.weight exists
    OPTIONAL_MROPE = 16384, // GLM-4: M-RoPE when the file has rope sections, normal RoPE otherwise
    QKV_THIRDS = 32768,     // CogVLM: a fused Q/K/V of three equal parts, whatever the KV head count
    // GLM-4: the pinned llama.cpp sets F32 precision on the attn_output and ffn_down products,
    // which asserts when an adapter has made them additions: such LoRAs cannot be loaded there
    NO_LORA_OUT_DOWN = 65536,
    SWA_PLAMO3 = 131072,    // PLaMo 3: sliding_window > 0 makes 7 of every 8 layers windowed, with their own RoPE base
    ROPE_ALPHA = 262144,    // HunYuan-VL: NTK-aware base, base * alpha^(d / (d - 2)) with rope.scaling.alpha
    GRANITE_SWA = 524288,   // Granite 4: Granite's scales, windowed layers by a per-layer pattern, attention sinks
    GEMMA = 1048576,        // embeddings times sqrt(n_embd), GEGLU, Q scaled after RoPE (and Gemma 2/3's windows, soft caps)
};
const struct { const char * name; Arch arch; int rope; unsigned traits; } KNOWN[] = {
    { "llama", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, 0 },       { "mistral3", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, 0 },
    { "deci", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, 0 },        { "ernie4_5", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, 0 },
    { "exaone", Arch::LLAMA, GGML_ROPE_TYPE_NEOX, 0 },        { "qwen2", Arch::QWEN2, GGML_ROPE_TYPE_NEOX, 0 },
    { "qwen3", Arch::QWEN3, GGML_ROPE_TYPE_NEOX, 0 },         { "smollm3", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, NOPE_EVERY_4TH },
    { "minicpm", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, 0 },     { "granite", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, 0 },
    { "hunyuan-dense", Arch::QWEN3, GGML_ROPE_TYPE_NEOX, QK_NORM_AFTER_ROPE },
    { "xverse", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, 0 },      { "internlm2", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, 0 },
    { "maincoder", Arch::QWEN3, GGML_ROPE_TYPE_NORMAL, QK_NORM_AFTER_ROPE },
    { "seed_oss", Arch::LLAMA, GGML_ROPE_TYPE_NEOX, FFN_NORM_HF_NAME },
    { "pangu-embedded", Arch::LLAMA, GGML_ROPE_TYPE_NEOX, 0 },
    { "arcee", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, FFN_RELU2 },
    { "olmo2", Arch::POSTNORM, GGML_ROPE_TYPE_NEOX, QK_NORM_WHOLE }, { "exaone4", Arch::POSTNORM, GGML_ROPE_TYPE_NEOX, 0 },
    { "nanbeige", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, MAY_LOOP },
    { "qwen2vl", Arch::QWEN2, GGML_ROPE_TYPE_MROPE, ZERO_NORM_EPS },      { "qwen3vl", Arch::QWEN3, GGML_ROPE_TYPE_IMROPE, 0 },
    { "qwen3tts", Arch::QWEN3, GGML_ROPE_TYPE_IMROPE, 0 },  // llama.cpp runs Qwen3-VL's graph for it
    { "qwen", Arch::LLAMA, GGML_ROPE_TYPE_NEOX, 0 },        { "refact", Arch::LLAMA, -1, ALIBI },
    { "baichuan", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, BY_DEPTH },
    { "plamo", Arch::LLAMA, GGML_ROPE_TYPE_NEOX, PARALLEL }, { "chatglm", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, 0 },
    { "glm4", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, SANDWICH | OPTIONAL_MROPE | NO_LORA_OUT_DOWN },
    { "cogvlm", Arch::LLAMA, GGML_ROPE_TYPE_NEOX, ROPE_DEFAULTS | QKV_THIRDS },
    { "talkie", Arch::LLAMA, GGML_ROPE_TYPE_NEOX, TALKIE | QK_NORM_AFTER_ROPE },
    { "bitnet", Arch::LLAMA, GGML_ROPE_TYPE_NEOX, ALWAYS_TIED }, { "openelm", Arch::QWEN3, GGML_ROPE_TYPE_NEOX, ALWAYS_TIED },
    { "plamo3", Arch::QWEN3, GGML_ROPE_TYPE_NEOX, SANDWICH | SWA_PLAMO3 },
    { "granite_swa", Arch::LLAMA, GGML_ROPE_TYPE_NORMAL, GRANITE_SWA },
    { "gemma", Arch::LLAMA, GGML_ROPE_TYPE_NEOX, GEMMA }, { "gemma3", Arch::QWEN3, GGML_ROPE_TYPE_NEOX, GEMMA | SANDWICH },
    { "gemma2", Arch::LLAMA, GGML_ROPE_TYPE_NEOX, GEMMA | SANDWICH },
    { "hunyuan_vl", Arch::QWEN3, GGML_ROPE_TYPE_NEOX, QK_NORM_AFTER_ROPE | OPTIONAL_MROPE | ROPE_ALPHA },
};

} // namespace

std::vector<std::string> trainable_architectures() {
    std::vector<std::string> names;
    for (auto & k : KNOWN) names.push_back(k.name);
    return names;
}

// Fails naming the file and the key when a key llama.cpp's loader requires is absent.
static void require_key(const hone_model & m, const std::string & key) {
    if (gguf_find_key(m.gguf, key.c_str()) < 0) fail(HONE_E_FORMAT, "%s: missing metadata key '%s'", m.path.c_str(), key.c_str());
}

void read_hparams(hone_model & m) {
    const gguf_context * g = m.gguf;
    Hparams & hp = m.hp;
    hp.arch_name = gguf_str(g, "general.architecture");
    if (hp.arch_name.empty()) fail(HONE_E_FORMAT, "%s: missing 'general.architecture'", m.path.c_str());
    unsigned traits = 0;
    bool known = false;
    for (auto & k : KNOWN) {
        if (hp.arch_name == k.name) { hp.arch = k.arch; hp.rope_type = k.rope; traits = k.traits; known = true; }
    }
    if (!known) {
        std::string trainable;
        for (const std::string & k : trainable_architectures()) trainable += (trainable.empty() ? "" : ", ") + k;
        fail(HONE_E_UNSUPPORTED, "%s: architecture '%s' cannot train yet: %s (trainable: %s)",
             m.path.c_str(), hp.arch_name.c_str(), describe_scan(scan_architecture(m.path)).c_str(), trainable.c_str());
    }
    hp.qk_norm_after_rope = traits & QK_NORM_AFTER_ROPE;
    hp.qk_norm_whole = traits & QK_NORM_WHOLE;
    hp.ffn_relu2 = traits & FFN_RELU2;
    hp.ffn_norm_tensor = traits & FFN_NORM_HF_NAME ? "post_attention_norm.weight" : "ffn_norm.weight";
    hp.parallel_ffn = traits & PARALLEL;
    hp.sandwich_norms = traits & SANDWICH;
    hp.weightless_norms = hp.embd_norm_skip = hp.logit_multiply = traits & TALKIE;
    hp.always_tied = traits & ALWAYS_TIED;
    hp.qkv_thirds = traits & QKV_THIRDS;
    hp.no_lora_out_down = traits & NO_LORA_OUT_DOWN;

    const std::string a = hp.arch_name + ".";
    hp.n_layer   = gguf_u32(g, a + "block_count", true);
    hp.n_embd    = gguf_u32(g, a + "embedding_length", true);
    if (hp.n_layer <= 0) fail(HONE_E_FORMAT, "%s: '%sblock_count' is 0", m.path.c_str(), a.c_str());
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
    // Train with the epsilon inference will use, read or not.
    hp.rms_eps   = traits & ZERO_NORM_EPS ? 0.0f : gguf_f32(g, a + "attention.layer_norm_rms_epsilon", 1e-5f);
    const uint32_t loops = traits & MAY_LOOP ? gguf_u32(g, a + "num_loops", false, 1) : 1;
    if (loops > 1) fail(HONE_E_UNSUPPORTED, "%s: looped layers (%snum_loops = %u) cannot train yet", m.path.c_str(), a.c_str(), loops);
    // Granite-style scales, with llama.cpp's defaults for MiniCPM (Granite stores them all).
    const bool minicpm = hp.arch_name == "minicpm", granite = hp.arch_name == "granite" || (traits & GRANITE_SWA);
    if (minicpm || granite) {
        if (granite) require_key(m, a + "logit_scale");
        hp.embedding_scale = gguf_f32(g, a + "embedding_scale", minicpm ? 12.0f : 0.0f);
        hp.residual_scale = gguf_f32(g, a + "residual_scale", minicpm ? 1.4f / std::sqrt((float) hp.n_layer) : 0.0f);
        hp.logit_scale = gguf_f32(g, a + "logit_scale", minicpm ? 256.0f / (float) hp.n_embd : 1.0f);
        hp.attention_scale = gguf_f32(g, a + "attention.scale", 0.0f);
    }
    const bool has_sections = gguf_find_key(g, (a + "rope.dimension_sections").c_str()) >= 0;
    if (hp.n_pos_per_token() > 1 || (traits & OPTIONAL_MROPE && has_sections)) {
        // M-RoPE's sections: required, as llama.cpp requires them (at most 4 values, the rest 0).
        require_key(m, a + "rope.dimension_sections");
        const int64_t k = gguf_find_key(g, (a + "rope.dimension_sections").c_str());
        if (gguf_get_kv_type(g, k) != GGUF_TYPE_ARRAY) {
            // one integer: every section that size, as llama.cpp's get_key_or_arr reads it
            const int v = (int) gguf_u32(g, a + "rope.dimension_sections", true);
            for (int & x : hp.rope_sections) x = v;
        } else {
            const bool ints = gguf_get_arr_type(g, k) == GGUF_TYPE_INT32 || gguf_get_arr_type(g, k) == GGUF_TYPE_UINT32;
            const size_t n = ints ? gguf_get_arr_n(g, k) : 0;
            if (!ints || n > 4) {
                fail(HONE_E_FORMAT, "%s: '%srope.dimension_sections' must be an array of at most 4 integers", m.path.c_str(), a.c_str());
            }
            const int32_t * v = (const int32_t *) gguf_get_arr_data(g, k);
            for (size_t i = 0; i < n; i++) hp.rope_sections[i] = v[i];
        }
        // GLM-4 takes M-RoPE as llama.cpp's use_mrope() does: when the first two sections are set
        if (traits & OPTIONAL_MROPE && hp.rope_sections[0] > 0 && hp.rope_sections[1] > 0) hp.rope_type = GGML_ROPE_TYPE_MROPE;
    }
    hp.rope_freq_base = gguf_f32(g, a + "rope.freq_base", 10000.0f);
    // As llama.cpp: a linear factor applies whatever the scaling type; llama3-style scaling
    // comes as the rope_freqs tensor. YaRN and LongRoPE need terms we do not build yet.
    float factor = gguf_f32(g, a + "rope.scale_linear", 0.0f);
    if (factor == 0.0f) factor = gguf_f32(g, a + "rope.scaling.factor", 0.0f);
    hp.rope_freq_scale = factor == 0.0f ? 1.0f : 1.0f / factor;
    const std::string scaling_type = gguf_str(g, a + "rope.scaling.type", "none");
    if (scaling_type != "none" && scaling_type != "linear" && scaling_type != "llama3") {
        fail(HONE_E_UNSUPPORTED, "%s: rope scaling '%s' cannot train yet", m.path.c_str(), scaling_type.c_str());
    }
    // Partial rotary embeddings (ChatGLM, GLM-4) rotate the first n_rot dims of each head.
    if (hp.n_rot <= 0 || hp.n_rot > hp.head_dim || hp.n_rot % 2) {
        fail(HONE_E_FORMAT, "%s: '%srope.dimension_count' is %d: it must be even and at most the head size %d", m.path.c_str(), a.c_str(), hp.n_rot, hp.head_dim);
    }
    // Positions as llama.cpp encodes them for these layouts.
    if (traits & ALIBI) hp.alibi_max_bias = 8.0f;
    if (traits & BY_DEPTH) {
        if (hp.n_layer != 32) hp.rope_type = -1;
        if (hp.n_layer == 40) hp.alibi_max_bias = 8.0f;
    }
    if (traits & ROPE_ALPHA) {
        const float alpha = gguf_f32(g, a + "rope.scaling.alpha", 0.0f);
        if (alpha > 0.0f) hp.rope_freq_base *= std::pow(alpha, (float) hp.head_dim / (float) (hp.head_dim - 2));
    }
    // A RoPE attention factor other than 1 (YaRN-style magnitude scaling) is not built.
    const float attn_factor = gguf_f32(g, a + "rope.scaling.attn_factor", 1.0f);
    if (attn_factor != 1.0f) fail(HONE_E_UNSUPPORTED, "%s: a RoPE attention factor of %g cannot train yet", m.path.c_str(), attn_factor);
    if (traits & ROPE_DEFAULTS) {
        hp.rope_freq_base = 10000.0f;
        hp.rope_freq_scale = 1.0f;
    }
    read_layer_positions(m, traits & NOPE_EVERY_4TH, traits & SWA_PLAMO3, traits & GRANITE_SWA);
    if (traits & GEMMA) {
        hp.embedding_scale = std::sqrt((float) hp.n_embd);
        hp.ffn_geglu = true;
        // The 27B sizes (Gemma 2: 46 layers, Gemma 3: 62) scale Q by n_embd / n_head, the others by the head size
        const bool g27b = (hp.arch_name == "gemma3" && hp.n_layer == 62) || (hp.arch_name == "gemma2" && hp.n_layer == 46);
        hp.q_scale = 1.0f / std::sqrt(g27b ? (float) (hp.n_embd / hp.n_head) : (float) hp.head_dim);
        // soft caps with llama.cpp's defaults: Gemma 2 always caps (50 on scores, 30 on logits), Gemma 3 when the file says
        if (hp.arch_name == "gemma3") hp.final_softcap = gguf_f32(g, a + "final_logit_softcapping", 0.0f);
        if (hp.arch_name == "gemma2") {
            hp.final_softcap = gguf_f32(g, a + "final_logit_softcapping", 30.0f);
            hp.attn_softcap = gguf_f32(g, a + "attn_logit_softcapping", 50.0f);
        }
    }
    if (traits & TALKIE) {
        require_key(m, a + "logit_scale");
        hp.logit_scale = gguf_f32(g, a + "logit_scale", 1.0f);
    }
}

} // namespace hone
