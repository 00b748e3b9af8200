#include "model.h"

#include "gpu_precision.h"

#include "error.h"

#include "backend_registry.h"
#include "fatal_report.h"
#include "llama.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unordered_map>

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
    if (level == GGML_LOG_LEVEL_ERROR) note_error_log(text);
    if (level == GGML_LOG_LEVEL_ERROR || getenv("HONE_VERBOSE")) fputs(text, stderr);
}

void quiet_logs() {
    llama_log_set(log_sink, nullptr);
    ggml_log_set(log_sink, nullptr);
    // the error lines the sink keeps are what a ggml abort reports (fatal_report.h)
    install_fatal_report();
}

static bool dev_matches(ggml_backend_dev_t dev, const std::string & request) {
    const std::string reg = ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev));
    if (request == "cuda") return reg == "CUDA";
    if (request == "metal") return reg == "Metal" || reg == "MTL";
    return false;
}

ggml_backend_dev_t find_gpu_device(const std::string & request) {
    ensure_backends();
    if (request != "auto" && request != "cpu" && request != "cuda" && request != "metal") {
        fail(HONE_E_INVALID_ARG, "unknown backend '%s' (expected auto, cpu, cuda or metal)", request.c_str());
    }
    if (request == "cpu") return nullptr;
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(dev) != GGML_BACKEND_DEVICE_TYPE_GPU) continue;
        if (request != "auto" && !dev_matches(dev, request)) continue;
        return dev;
    }
    if (request != "auto") {
        fail(HONE_E_UNSUPPORTED, "backend '%s' requested but this build has no such device (build with %s)", request.c_str(),
             request == "cuda" ? "HONE_CUDA=1 on a machine with an NVIDIA GPU" : "Metal on Apple silicon");
    }
    return nullptr;
}

void init_backends(Backends & b, const std::string & request, int n_threads) {
    ggml_backend_dev_t gpu = find_gpu_device(request); // validates the request first
    b.cpu = cpu_backend_init(n_threads);
    if (!b.cpu) fail(HONE_E_INTERNAL, "the CPU backend failed to initialise");
    b.primary = b.cpu;
    if (!gpu) return;
    b.primary = ggml_backend_dev_init(gpu, nullptr);
    if (!b.primary) fail(HONE_E_INTERNAL, "backend %s failed to initialise", ggml_backend_dev_name(gpu));
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

// Binds the tensor `name`, which must have the shape [ne0, ne1, ne2] (`why`: where the shape comes from).
static void bind_named(const hone_model & m, ggml_tensor *& t, const std::string & name, int64_t ne0, int64_t ne1, int64_t ne2,
                       const std::string & why) {
    t = m.weight(name, true);
    if (t->ne[0] != ne0 || t->ne[1] != ne1 || t->ne[2] != ne2 || t->ne[3] != 1) {
        fail(HONE_E_FORMAT, "%s: tensor '%s' has shape [%lld, %lld, %lld], expected [%lld, %lld, %lld] (%s)", m.path.c_str(), t->name,
             (long long) t->ne[0], (long long) t->ne[1], (long long) t->ne[2], (long long) ne0, (long long) ne1, (long long) ne2, why.c_str());
    }
}

// Binds blk.il.what with the shape [ne0, ne1, ne2].
static void bind_shaped(const hone_model & m, ggml_tensor *& t, int il, const char * what, int64_t ne0, int64_t ne1, int64_t ne2,
                        const std::string & why) {
    bind_named(m, t, strfmt("blk.%d.%s", il, what), ne0, ne1, ne2, why);
}

// Gemma 4's per-layer embeddings: the table, the embeddings' projection and its norm, and each
// layer's gate, projection and norm, with the shapes llama.cpp's loader requires.
static void bind_per_layer_embeddings(hone_model & m) {
    const Hparams & hp = m.hp;
    const int64_t E = hp.n_embd_per_layer, D = hp.n_embd, all = E * hp.n_layer;
    const std::string why = strfmt("embedding_length_per_layer_input %lld over %d layers", (long long) E, hp.n_layer);
    bind_named(m, m.pl_tok_embd, "per_layer_token_embd.weight", all, hp.n_vocab, 1, why);
    bind_named(m, m.pl_model_proj, "per_layer_model_proj.weight", D, all, 1, why);
    bind_named(m, m.pl_proj_norm, "per_layer_proj_norm.weight", E, 1, 1, why);
    for (int il = 0; il < hp.n_layer; il++) {
        LayerWeights & L = m.layers[il];
        bind_shaped(m, L.pl_gate, il, "inp_gate.weight", D, E, 1, why);
        bind_shaped(m, L.pl_proj, il, "proj.weight", E, D, 1, why);
        bind_shaped(m, L.pl_post_norm, il, "post_norm.weight", D, 1, 1, why);
    }
}

// A mixture-of-experts layer's router and experts, with the shapes llama.cpp's loader requires.
static void bind_experts(hone_model & m, LayerWeights & L, int il) {
    const Hparams & hp = m.hp;
    const std::string why = strfmt("%d experts of FFN width %d", hp.n_expert, hp.n_ff_exp);
    auto bind = [&](ggml_tensor *& t, const char * what, int64_t ne0, int64_t ne1, int64_t ne2) { bind_shaped(m, t, il, what, ne0, ne1, ne2, why); };
    const int64_t E = hp.n_expert, F = hp.n_ff_exp, D = hp.n_embd, FS = hp.n_ff_shexp;
    bind(L.ffn_gate_inp, "ffn_gate_inp.weight", D, E, 1);
    // gate and up fused in one tensor where the file has it (Gemma 4, Qwen3.5-MoE conversions), as their loaders read it
    L.ffn_gate_up_exps = m.weight(strfmt("blk.%d.ffn_gate_up_exps.weight", il), false);
    if (L.ffn_gate_up_exps) {
        bind(L.ffn_gate_up_exps, "ffn_gate_up_exps.weight", D, 2 * F, E);
    } else {
        bind(L.ffn_gate_exps, "ffn_gate_exps.weight", D, F, E);
        bind(L.ffn_up_exps, "ffn_up_exps.weight", D, F, E);
    }
    bind(L.ffn_down_exps, "ffn_down_exps.weight", F, D, E);
    if (hp.desc->moe == arch::Moe::SOFTMAX_NORM_BESIDE_DENSE) {
        bind(L.ffn_gate_inp_s, "ffn_gate_inp.scale", D, 1, 1);
        bind(L.ffn_pre_norm_2, "pre_ffw_norm_2.weight", D, 1, 1);
        bind(L.ffn_post_norm_1, "post_ffw_norm_1.weight", D, 1, 1);
        bind(L.ffn_post_norm_2, "post_ffw_norm_2.weight", D, 1, 1);
        L.ffn_down_exps_s = m.weight(strfmt("blk.%d.ffn_down_exps.scale", il), false);
        if (L.ffn_down_exps_s) bind(L.ffn_down_exps_s, "ffn_down_exps.scale", E, 1, 1);
    }
    if (hp.desc->moe == arch::Moe::SOFTMAX_NORM_PARALLEL_DENSE) bind(L.ffn_norm_exps, "ffn_norm_exps.weight", D, 1, 1);
    if (hp.desc->moe == arch::Moe::SOFTMAX_WEIGHT_OAI) {
        bind(L.ffn_gate_inp_b, "ffn_gate_inp.bias", E, 1, 1);
        bind(L.ffn_gate_exps_b, "ffn_gate_exps.bias", F, E, 1);
        bind(L.ffn_up_exps_b, "ffn_up_exps.bias", F, E, 1);
        bind(L.ffn_down_exps_b, "ffn_down_exps.bias", D, E, 1);
    }
    // the router's selection bias (read as optional by the dots1 and ERNIE 4.5 loaders, required by glm4moe's)
    if (arch::selection_bias(hp.desc->moe)) {
        L.ffn_exp_probs_b = m.weight(strfmt("blk.%d.exp_probs_b.bias", il), hp.desc->tensors.exp_probs_b_required);
        if (L.ffn_exp_probs_b) bind(L.ffn_exp_probs_b, "exp_probs_b.bias", E, 1, 1);
    }
    // a shared expert: gated (has_shared_expert), or ungated where the file gives its width (Granite
    // MoE Shared, ERNIE 4.5) or count (DeepSeek-MoE)
    const bool gated = arch::has_shared_expert(hp.desc->moe);
    const bool ungated = (hp.desc->moe == arch::Moe::SOFTMAX_NORM_FF || hp.desc->moe == arch::Moe::SOFTMAX_NORM_BIAS ||
                          hp.desc->moe == arch::Moe::GATED_SHARED_HALF || arch::shared_count(hp.desc->moe)) && FS > 0;
    if (gated) bind(L.ffn_gate_inp_shexp, "ffn_gate_inp_shexp.weight", D, 1, 1);
    if (gated || ungated) {
        bind(L.ffn_gate_shexp, "ffn_gate_shexp.weight", D, FS, 1);
        bind(L.ffn_up_shexp, "ffn_up_shexp.weight", D, FS, 1);
        bind(L.ffn_down_shexp, "ffn_down_shexp.weight", FS, D, 1);
    }
}

// A gated delta-net layer's tensors (Qwen3.5), with the shapes llama.cpp's qwen35 loader requires.
static void bind_delta_net(hone_model & m, LayerWeights & L, int il) {
    const Hparams & hp = m.hp;
    const int64_t D = hp.n_embd, Hv = hp.ssm_dt_rank, dk = hp.ssm_d_state, inner = hp.ssm_d_inner;
    const int64_t channels = 2 * hp.ssm_n_group * dk + inner; // Q, K and V, convolved together
    auto bind = [&](ggml_tensor *& t, const char * what, int64_t ne0, int64_t ne1) { bind_shaped(m, t, il, what, ne0, ne1, 1, "the file's ssm.* sizes"); };
    bind(L.wqkv, "attn_qkv.weight", D, channels);
    bind(L.wqkv_gate, "attn_gate.weight", D, inner);
    bind(L.ssm_conv1d, "ssm_conv1d.weight", hp.ssm_d_conv, channels);
    bind(L.ssm_dt, "ssm_dt.bias", Hv, 1);
    bind(L.ssm_a, "ssm_a", Hv, 1);
    bind(L.ssm_beta, "ssm_beta.weight", D, Hv);
    bind(L.ssm_alpha, "ssm_alpha.weight", D, Hv);
    bind(L.ssm_norm, "ssm_norm.weight", inner / Hv, 1);
    bind(L.ssm_out, "ssm_out.weight", inner, D);
    for (ggml_tensor * t : { L.ssm_dt, L.ssm_a, L.ssm_norm }) {
        if (t->type != GGML_TYPE_F32) fail(HONE_E_UNSUPPORTED, "%s: tensor '%s' is %s: the delta-net's vectors must be F32", m.path.c_str(), t->name, ggml_type_name(t->type));
    }
}

static void bind_weights(hone_model & m) {
    const Hparams & hp = m.hp;
    auto blk = [](int il, const char * what) { return strfmt("blk.%d.%s", il, what); };
    const arch::Desc & d = *hp.desc;
    // a router in a file without experts (a Gemma 4 file without expert_count): llama.cpp's loader
    // would shape its experts with none
    for (int il = 0; il < hp.n_layer && hp.n_expert == 0; il++) {
        if (m.weight(blk(il, "ffn_gate_inp.weight"), false)) {
            fail(HONE_E_FORMAT, "%s: layer %d has a router ('%s') but '%s.expert_count' is missing or 0", m.path.c_str(), il,
                 blk(il, "ffn_gate_inp.weight").c_str(), hp.arch_name.c_str());
        }
    }
    // Per-tensor weight scales (NVFP4 files, some BitNet conversions) multiply a product at
    // places the graph does not reproduce yet: refused rather than trained wrong.
    for (int64_t i = 0; i < gguf_get_n_tensors(m.gguf); i++) {
        const std::string name = gguf_get_tensor_name(m.gguf, i);
        const bool applied = std::any_of(d.tensors.scales_applied.begin(), d.tensors.scales_applied.end(),
                                         [&](const std::string & a) { return ends_with(name, a); });
        if (ends_with(name, ".scale") && !applied) {
            fail(HONE_E_UNSUPPORTED, "%s: per-tensor weight scales ('%s') cannot train yet", m.path.c_str(), name.c_str());
        }
        for (const std::string & r : d.refused_tensors) {
            if (ends_with(name, r)) {
                fail(HONE_E_UNSUPPORTED, "%s: tensor '%s' (a part of %s that Hone's graph does not build) cannot train yet", m.path.c_str(), name.c_str(), hp.arch_name.c_str());
            }
        }
    }
    const bool weightless = d.norms == arch::Norms::WEIGHTLESS;
    m.tok_embd = m.weight("token_embd.weight", !d.tensors.embd_from_output);
    m.output_norm = m.weight("output_norm.weight", !weightless);
    m.output_norm_b = m.weight("output_norm.bias", false);
    m.output_b = m.weight("output.bias", false);
    m.output = d.always_tied ? nullptr : m.weight("output.weight", d.tensors.output_required);
    m.tied_output = m.output == nullptr;
    if (m.tied_output) m.output = m.tok_embd;
    m.rope_freqs = m.weight("rope_freqs.weight", false);
    m.rope_long = m.weight("rope_factors_long.weight", false);
    m.rope_short = m.weight("rope_factors_short.weight", false);
    for (ggml_tensor * t : { m.rope_long, m.rope_short }) {
        if (t && (ggml_nelements(t) != hp.n_rot / 2 || t->type != GGML_TYPE_F32)) {
            fail(HONE_E_FORMAT, "%s: tensor '%s' is %s with %lld values: LongRoPE's factors are %d F32 values (rope.dimension_count / 2)",
                 m.path.c_str(), t->name, ggml_type_name(t->type), (long long) ggml_nelements(t), hp.n_rot / 2);
        }
    }
    if (d.embeddings_normed) {
        m.tok_norm = m.weight("token_embd_norm.weight", true);
        m.tok_norm_b = m.weight("token_embd_norm.bias", false);
    }
    if (d.positions == arch::Positions::LEARNED) m.pos_embd = m.weight("position_embd.weight", true);
    if (!m.tok_embd) m.tok_embd = m.output; // CodeShell without token_embd (its head is required)
    m.hp.n_vocab = (int) m.tok_embd->ne[1];
    const bool pre_norms = d.norms == arch::Norms::PRE || d.norms == arch::Norms::SANDWICH || d.norms == arch::Norms::PARALLEL;
    const bool post_norms = d.norms == arch::Norms::POST || d.norms == arch::Norms::SANDWICH;
    const bool qk_norms = d.qk_norm != arch::QkNorm::IF_PRESENT, whole = d.qk_norm == arch::QkNorm::WHOLE;
    m.layers.resize(hp.n_layer);
    for (int il = 0; il < hp.n_layer; il++) {
        LayerWeights & L = m.layers[il];
        L.attn_norm = pre_norms ? m.weight(blk(il, "attn_norm.weight"), true) : nullptr;
        L.attn_norm_b = pre_norms ? m.weight(blk(il, "attn_norm.bias"), false) : nullptr;
        // Falcon-40B normalises attention's input apart from the FFN's: a layout the graph has not
        if (m.weight(blk(il, "attn_norm_2.weight"), false)) fail(HONE_E_UNSUPPORTED, "%s: a second attention norm ('%s') cannot train yet", m.path.c_str(), blk(il, "attn_norm_2.weight").c_str());
        if (hp.recurrent(il)) {
            bind_delta_net(m, L, il);
        } else {
            L.wqkv = m.weight(blk(il, "attn_qkv.weight"), false);
            L.bqkv = m.weight(blk(il, "attn_qkv.bias"), false);
            L.wq = m.weight(blk(il, "attn_q.weight"), !L.wqkv);
            // layers that reuse an earlier layer's K and V (Gemma 4) have no K/V of their own to train
            const bool kv = hp.has_kv(il);
            L.wk = kv ? m.weight(blk(il, "attn_k.weight"), !L.wqkv) : nullptr;
            L.wv = kv ? m.weight(blk(il, "attn_v.weight"), !L.wqkv && !d.v_norm) : nullptr; // Gemma 4: V from K's projection without it
            if (L.wqkv && L.wq) fail(HONE_E_FORMAT, "%s: layer %d has both a fused attn_qkv and separate attn_q", m.path.c_str(), il);
            if (L.wqkv && whole) fail(HONE_E_UNSUPPORTED, "%s: a fused attn_qkv with whole-projection Q/K norms cannot train yet", m.path.c_str());
            L.wo = m.weight(blk(il, "attn_output.weight"), true);
            L.bq = m.weight(blk(il, "attn_q.bias"), false);
            L.bk = m.weight(blk(il, "attn_k.bias"), false);
            L.bv = m.weight(blk(il, "attn_v.bias"), false);
            L.bo = m.weight(blk(il, "attn_output.bias"), false);
            // weightless norms (Talkie) have a Q norm weight but none on K
            L.q_norm = m.weight(blk(il, "attn_q_norm.weight"), qk_norms);
            L.k_norm = kv ? m.weight(blk(il, "attn_k_norm.weight"), qk_norms && !weightless) : nullptr;
            if (d.q_gate && L.wq && L.wq->ne[1] != 2 * (int64_t) hp.head_dim * hp.n_head_l[il]) {
                fail(HONE_E_FORMAT, "%s: tensor '%s' has %lld rows, expected %lld (each head's Q and its output gate)", m.path.c_str(),
                     L.wq->name, (long long) L.wq->ne[1], 2 * (long long) hp.head_dim * hp.n_head_l[il]);
            }
        }
        const bool ffn_norm = pre_norms && d.norms != arch::Norms::PARALLEL;
        L.ffn_norm = ffn_norm ? m.weight(blk(il, d.tensors.ffn_norm.c_str()), !d.tensors.ffn_norm_optional) : nullptr;
        L.ffn_norm_b = ffn_norm ? m.weight(blk(il, arch::bias_of(d.tensors.ffn_norm).c_str()), false) : nullptr;
        const std::string & suffix = d.tensors.post_norm_suffix;
        if (d.tensors.grok_post_norms) { // llama.cpp's grok loader: layer_output_norm, else post_ffw_norm
            L.attn_post_norm = m.weight(blk(il, "attn_output_norm.weight"), true);
            L.ffn_post_norm = m.weight(blk(il, "layer_output_norm.weight"), false);
            if (!L.ffn_post_norm) L.ffn_post_norm = m.weight(blk(il, "post_ffw_norm.weight"), true);
        } else {
            L.attn_post_norm = post_norms ? m.weight(blk(il, "post_attention_norm") + suffix, true) : nullptr;
            L.ffn_post_norm = post_norms ? m.weight(blk(il, "post_ffw_norm") + suffix, true) : nullptr;
        }
        L.attn_sub_norm = m.weight(blk(il, "attn_sub_norm.weight"), false);
        L.ffn_sub_norm = m.weight(blk(il, "ffn_sub_norm.weight"), false);
        L.out_scale = d.embeddings_skip ? m.weight(blk(il, "layer_output_scale.weight"), true) : nullptr;
        L.attn_sinks = m.weight(blk(il, "attn_sinks.weight"), d.tensors.sinks_required);
        L.layer_scale = d.layer_output_scaled ? m.weight(blk(il, "layer_output_scale.weight"), false) : nullptr;
        // experts instead of the dense FFN, or (Gemma 4, Arctic) beside it in the layers with a router
        const bool beside = arch::beside_dense(d.moe);
        if (hp.moe_layer(il) && !beside) {
            bind_experts(m, L, il);
            continue;
        }
        // Arctic's and Grok's loaders require each layer's router
        const bool every_layer = d.moe == arch::Moe::SOFTMAX_NORM_PARALLEL_DENSE || d.moe == arch::Moe::SOFTMAX_NORM_OPTIONAL_DENSE;
        if (beside && hp.n_expert > 0 && m.weight(blk(il, "ffn_gate_inp.weight"), every_layer)) bind_experts(m, L, il);
        // Grok's dense FFN beside its experts is optional to its loader (Grok-1 has none)
        const bool dense_optional = d.moe == arch::Moe::SOFTMAX_NORM_OPTIONAL_DENSE && L.ffn_gate_inp;
        L.ffn_gate = m.weight(blk(il, "ffn_gate.weight"), false);
        L.ffn_up = m.weight(blk(il, "ffn_up.weight"), !dense_optional);
        if (!L.ffn_up) continue;
        L.b_gate = m.weight(blk(il, "ffn_gate.bias"), false);
        L.b_up = m.weight(blk(il, "ffn_up.bias"), false);
        L.b_down = m.weight(blk(il, "ffn_down.bias"), false);
        L.ffn_down = m.weight(blk(il, "ffn_down.weight"), true);
        if (L.ffn_up->ne[2] != 1) fail(HONE_E_UNSUPPORTED, "%s: mixture-of-experts layers cannot train yet", m.path.c_str());
        // No gate: relu^2 (Arcee) and GELU (Phi-2, StarCoder 2, GPT-NeoX) FFNs, or gate and up fused in one up of 2*n_ff rows (ChatGLM, GLM-4, Phi-3).
        const bool no_gate = !arch::has_gate(d.ffn);
        const bool fused_gate_up = !L.ffn_gate && !no_gate && L.ffn_up->ne[1] == 2 * (int64_t) L.ffn_down->ne[0];
        if (!L.ffn_gate && !no_gate && !fused_gate_up) m.weight(blk(il, "ffn_gate.weight"), true); // names the missing tensor
    }
    if (hp.n_embd_per_layer > 0) bind_per_layer_embeddings(m);
}

// CPU: wrap the read-only file mapping, no copy. GPU: one buffer, uploaded tensor by tensor.
// Seeks to a byte offset of a file of any size (fseek's long is 32 bits on Windows).
static bool seek_to(FILE * f, uint64_t offset) {
#ifdef _WIN32
    return _fseeki64(f, (__int64) offset, SEEK_SET) == 0;
#else
    return fseeko(f, (off_t) offset, SEEK_SET) == 0;
#endif
}

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
        FILE * f = ggml_fopen(m.path.c_str(), "rb"); // a UTF-8 path on every platform
        if (!f) fail(HONE_E_IO, "%s: cannot open for reading", m.path.c_str());
        std::vector<uint8_t> buf;
        for (int64_t i = 0; i < gguf_get_n_tensors(m.gguf); i++) {
            ggml_tensor * t = ggml_get_tensor(m.ctx_w, gguf_get_tensor_name(m.gguf, i));
            buf.resize(ggml_nbytes(t));
            if (!seek_to(f, data_off + gguf_get_tensor_offset(m.gguf, i)) || fread(buf.data(), 1, buf.size(), f) != buf.size()) {
                fclose(f);
                fail(HONE_E_IO, "%s: short read of tensor '%s'", m.path.c_str(), t->name);
            }
            ggml_backend_tensor_set(t, buf.data(), 0, buf.size());
        }
        fclose(f);
    }
    ggml_backend_buffer_set_usage(m.buf_w, GGML_BACKEND_BUFFER_USAGE_WEIGHTS);
}

// llama.cpp asserts (and aborts the process) on a vocabulary that lists a token twice, as a
// damaged file does: refused here with what repeats, before llama.cpp reads it.
static void check_vocab_tokens(const hone_model & m) {
    const int64_t k = gguf_find_key(m.gguf, "tokenizer.ggml.tokens");
    if (k < 0) return; // llama.cpp names what is missing
    if (gguf_get_kv_type(m.gguf, k) != GGUF_TYPE_ARRAY || gguf_get_arr_type(m.gguf, k) != GGUF_TYPE_STRING) {
        fail(HONE_E_FORMAT, "%s: tokenizer.ggml.tokens is not a list of strings", m.path.c_str());
    }
    const size_t n = gguf_get_arr_n(m.gguf, k);
    std::unordered_map<std::string, size_t> seen;
    seen.reserve(n);
    for (size_t i = 0; i < n; i++) {
        const auto [at, fresh] = seen.emplace(gguf_get_arr_str(m.gguf, k, i), i);
        if (!fresh) {
            fail(HONE_E_FORMAT, "%s: the vocabulary is damaged: token %zu repeats token %zu (tokenizer.ggml.tokens)", m.path.c_str(), i, at->second);
        }
    }
}

static void load_vocab(hone_model & m) {
    check_vocab_tokens(m);
    llama_model_params p = llama_model_default_params();
    p.vocab_only = true;
    p.use_extra_bufts = false;
    ensure_backends();
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
