#include "model.h"

#include "gpu_precision.h"

#include "arch_scan.h"
#include "error.h"

#include "ggml-cpu.h"
#include "llama.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace hone {

std::vector<ggml_backend_t> Backends::list() const {
    std::vector<ggml_backend_t> v;
    if (primary && primary != cpu) v.push_back(primary);
    v.push_back(cpu);
    return v;
}

Backends::~Backends() {
    if (primary && primary != cpu) ggml_backend_free(primary);
    if (cpu) ggml_backend_free(cpu);
}

static void log_sink(enum ggml_log_level level, const char * text, void *) {
    if (level == GGML_LOG_LEVEL_ERROR || getenv("HONE_VERBOSE")) fputs(text, stderr);
}

void quiet_logs() {
    llama_log_set(log_sink, nullptr);
    ggml_log_set(log_sink, nullptr);
}

static bool dev_matches(ggml_backend_dev_t dev, const std::string & request) {
    const std::string reg = ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev));
    if (request == "cuda") return reg == "CUDA";
    if (request == "metal") return reg == "Metal" || reg == "MTL";
    return false;
}

void init_backends(Backends & b, const std::string & request, int n_threads) {
    if (request != "auto" && request != "cpu" && request != "cuda" && request != "metal") {
        fail(HONE_E_INVALID_ARG, "unknown backend '%s' (expected auto, cpu, cuda or metal)", request.c_str());
    }
    b.cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, nullptr);
    if (!b.cpu) fail(HONE_E_INTERNAL, "the CPU backend failed to initialise");
    ggml_backend_cpu_set_n_threads(b.cpu, n_threads);
    b.primary = b.cpu;
    if (request == "cpu") return;

    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(dev) != GGML_BACKEND_DEVICE_TYPE_GPU) continue;
        if (request != "auto" && !dev_matches(dev, request)) continue;
        b.primary = ggml_backend_dev_init(dev, nullptr);
        if (!b.primary) fail(HONE_E_INTERNAL, "backend %s failed to initialise", ggml_backend_dev_name(dev));
        return;
    }
    if (request != "auto") {
        fail(HONE_E_UNSUPPORTED, "backend '%s' requested but this build has no such device (build with %s)", request.c_str(),
             request == "cuda" ? "HONE_CUDA=1 on a machine with an NVIDIA GPU" : "Metal on Apple silicon");
    }
}

} // namespace hone

using namespace hone;

hone_model::~hone_model() {
    if (vocab_model) llama_model_free(vocab_model);
    if (buf_w) ggml_backend_buffer_free(buf_w);
    if (ctx_w) ggml_free(ctx_w);
    if (gguf) gguf_free(gguf);
}

ggml_tensor * hone_model::weight(const std::string & tname, bool required) const {
    ggml_tensor * t = ggml_get_tensor(ctx_w, tname.c_str());
    if (!t && required) fail(HONE_E_FORMAT, "%s: missing tensor '%s' required by architecture %s", path.c_str(), tname.c_str(), hp.arch_name.c_str());
    return t;
}

// A count given once for every layer or as an array with one entry per layer (OpenELM).
static std::vector<int> per_layer(const hone_model & m, const std::string & key, bool required, int def) {
    const gguf_context * g = m.gguf;
    const int n = m.hp.n_layer;
    const int64_t id = gguf_find_key(g, key.c_str());
    if (id >= 0 && gguf_get_kv_type(g, id) == GGUF_TYPE_ARRAY) {
        const gguf_type t = gguf_get_arr_type(g, id);
        if ((t != GGUF_TYPE_INT32 && t != GGUF_TYPE_UINT32) || gguf_get_arr_n(g, id) != (size_t) n) {
            fail(HONE_E_FORMAT, "%s: '%s' must be one integer or an array of %d integers (one per layer)", m.path.c_str(), key.c_str(), n);
        }
        const int32_t * v = (const int32_t *) gguf_get_arr_data(g, id);
        return std::vector<int>(v, v + n);
    }
    if (id < 0 && required) fail(HONE_E_FORMAT, "%s: missing metadata key '%s'", m.path.c_str(), key.c_str());
    return std::vector<int>(n, id < 0 ? def : (int) gguf_u32(g, key, false));
}

// RoPE and attention windows per layer, as llama.cpp's loaders set them: SmolLM3 skips RoPE in
// every 4th layer; OLMo 3 (olmo2 with a window), EXAONE 4 32B and PLaMo 3 window some layers.
// A per-layer integer array (bool or any integer type) of at least n entries; empty if absent.
static std::vector<int> layer_array(const hone_model & m, const std::string & key, int n) {
    const gguf_context * g = m.gguf;
    const int64_t id = gguf_find_key(g, key.c_str());
    if (id < 0) return {};
    const gguf_type t = id >= 0 && gguf_get_kv_type(g, id) == GGUF_TYPE_ARRAY ? gguf_get_arr_type(g, id) : GGUF_TYPE_COUNT;
    const size_t size = t == GGUF_TYPE_INT32 || t == GGUF_TYPE_UINT32 ? 4 : 1;
    const bool ints = t == GGUF_TYPE_BOOL || t == GGUF_TYPE_INT8 || t == GGUF_TYPE_UINT8 || t == GGUF_TYPE_INT32 || t == GGUF_TYPE_UINT32;
    if (!ints || gguf_get_arr_n(g, id) < (size_t) n) {
        fail(HONE_E_FORMAT, "%s: '%s' must be an integer array with one entry per layer (%d)", m.path.c_str(), key.c_str(), n);
    }
    const uint8_t * d = (const uint8_t *) gguf_get_arr_data(g, id);
    std::vector<int> v(n);
    for (int i = 0; i < n; i++) {
        if (size == 1) v[i] = t == GGUF_TYPE_INT8 ? (int) (int8_t) d[i] : (int) d[i];
        else v[i] = ((const int32_t *) d)[i];
    }
    return v;
}

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
        const std::vector<int> swa = layer_array(m, a + "attention.sliding_window_pattern", n), rope = layer_array(m, a + "attention.rope_pattern", n);
        if (swa.empty()) fail(HONE_E_FORMAT, "%s: missing metadata key '%sattention.sliding_window_pattern'", m.path.c_str(), a.c_str());
        hp.n_swa = (int) window;
        for (int il = 0; il < n; il++) {
            hp.swa_l[il] = swa[il] != 0;
            if (!rope.empty()) hp.rope_l[il] = hp.has_rope() && rope[il] != 0;
        }
        for (int d : layer_array(m, a + "deepstack_mapping", n)) {
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
    for (int il = 0; il < n; il++) hp.swa_l[il] = period == 0 || il % (int) period < (int) period - 1;
    for (int il = 0; il < n; il++) {
        if (!hp.swa_l[il]) {
            if (exaone4_32b) hp.rope_l[il] = 0; // EXAONE 4's global layers have no RoPE
            continue;
        }
        if (olmo3) hp.rope_scale_l[il] = 1.0f; // OLMo 3's windowed layers: plain RoPE, no scaling
        if (gemma2) hp.rope_base_l[il] = gguf_f32(g, a + "rope.freq_base_swa", hp.rope_freq_base); // its own base if given
        if (own_swa_base) {
            // llama.cpp's windowed-layer base: the file's, else its default of 10000 (not the global base)
            hp.rope_base_l[il] = gguf_f32(g, a + "rope.freq_base_swa", 10000.0f);
            hp.rope_scale_l[il] = 1.0f;
        }
    }
}

static void read_hparams(hone_model & m) {
    const gguf_context * g = m.gguf;
    Hparams & hp = m.hp;
    hp.arch_name = gguf_str(g, "general.architecture");
    if (hp.arch_name.empty()) fail(HONE_E_FORMAT, "%s: missing 'general.architecture'", m.path.c_str());
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
        SWA_PLAMO3 = 131072,
        ROPE_ALPHA = 262144,
        GRANITE_SWA = 524288,
        GEMMA = 1048576,        // embeddings times sqrt(n_embd), GEGLU, Q scaled after RoPE (and Gemma 3's windows, soft cap)   // Granite 4: Granite's scales, windowed layers by a per-layer pattern, attention sinks    // HunYuan-VL: NTK-aware base, base * alpha^(d / (d - 2)) with rope.scaling.alpha    // PLaMo 3: sliding_window > 0 makes 7 of every 8 layers windowed, with their own RoPE base
        // GLM-4: the pinned llama.cpp sets F32 precision on the attn_output and ffn_down products,
        // which asserts when an adapter has made them additions: such LoRAs cannot be loaded there
        NO_LORA_OUT_DOWN = 65536,
    };
    static const struct { const char * name; Arch arch; int rope; unsigned traits; } KNOWN[] = {
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
    unsigned traits = 0;
    bool known = false;
    for (auto & k : KNOWN) {
        if (hp.arch_name == k.name) { hp.arch = k.arch; hp.rope_type = k.rope; traits = k.traits; known = true; }
    }
    if (!known) {
        std::string trainable;
        for (auto & k : KNOWN) trainable += (trainable.empty() ? "" : ", ") + std::string(k.name);
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
        if (granite && gguf_find_key(g, (a + "logit_scale").c_str()) < 0) fail(HONE_E_FORMAT, "%s: missing metadata key '%slogit_scale'", m.path.c_str(), a.c_str());
        hp.embedding_scale = gguf_f32(g, a + "embedding_scale", minicpm ? 12.0f : 0.0f);
        hp.residual_scale = gguf_f32(g, a + "residual_scale", minicpm ? 1.4f / std::sqrt((float) hp.n_layer) : 0.0f);
        hp.logit_scale = gguf_f32(g, a + "logit_scale", minicpm ? 256.0f / (float) hp.n_embd : 1.0f);
        hp.attention_scale = gguf_f32(g, a + "attention.scale", 0.0f);
    }
    const bool has_sections = gguf_find_key(g, (a + "rope.dimension_sections").c_str()) >= 0;
    if (hp.n_pos_per_token() > 1 || (traits & OPTIONAL_MROPE && has_sections)) {
        // M-RoPE's sections: required, as llama.cpp requires them (at most 4 values, the rest 0).
        const int64_t k = gguf_find_key(g, (a + "rope.dimension_sections").c_str());
        if (k < 0) fail(HONE_E_FORMAT, "%s: missing metadata key '%srope.dimension_sections'", m.path.c_str(), a.c_str());
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
        if (gguf_find_key(g, (a + "logit_scale").c_str()) < 0) fail(HONE_E_FORMAT, "%s: missing metadata key '%slogit_scale'", m.path.c_str(), a.c_str());
        hp.logit_scale = gguf_f32(g, a + "logit_scale", 1.0f);
    }
}

static void bind_weights(hone_model & m) {
    const Hparams & hp = m.hp;
    auto blk = [](int il, const char * what) { return strfmt("blk.%d.%s", il, what); };
    // Per-tensor weight scales (NVFP4 files, some BitNet conversions) multiply a product at
    // places the graph does not reproduce yet: refused rather than trained wrong.
    for (int64_t i = 0; i < gguf_get_n_tensors(m.gguf); i++) {
        const std::string name = gguf_get_tensor_name(m.gguf, i);
        if (name.size() > 6 && name.compare(name.size() - 6, 6, ".scale") == 0) {
            fail(HONE_E_UNSUPPORTED, "%s: per-tensor weight scales ('%s') cannot train yet", m.path.c_str(), name.c_str());
        }
    }
    m.tok_embd = m.weight("token_embd.weight", true);
    m.output_norm = m.weight("output_norm.weight", !hp.weightless_norms);
    m.output = hp.always_tied ? nullptr : m.weight("output.weight", hp.embd_norm_skip);
    m.tied_output = m.output == nullptr;
    if (m.tied_output) m.output = m.tok_embd;
    m.rope_freqs = m.weight("rope_freqs.weight", false);
    m.hp.n_vocab = (int) m.tok_embd->ne[1];
    const bool qwen3 = hp.arch == Arch::QWEN3, post = hp.arch == Arch::POSTNORM;
    const bool pre_norms = !post && !hp.weightless_norms;
    m.layers.resize(hp.n_layer);
    for (int il = 0; il < hp.n_layer; il++) {
        LayerWeights & L = m.layers[il];
        L.attn_norm = pre_norms ? m.weight(blk(il, "attn_norm.weight"), true) : nullptr;
        L.wqkv = m.weight(blk(il, "attn_qkv.weight"), false);
        L.bqkv = m.weight(blk(il, "attn_qkv.bias"), false);
        L.wq = m.weight(blk(il, "attn_q.weight"), !L.wqkv);
        L.wk = m.weight(blk(il, "attn_k.weight"), !L.wqkv);
        L.wv = m.weight(blk(il, "attn_v.weight"), !L.wqkv);
        if (L.wqkv && L.wq) fail(HONE_E_FORMAT, "%s: layer %d has both a fused attn_qkv and separate attn_q", m.path.c_str(), il);
        if (L.wqkv && hp.qk_norm_whole) fail(HONE_E_UNSUPPORTED, "%s: a fused attn_qkv with whole-projection Q/K norms cannot train yet", m.path.c_str());
        L.wo = m.weight(blk(il, "attn_output.weight"), true);
        L.bq = m.weight(blk(il, "attn_q.bias"), false);
        L.bk = m.weight(blk(il, "attn_k.bias"), false);
        L.bv = m.weight(blk(il, "attn_v.bias"), false);
        L.bo = m.weight(blk(il, "attn_output.bias"), false);
        L.q_norm = m.weight(blk(il, "attn_q_norm.weight"), qwen3 || post || hp.embd_norm_skip);
        L.k_norm = m.weight(blk(il, "attn_k_norm.weight"), qwen3 || post);
        L.ffn_norm = pre_norms && !hp.parallel_ffn ? m.weight(blk(il, hp.ffn_norm_tensor.c_str()), true) : nullptr;
        const bool post_norms = post || hp.sandwich_norms;
        // PLaMo 3's loader names its post-norms without the ".weight" suffix
        const char * suffix = hp.arch_name == "plamo3" ? "" : ".weight";
        L.attn_post_norm = post_norms ? m.weight(blk(il, "post_attention_norm") + suffix, true) : nullptr;
        L.ffn_post_norm = post_norms ? m.weight(blk(il, "post_ffw_norm") + suffix, true) : nullptr;
        L.attn_sub_norm = m.weight(blk(il, "attn_sub_norm.weight"), false);
        L.ffn_sub_norm = m.weight(blk(il, "ffn_sub_norm.weight"), false);
        L.out_scale = hp.embd_norm_skip ? m.weight(blk(il, "layer_output_scale.weight"), true) : nullptr;
        L.attn_sinks = m.weight(blk(il, "attn_sinks.weight"), hp.arch_name == "granite_swa");
        if (m.weight(blk(il, "ffn_gate_inp.weight"), false)) fail(HONE_E_UNSUPPORTED, "%s: mixture-of-experts layers cannot train yet", m.path.c_str());
        L.ffn_gate = m.weight(blk(il, "ffn_gate.weight"), false);
        L.ffn_up = m.weight(blk(il, "ffn_up.weight"), true);
        L.b_gate = m.weight(blk(il, "ffn_gate.bias"), false);
        L.b_up = m.weight(blk(il, "ffn_up.bias"), false);
        L.b_down = m.weight(blk(il, "ffn_down.bias"), false);
        L.ffn_down = m.weight(blk(il, "ffn_down.weight"), true);
        if (L.ffn_up->ne[2] != 1) fail(HONE_E_UNSUPPORTED, "%s: mixture-of-experts layers cannot train yet", m.path.c_str());
        // No gate: Arcee's relu^2 FFN, or gate and up fused in one up of 2*n_ff rows (ChatGLM, GLM-4).
        const bool fused_gate_up = !L.ffn_gate && !hp.ffn_relu2 && L.ffn_up->ne[1] == 2 * (int64_t) L.ffn_down->ne[0];
        if (!L.ffn_gate && !hp.ffn_relu2 && !fused_gate_up) m.weight(blk(il, "ffn_gate.weight"), true); // names the missing tensor
    }
}

// CPU: wrap the read-only file mapping, no copy. GPU: one buffer, uploaded tensor by tensor.
static void place_weights(hone_model & m) {
    const size_t data_off = gguf_get_data_offset(m.gguf);
    ggml_backend_t be = m.backends.primary;
    if (be == m.backends.cpu) {
        m.map = std::make_unique<ReadOnlyMap>(m.path);
        uint8_t * base = const_cast<uint8_t *>(m.map->data()) + data_off;
        m.buf_w = ggml_backend_cpu_buffer_from_ptr(base, m.map->size() - data_off);
        for (int64_t i = 0; i < gguf_get_n_tensors(m.gguf); i++) {
            ggml_tensor * t = ggml_get_tensor(m.ctx_w, gguf_get_tensor_name(m.gguf, i));
            ggml_backend_tensor_alloc(m.buf_w, t, base + gguf_get_tensor_offset(m.gguf, i));
        }
    } else {
        m.buf_w = ggml_backend_alloc_ctx_tensors(m.ctx_w, be);
        if (!m.buf_w) fail(HONE_E_MEMORY, "%s: not enough %s memory for the model weights", m.path.c_str(), ggml_backend_name(be));
        FILE * f = fopen(m.path.c_str(), "rb");
        if (!f) fail(HONE_E_IO, "%s: cannot open for reading", m.path.c_str());
        std::vector<uint8_t> buf;
        for (int64_t i = 0; i < gguf_get_n_tensors(m.gguf); i++) {
            ggml_tensor * t = ggml_get_tensor(m.ctx_w, gguf_get_tensor_name(m.gguf, i));
            buf.resize(ggml_nbytes(t));
            fseek(f, (long) (data_off + gguf_get_tensor_offset(m.gguf, i)), SEEK_SET);
            if (fread(buf.data(), 1, buf.size(), f) != buf.size()) {
                fclose(f);
                fail(HONE_E_IO, "%s: short read of tensor '%s'", m.path.c_str(), t->name);
            }
            ggml_backend_tensor_set(t, buf.data(), 0, buf.size());
        }
        fclose(f);
    }
    ggml_backend_buffer_set_usage(m.buf_w, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
}

static void load_vocab(hone_model & m) {
    llama_model_params p = llama_model_default_params();
    p.vocab_only = true;
    p.use_extra_bufts = false;
    m.vocab_model = llama_model_load_from_file(m.path.c_str(), p);
    if (!m.vocab_model) fail(HONE_E_FORMAT, "%s: llama.cpp could not load the tokenizer from this file", m.path.c_str());
}

extern "C" {

hone_model_params hone_model_default_params(void) {
    hone_model_params p;
    p.path = nullptr;
    p.backend = "auto";
    p.n_threads = 0;
    p.gpu_precision = "bf16";
    return p;
}

hone_status hone_model_load(const hone_model_params * params, hone_model ** out, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(params && params->path && out, "model path is required");
        quiet_logs();
        auto m = std::make_unique<hone_model>();
        m->path = params->path;
        m->n_threads = params->n_threads > 0 ? params->n_threads : (int) std::max(1u, std::thread::hardware_concurrency());
        m->gguf = open_gguf_checked(m->path, &m->ctx_w);
        read_hparams(*m);
        bind_weights(*m);
        const size_t slash = m->path.find_last_of("/\\");
        m->name = gguf_str(m->gguf, "general.name", m->path.substr(slash == std::string::npos ? 0 : slash + 1));
        const std::string precision = params->gpu_precision ? params->gpu_precision : "bf16";
        apply_gpu_precision(precision, false); // validates before anything is loaded
        init_backends(m->backends, params->backend ? params->backend : "auto", m->n_threads);
        const bool cuda = m->backends.primary != m->backends.cpu && dev_matches(ggml_backend_get_device(m->backends.primary), "cuda");
        if (cuda) {
            apply_gpu_precision(precision, true);
            m->gpu_precision = precision;
        }
        place_weights(*m);
        load_vocab(*m);
        *out = m.release();
    });
}

void hone_model_free(hone_model * model) { delete model; }

void hone_model_get_info(const hone_model * m, hone_model_info * info) {
    memset(info, 0, sizeof(*info));
    snprintf(info->arch, sizeof(info->arch), "%s", m->hp.arch_name.c_str());
    snprintf(info->name, sizeof(info->name), "%s", m->name.c_str());
    snprintf(info->backend, sizeof(info->backend), "%s", ggml_backend_name(m->backends.primary));
    snprintf(info->gpu_precision, sizeof(info->gpu_precision), "%s", m->gpu_precision.c_str());
    info->n_layer = m->hp.n_layer; info->n_embd = m->hp.n_embd; info->n_ff = m->hp.n_ff;
    info->n_head = m->hp.n_head; info->n_head_kv = m->hp.n_head_kv; info->head_dim = m->hp.head_dim;
    info->n_vocab = m->hp.n_vocab; info->n_ctx_train = m->hp.n_ctx_train;
    info->tied_output = m->tied_output;
    for (ggml_tensor * t = ggml_get_first_tensor(m->ctx_w); t; t = ggml_get_next_tensor(m->ctx_w, t)) {
        info->n_params += ggml_nelements(t);
        info->weight_bytes += ggml_nbytes(t);
    }
}

int32_t hone_model_tokenize(const hone_model * m, const char * text, size_t len, bool add_bos, int32_t * tokens, int32_t n_max) {
    const llama_vocab * vocab = llama_model_get_vocab(m->vocab_model);
    return llama_tokenize(vocab, text, (int32_t) len, tokens, n_max, add_bos, false);
}

int32_t hone_model_token_bos(const hone_model * m) { return llama_vocab_bos(llama_model_get_vocab(m->vocab_model)); }
int32_t hone_model_token_eos(const hone_model * m) { return llama_vocab_eos(llama_model_get_vocab(m->vocab_model)); }

} // extern "C"
