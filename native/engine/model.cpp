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

static void read_hparams(hone_model & m) {
    const gguf_context * g = m.gguf;
    Hparams & hp = m.hp;
    hp.arch_name = gguf_str(g, "general.architecture");
    if (hp.arch_name.empty()) fail(HONE_E_FORMAT, "%s: missing 'general.architecture'", m.path.c_str());
    // Architectures whose llama.cpp graph is one of ours: (name, layout, RoPE, graph traits).
    // Each is tested for forward equivalence with llama.cpp (test/native/gradients.test.ts).
    enum : unsigned {
        NOPE_EVERY_4TH = 1,     // SmolLM3: every 4th layer has no rotary embedding
        QK_NORM_AFTER_ROPE = 2, // Hunyuan, Maincoder: Q/K norms after RoPE (Qwen3: before)
        QK_NORM_WHOLE = 4,      // OLMo 2: Q/K norms span the whole projection, not one head
        FFN_RELU2 = 8,          // Arcee: FFN = down(relu(up x)^2), no gate
        FFN_NORM_HF_NAME = 16,  // Seed-OSS: the FFN norm is stored as post_attention_norm
        ZERO_NORM_EPS = 32,     // Qwen2-VL: the pinned llama.cpp's loader reads no norm epsilon (it stays 0)
        MAY_LOOP = 64,          // Nanbeige: num_loops > 1 runs the layers again (refused: not built yet)
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
    hp.no_rope_layer_step = traits & NOPE_EVERY_4TH ? 4 : 0;
    hp.qk_norm_after_rope = traits & QK_NORM_AFTER_ROPE;
    hp.qk_norm_whole = traits & QK_NORM_WHOLE;
    hp.ffn_relu2 = traits & FFN_RELU2;
    hp.ffn_norm_tensor = traits & FFN_NORM_HF_NAME ? "post_attention_norm.weight" : "ffn_norm.weight";

    const std::string a = hp.arch_name + ".";
    hp.n_layer   = gguf_u32(g, a + "block_count", true);
    hp.n_embd    = gguf_u32(g, a + "embedding_length", true);
    hp.n_ff      = gguf_u32(g, a + "feed_forward_length", true);
    hp.n_head    = gguf_u32(g, a + "attention.head_count", true);
    hp.n_head_kv = gguf_u32(g, a + "attention.head_count_kv", false, hp.n_head);
    hp.head_dim  = gguf_u32(g, a + "attention.key_length", false, hp.n_head ? hp.n_embd / hp.n_head : 0);
    hp.n_rot     = gguf_u32(g, a + "rope.dimension_count", false, hp.head_dim);
    hp.n_ctx_train = gguf_u32(g, a + "context_length", false, 2048);
    // Train with the epsilon inference will use, read or not.
    hp.rms_eps   = traits & ZERO_NORM_EPS ? 0.0f : gguf_f32(g, a + "attention.layer_norm_rms_epsilon", 1e-5f);
    // Sliding-window layers as llama.cpp enables them: OLMo 3 (olmo2 with a window), EXAONE 4 32B.
    const bool swa = (hp.arch_name == "olmo2" && gguf_u32(g, a + "attention.sliding_window", false, 0) > 0) ||
                     (hp.arch_name == "exaone4" && hp.n_layer == 64);
    if (swa) fail(HONE_E_UNSUPPORTED, "%s: sliding-window attention layers cannot train yet", m.path.c_str());
    const uint32_t loops = traits & MAY_LOOP ? gguf_u32(g, a + "num_loops", false, 1) : 1;
    if (loops > 1) fail(HONE_E_UNSUPPORTED, "%s: looped layers (%snum_loops = %u) cannot train yet", m.path.c_str(), a.c_str(), loops);
    // Granite-style scales, with llama.cpp's defaults for MiniCPM (Granite stores them all).
    const bool minicpm = hp.arch_name == "minicpm", granite = hp.arch_name == "granite";
    if (minicpm || granite) {
        if (granite && gguf_find_key(g, (a + "logit_scale").c_str()) < 0) fail(HONE_E_FORMAT, "%s: missing metadata key '%slogit_scale'", m.path.c_str(), a.c_str());
        hp.embedding_scale = gguf_f32(g, a + "embedding_scale", minicpm ? 12.0f : 0.0f);
        hp.residual_scale = gguf_f32(g, a + "residual_scale", minicpm ? 1.4f / std::sqrt((float) hp.n_layer) : 0.0f);
        hp.logit_scale = gguf_f32(g, a + "logit_scale", minicpm ? 256.0f / (float) hp.n_embd : 1.0f);
        hp.attention_scale = gguf_f32(g, a + "attention.scale", 0.0f);
    }
    if (hp.n_pos_per_token() > 1) {
        // M-RoPE's sections: required, as llama.cpp requires them (at most 4 values, the rest 0).
        const int64_t k = gguf_find_key(g, (a + "rope.dimension_sections").c_str());
        if (k < 0) fail(HONE_E_FORMAT, "%s: missing metadata key '%srope.dimension_sections'", m.path.c_str(), a.c_str());
        const bool ints = gguf_get_kv_type(g, k) == GGUF_TYPE_ARRAY &&
                          (gguf_get_arr_type(g, k) == GGUF_TYPE_INT32 || gguf_get_arr_type(g, k) == GGUF_TYPE_UINT32);
        const size_t n = ints ? gguf_get_arr_n(g, k) : 0;
        if (!ints || n > 4) {
            fail(HONE_E_FORMAT, "%s: '%srope.dimension_sections' must be an array of at most 4 integers", m.path.c_str(), a.c_str());
        }
        const int32_t * v = (const int32_t *) gguf_get_arr_data(g, k);
        for (size_t i = 0; i < n; i++) hp.rope_sections[i] = v[i];
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
    if (hp.n_head <= 0 || hp.n_head_kv <= 0 || hp.n_head % hp.n_head_kv != 0) {
        fail(HONE_E_FORMAT, "%s: inconsistent head counts (%d heads, %d kv heads)", m.path.c_str(), hp.n_head, hp.n_head_kv);
    }
    if (hp.n_rot != hp.head_dim) fail(HONE_E_UNSUPPORTED, "%s: partial rotary embeddings (n_rot %d != head_dim %d) cannot train yet", m.path.c_str(), hp.n_rot, hp.head_dim);
}

static void bind_weights(hone_model & m) {
    auto blk = [](int il, const char * what) { return strfmt("blk.%d.%s", il, what); };
    m.tok_embd = m.weight("token_embd.weight", true);
    m.output_norm = m.weight("output_norm.weight", true);
    m.output = m.weight("output.weight", false);
    m.tied_output = m.output == nullptr;
    if (m.tied_output) m.output = m.tok_embd;
    m.rope_freqs = m.weight("rope_freqs.weight", false);
    m.hp.n_vocab = (int) m.tok_embd->ne[1];
    const bool qwen3 = m.hp.arch == Arch::QWEN3, post = m.hp.arch == Arch::POSTNORM;
    m.layers.resize(m.hp.n_layer);
    for (int il = 0; il < m.hp.n_layer; il++) {
        LayerWeights & L = m.layers[il];
        L.attn_norm = m.weight(blk(il, "attn_norm.weight"), !post);
        L.wq = m.weight(blk(il, "attn_q.weight"), true);
        L.wk = m.weight(blk(il, "attn_k.weight"), true);
        L.wv = m.weight(blk(il, "attn_v.weight"), true);
        L.wo = m.weight(blk(il, "attn_output.weight"), true);
        L.bq = m.weight(blk(il, "attn_q.bias"), false);
        L.bk = m.weight(blk(il, "attn_k.bias"), false);
        L.bv = m.weight(blk(il, "attn_v.bias"), false);
        L.bo = m.weight(blk(il, "attn_output.bias"), false);
        L.q_norm = m.weight(blk(il, "attn_q_norm.weight"), qwen3 || post);
        L.k_norm = m.weight(blk(il, "attn_k_norm.weight"), qwen3 || post);
        L.ffn_norm = m.weight(blk(il, m.hp.ffn_norm_tensor.c_str()), !post);
        L.attn_post_norm = post ? m.weight(blk(il, "post_attention_norm.weight"), true) : nullptr;
        L.ffn_post_norm = post ? m.weight(blk(il, "post_ffw_norm.weight"), true) : nullptr;
        L.ffn_gate = m.weight(blk(il, "ffn_gate.weight"), !m.hp.ffn_relu2);
        L.ffn_up = m.weight(blk(il, "ffn_up.weight"), true);
        L.ffn_down = m.weight(blk(il, "ffn_down.weight"), true);
        if (L.ffn_up->ne[2] != 1) fail(HONE_E_UNSUPPORTED, "%s: mixture-of-experts layers cannot train yet", m.path.c_str());
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
