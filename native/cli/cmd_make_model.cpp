// `hone-train make-model`: a synthetic model of a real shape (random weights, a real
// tokenizer copied from a vocab GGUF) in the layout of a trainable architecture's description
// (norms, Q/K norms, biases, fused projections), written as F32/F16 or quantized block by
// block in parallel, streamed to disk so a multi-GB model never sits in memory whole.
#include "args.h"
#include "commands.h"
#include "hone_json.h"

#include "hone_arch.h"

#include "ggml.h"
#include "gguf.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Spec {
    std::string arch;
    const hone::arch::Desc * desc; // the layout written: the architecture's description
    int n_embd, n_layer, n_head, n_kv, n_ff, head_dim, n_vocab, ctx;
    int n_expert, n_expert_used, n_ff_exp; // mixture-of-experts descriptions only
    int n_ff_shexp; // an ungated shared expert's width (Moe::SOFTMAX_NORM_FF; 0: none)
    int ssm_conv, ssm_state, ssm_groups, ssm_heads; // gated delta-net layers (arch::Desc::delta_net) only
    bool tied;
    bool ffn_biases; // --ffn-biases: gate/up/down biases, optional tensors llama's loader reads
    int longrope_orig; // --longrope: LongRoPE's short and long factors past this original context (0: none)
    std::string type;
    uint64_t seed;
    int threads;
};

struct TensorPlan {
    std::string name;
    int64_t ne0, ne1;
    ggml_type type;
    float init_std; // 0: constant init_value (norm weights: 1)
    int64_t ne2 = 1; // experts
    float init_value = 1.0f;
};

// llama-quantize's Q4_K_M rule: attn_v and ffn_down get Q6_K in the first and last eighth of
// the layers and every third layer between; the output head gets Q6_K; the rest Q4_K.
bool more_bits(int il, int n) { return il < n / 8 || il >= 7 * n / 8 || (il - n / 8) % 3 == 2; }

ggml_type weight_type(const Spec & s, const std::string & what, int il) {
    if (s.type == "f32") return GGML_TYPE_F32;
    if (s.type == "f16") return GGML_TYPE_F16;
    if (s.type == "q8_0") return GGML_TYPE_Q8_0;
    if (what == "output") return GGML_TYPE_Q6_K;
    if ((what == "attn_v" || what == "ffn_down") && more_bits(il, s.n_layer)) return GGML_TYPE_Q6_K;
    return GGML_TYPE_Q4_K;
}

// A row length the block size does not divide falls back to Q8_0, then F16 (as llama-quantize does).
ggml_type fit_type(ggml_type t, int64_t ne0) {
    if (ne0 % ggml_blck_size(t) == 0) return t;
    if (ne0 % ggml_blck_size(GGML_TYPE_Q8_0) == 0) return GGML_TYPE_Q8_0;
    return GGML_TYPE_F16;
}

std::vector<TensorPlan> plan(const Spec & s) {
    std::vector<TensorPlan> t;
    const int q = s.n_head * s.head_dim, kv = s.n_kv * s.head_dim;
    const float sd = 0.02f;
    auto w = [&](const std::string & name, const std::string & what, int il, int64_t ne0, int64_t ne1) {
        t.push_back({ name, ne0, ne1, fit_type(weight_type(s, what, il), ne0), sd });
    };
    auto v = [&](const std::string & name, int64_t ne0, float std) { t.push_back({ name, ne0, 1, GGML_TYPE_F32, std }); };
    w("token_embd.weight", "token_embd", 0, s.n_embd, s.n_vocab);
    v("output_norm.weight", s.n_embd, 0.0f);
    if (s.desc->norm_kind == hone::arch::NormKind::LAYER) v("output_norm.bias", s.n_embd, sd);
    if ((!s.tied || s.desc->tensors.output_required) && !s.desc->always_tied) w("output.weight", "output", 0, s.n_embd, s.n_vocab);
    if (s.desc->tensors.output_bias) v("output.bias", s.n_vocab, sd);
    if (s.longrope_orig > 0) {
        // LongRoPE's factors (Phi-3 128k): constants of the releases' order, the long set larger
        t.push_back({ "rope_factors_short.weight", s.head_dim / 2, 1, GGML_TYPE_F32, 0.0f, 1, 1.5f });
        t.push_back({ "rope_factors_long.weight", s.head_dim / 2, 1, GGML_TYPE_F32, 0.0f, 1, 6.0f });
    }
    using namespace hone::arch;
    const Desc & d = *s.desc;
    const bool pre = d.norms != Norms::POST, post = d.norms == Norms::POST || d.norms == Norms::SANDWICH;
    const bool whole = d.qk_norm == QkNorm::WHOLE;
    if (d.embeddings_normed) {
        v("token_embd_norm.weight", s.n_embd, 0.0f);
        v("token_embd_norm.bias", s.n_embd, sd);
    }
    if (d.positions == Positions::LEARNED) w("position_embd.weight", "position_embd", 0, s.n_embd, s.ctx);
    for (int il = 0; il < s.n_layer; il++) {
        auto n = [&](const std::string & x) { return "blk." + std::to_string(il) + "." + x; };
        const bool layer_norm = d.norm_kind == NormKind::LAYER; // LayerNorms have biases
        if (pre) v(n("attn_norm.weight"), s.n_embd, 0.0f);
        if (pre && layer_norm) v(n("attn_norm.bias"), s.n_embd, sd);
        const bool recurrent = d.delta_net && (il + 1) % FULL_ATTENTION_INTERVAL != 0;
        if (recurrent) {
            // a gated delta-net layer (all but every FULL_ATTENTION_INTERVAL-th): Q, K, V in
            // one projection, the output gate, the convolution (F32, as llama-quantize leaves it),
            // a decay of e^(-softplus(alpha - 4)) per token (A = -1, dt bias -4: a long memory)
            const int64_t inner = (int64_t) s.ssm_heads * s.ssm_state, channels = 2 * (int64_t) s.ssm_groups * s.ssm_state + inner;
            w(n("attn_qkv.weight"), "attn_qkv", il, s.n_embd, channels);
            w(n("attn_gate.weight"), "attn_gate", il, s.n_embd, inner);
            t.push_back({ n("ssm_conv1d.weight"), s.ssm_conv, channels, GGML_TYPE_F32, 0.3f });
            t.push_back({ n("ssm_dt.bias"), s.ssm_heads, 1, GGML_TYPE_F32, 0.0f, 1, -4.0f });
            t.push_back({ n("ssm_a"), s.ssm_heads, 1, GGML_TYPE_F32, 0.0f, 1, -1.0f });
            w(n("ssm_beta.weight"), "ssm_beta", il, s.n_embd, s.ssm_heads);
            w(n("ssm_alpha.weight"), "ssm_alpha", il, s.n_embd, s.ssm_heads);
            v(n("ssm_norm.weight"), s.ssm_state, 0.0f);
            w(n("ssm_out.weight"), "ssm_out", il, inner, s.n_embd);
        } else if (d.q_gate) { // each head's Q and its output gate, then K, V and the output
            w(n("attn_q.weight"), "attn_q", il, s.n_embd, 2 * q);
            w(n("attn_k.weight"), "attn_k", il, s.n_embd, kv);
            w(n("attn_v.weight"), "attn_v", il, s.n_embd, kv);
        } else if (d.tensors.fused_qkv) {
            w(n("attn_qkv.weight"), "attn_qkv", il, s.n_embd, q + 2 * kv);
            if (d.tensors.qkv_bias) v(n("attn_qkv.bias"), q + 2 * kv, sd);
        } else {
            w(n("attn_q.weight"), "attn_q", il, s.n_embd, q);
            w(n("attn_k.weight"), "attn_k", il, s.n_embd, kv);
            w(n("attn_v.weight"), "attn_v", il, s.n_embd, kv);
            if (d.tensors.qkv_bias) {
                v(n("attn_q.bias"), q, sd);
                v(n("attn_k.bias"), kv, sd);
                v(n("attn_v.bias"), kv, sd);
            }
        }
        if (!recurrent) w(n("attn_output.weight"), "attn_output", il, q, s.n_embd);
        if (d.tensors.out_bias) v(n("attn_output.bias"), s.n_embd, sd);
        if (d.tensors.sinks_required) v(n("attn_sinks.weight"), s.n_head, 0.5f); // sink logits of the order of the scores
        if (!recurrent && d.qk_norm != QkNorm::IF_PRESENT) {
            v(n("attn_q_norm.weight"), whole ? q : s.head_dim, 0.0f);
            v(n("attn_k_norm.weight"), whole ? kv : s.head_dim, 0.0f);
        }
        if (post) {
            v(n("post_attention_norm" + d.tensors.post_norm_suffix), s.n_embd, 0.0f);
            v(n("post_ffw_norm" + d.tensors.post_norm_suffix), s.n_embd, 0.0f);
        }
        if (pre && d.norms != Norms::PARALLEL) {
            v(n(d.tensors.ffn_norm), s.n_embd, 0.0f);
            if (layer_norm) v(n(bias_of(d.tensors.ffn_norm)), s.n_embd, sd);
        }
        if (s.n_expert > 0) {
            // the router stays F32, as llama-quantize leaves ffn_gate_inp; experts quantize as the FFN does
            t.push_back({ n("ffn_gate_inp.weight"), s.n_embd, s.n_expert, GGML_TYPE_F32, sd });
            auto e = [&](const std::string & name, const std::string & what, int64_t ne0, int64_t ne1) {
                t.push_back({ name, ne0, ne1, fit_type(weight_type(s, what, il), ne0), sd, s.n_expert });
            };
            e(n("ffn_gate_exps.weight"), "ffn_gate", s.n_embd, s.n_ff_exp);
            e(n("ffn_up_exps.weight"), "ffn_up", s.n_embd, s.n_ff_exp);
            e(n("ffn_down_exps.weight"), "ffn_down", s.n_ff_exp, s.n_embd);
            if (d.moe == Moe::SOFTMAX_WEIGHT_OAI) { // gpt-oss: biases on the router and every expert (F32)
                v(n("ffn_gate_inp.bias"), s.n_expert, sd);
                t.push_back({ n("ffn_gate_exps.bias"), s.n_ff_exp, s.n_expert, GGML_TYPE_F32, sd });
                t.push_back({ n("ffn_up_exps.bias"), s.n_ff_exp, s.n_expert, GGML_TYPE_F32, sd });
                t.push_back({ n("ffn_down_exps.bias"), s.n_embd, s.n_expert, GGML_TYPE_F32, sd });
            }
            // a shared expert: gated, of --ff width, with its gate vector; or ungated, of --shared-ff
            // width (Granite MoE Shared)
            const bool gated = hone::arch::has_shared_expert(d.moe);
            const int shared_ff = gated ? s.n_ff : s.n_ff_shexp;
            if (gated) v(n("ffn_gate_inp_shexp.weight"), s.n_embd, sd);
            if (shared_ff > 0) {
                w(n("ffn_gate_shexp.weight"), "ffn_gate", il, s.n_embd, shared_ff);
                w(n("ffn_up_shexp.weight"), "ffn_up", il, s.n_embd, shared_ff);
                w(n("ffn_down_shexp.weight"), "ffn_down", il, shared_ff, s.n_embd);
            }
            continue;
        }
        if (d.tensors.fused_gate_up) {
            w(n("ffn_up.weight"), "ffn_up", il, s.n_embd, 2 * s.n_ff); // gate and up in one
        } else {
            if (has_gate(d.ffn)) w(n("ffn_gate.weight"), "ffn_gate", il, s.n_embd, s.n_ff);
            w(n("ffn_up.weight"), "ffn_up", il, s.n_embd, s.n_ff);
        }
        w(n("ffn_down.weight"), "ffn_down", il, s.n_ff, s.n_embd);
        if (s.ffn_biases || d.tensors.ffn_bias) {
            if (!d.tensors.fused_gate_up && has_gate(d.ffn)) v(n("ffn_gate.bias"), s.n_ff, sd);
            v(n("ffn_up.bias"), d.tensors.fused_gate_up ? 2 * s.n_ff : s.n_ff, sd);
            v(n("ffn_down.bias"), s.n_embd, sd);
        }
    }
    return t;
}

// Random rows (uniform with the given std) quantized in parallel into `out`.
void fill_tensor(const TensorPlan & tp, uint64_t seed, int threads, std::vector<uint8_t> & out) {
    const size_t row_bytes = ggml_row_size(tp.type, tp.ne0);
    const int64_t n_rows = tp.ne1 * tp.ne2;
    out.resize(row_bytes * n_rows);
    const int64_t n_threads = std::max<int64_t>(1, std::min<int64_t>(threads, n_rows));
    std::vector<std::thread> pool;
    for (int64_t t = 0; t < n_threads; t++) {
        pool.emplace_back([&, t] {
            const int64_t r0 = n_rows * t / n_threads, r1 = n_rows * (t + 1) / n_threads;
            std::mt19937_64 rng(seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t) (t + 1)));
            const float a = tp.init_std * 1.7320508f; // uniform(-a, a) has std a/sqrt(3)
            std::uniform_real_distribution<float> u(-a, a);
            const int64_t chunk = 64;
            std::vector<float> rows((size_t) chunk * tp.ne0);
            for (int64_t r = r0; r < r1; r += chunk) {
                const int64_t nr = std::min(chunk, r1 - r);
                for (int64_t i = 0; i < nr * tp.ne0; i++) rows[i] = tp.init_std == 0.0f ? tp.init_value : u(rng);
                uint8_t * dst = out.data() + (size_t) r * row_bytes;
                if (tp.type == GGML_TYPE_F32) memcpy(dst, rows.data(), (size_t) nr * tp.ne0 * sizeof(float));
                else if (tp.type == GGML_TYPE_F16) ggml_fp32_to_fp16_row(rows.data(), (ggml_fp16_t *) dst, nr * tp.ne0);
                else ggml_quantize_chunk(tp.type, rows.data(), dst, 0, nr, tp.ne0, nullptr);
            }
        });
    }
    for (auto & th : pool) th.join();
}

bool needs_key(const hone::arch::Desc & d, const std::string & key) {
    for (const hone::arch::RequiredKey & k : d.required_keys) if (k.name == key) return true;
    return false;
}

// Why make-model cannot write an architecture's layout ("" when it can): tensors or keys of
// its own that a synthetic model of llama's shape does not have.
std::string cannot_write(const hone::arch::Desc & d) {
    if (d.embeddings_skip || d.norms == hone::arch::Norms::WEIGHTLESS) return "weightless norms and embedding skips";
    if (d.window.layout == hone::arch::Windows::PATTERN) return "per-layer window patterns";
    if (hone::arch::beside_dense(d.moe)) return "a dense FFN beside its experts";
    for (const hone::arch::RequiredKey & k : d.required_keys) {
        const bool experts = d.moe != hone::arch::Moe::NONE && (k.name == "expert_count" || k.name == "expert_used_count" || k.name == "expert_feed_forward_length");
        const bool window = k.name == "attention.sliding_window" && d.window.layout == hone::arch::Windows::PERIODIC; // written: --kv or 4
        const bool ssm = d.delta_net && k.name.rfind("ssm.", 0) == 0;
        const bool written = experts || window || ssm || k.name == "rope.dimension_sections" || k.type == hone::arch::KeyType::BOOL ||
                             (k.name == "logit_scale" && d.scales == hone::arch::Scales::GRANITE);
        if (!written) return "the key " + k.name;
    }
    return "";
}

int file_type(const std::string & t) {
    if (t == "f32") return 0;
    if (t == "f16") return 1;
    if (t == "q8_0") return 7;
    return 15; // LLAMA_FTYPE_MOSTLY_Q4_K_M
}

} // namespace

int cmd_make_model(int argc, char ** argv) {
    Args a(argc, argv, 2, { "arch", "embd", "layers", "heads", "kv-heads", "ff", "head-dim", "vocab-from", "type", "out", "ctx", "seed", "threads",
             "chat-template-file", "kv", "experts", "experts-used", "expert-ff", "shared-ff", "rope-yarn", "longrope", "ssm-conv", "ssm-state", "ssm-groups", "ssm-heads" },
           { "tied", "json", "ffn-biases" });
    const bool json = a.flag("json");
    Spec s;
    s.arch = a.str("arch", "llama");
    s.desc = hone::arch::find(s.arch);
    if (!s.desc) {
        std::string names;
        for (const hone::arch::Desc & d : hone::arch::all()) names += (names.empty() ? "" : ", ") + d.name;
        throw UsageError("--arch must be a trainable architecture (" + names + "), not '" + s.arch + "'");
    }
    const std::string unwritable = cannot_write(*s.desc);
    if (!unwritable.empty()) throw UsageError("make-model cannot write " + s.arch + " (" + unwritable + "): make one with probe-arch");
    s.n_embd = (int) a.integer("embd", 256);
    s.n_layer = (int) a.integer("layers", 2);
    s.n_head = (int) a.integer("heads", 4);
    s.n_kv = (int) a.integer("kv-heads", s.n_head);
    s.n_ff = (int) a.integer("ff", 4 * s.n_embd);
    s.head_dim = (int) a.integer("head-dim", s.n_head > 0 ? s.n_embd / s.n_head : 0);
    s.ctx = (int) a.integer("ctx", 4096);
    s.tied = a.flag("tied");
    s.ffn_biases = a.flag("ffn-biases");
    // --longrope ORIGINAL_CONTEXT: LongRoPE's factors as Phi-3 128k, Phi-3.5 and Phi-4-mini carry them
    s.longrope_orig = (int) a.integer("longrope", 0);
    if (s.longrope_orig < 0 || (s.longrope_orig > 0 && a.has("rope-yarn"))) throw UsageError("--longrope takes a positive original context, and not with --rope-yarn");
    s.type = a.str("type", "f32");
    s.seed = (uint64_t) a.integer("seed", 1);
    s.threads = (int) a.integer("threads", std::max(1u, std::thread::hardware_concurrency()));
    if (s.type != "f32" && s.type != "f16" && s.type != "q8_0" && s.type != "q4_k_m") throw UsageError("--type must be f32, f16, q8_0 or q4_k_m");
    if (s.n_embd <= 0 || s.n_layer <= 0 || s.n_head <= 0 || s.n_kv <= 0 || s.n_ff <= 0 || s.head_dim <= 0 || s.n_head % s.n_kv) {
        throw UsageError("shape must be positive and heads a multiple of kv-heads");
    }
    // experts: always for a mixture-of-experts architecture, on request where the file decides (Mixtral's llama)
    const bool moe = s.desc->moe != hone::arch::Moe::NONE && (!s.desc->experts_optional || a.has("experts"));
    s.n_expert = moe ? (int) a.integer("experts", 8) : 0;
    s.n_expert_used = moe ? (int) a.integer("experts-used", 2) : 0;
    s.n_ff_exp = moe ? (int) a.integer("expert-ff", s.n_ff / std::max(1, s.n_expert_used)) : 0;
    const bool ff_experts = s.desc->moe == hone::arch::Moe::SOFTMAX_NORM_FF;
    if (ff_experts && a.has("expert-ff")) throw UsageError(s.arch + "'s experts are --ff wide, as llama.cpp loads them: --expert-ff does not apply");
    if (moe && ff_experts) s.n_ff_exp = s.n_ff;
    const bool shared_ff = moe && s.desc->shared_ff_key;
    // Hunyuan-MoE's loader requires its shared expert: --ff wide unless --shared-ff says
    const bool shared_always = shared_ff && s.desc->shared_ff_always;
    s.n_ff_shexp = shared_ff ? (int) a.integer("shared-ff", shared_always ? s.n_ff : 0) : 0;
    if (!shared_ff && a.has("shared-ff")) throw UsageError("--shared-ff (an ungated shared expert) applies to granitemoe, hunyuan-moe and granite with --experts only");
    if (s.n_ff_shexp < 0 || (shared_always && s.n_ff_shexp == 0)) {
        throw UsageError(shared_always ? "--shared-ff must be positive: " + s.arch + " always has a shared expert" : "--shared-ff must be 0 (none) or positive");
    }
    if (!moe && (a.has("experts") || a.has("experts-used") || a.has("expert-ff"))) {
        throw UsageError(s.arch + (s.desc->experts_optional ? " has experts only with --experts" : " has no experts") +
                         ": --experts, --experts-used and --expert-ff apply to mixture-of-experts models");
    }
    if (moe && (s.n_expert <= 0 || s.n_expert_used <= 0 || s.n_expert_used > s.n_expert || s.n_ff_exp <= 0)) {
        throw UsageError("--experts and --expert-ff must be positive and --experts-used between 1 and --experts");
    }
    const bool dn = s.desc->delta_net;
    s.ssm_conv = dn ? (int) a.integer("ssm-conv", 4) : 0;
    s.ssm_state = dn ? (int) a.integer("ssm-state", s.head_dim) : 0;
    s.ssm_groups = dn ? (int) a.integer("ssm-groups", s.n_kv) : 0;
    s.ssm_heads = dn ? (int) a.integer("ssm-heads", s.n_head) : 0;
    if (!dn && (a.has("ssm-conv") || a.has("ssm-state") || a.has("ssm-groups") || a.has("ssm-heads"))) {
        throw UsageError(s.arch + " has no delta-net layers: --ssm-conv, --ssm-state, --ssm-groups and --ssm-heads apply to qwen35 and qwen35moe");
    }
    if (dn && (s.ssm_conv < 1 || s.ssm_state <= 0 || s.ssm_groups <= 0 || s.ssm_heads <= 0 || s.ssm_heads % s.ssm_groups)) {
        throw UsageError("--ssm-conv, --ssm-state, --ssm-groups and --ssm-heads must be positive and --ssm-heads a multiple of --ssm-groups");
    }
    if (s.desc->qkv_thirds && s.n_kv != s.n_head) throw UsageError(s.arch + " splits its fused Q/K/V in thirds: --kv-heads must equal --heads");
    if (s.head_dim % 2) throw UsageError("--head-dim must be even (RoPE rotates pairs)");
    const std::string vocab_path = a.required("vocab-from"), out = a.required("out");

    gguf_context * vocab = gguf_init_from_file(vocab_path.c_str(), { true, nullptr });
    if (!vocab) return report_error(json, "bad_vocab", vocab_path + ": not a readable GGUF vocab file");
    const int64_t tok_key = gguf_find_key(vocab, "tokenizer.ggml.tokens");
    if (tok_key < 0) { gguf_free(vocab); return report_error(json, "bad_vocab", vocab_path + ": has no tokenizer.ggml.tokens"); }
    s.n_vocab = (int) gguf_get_arr_n(vocab, tok_key);

    gguf_context * g = gguf_init_empty();
    gguf_set_kv(g, vocab);
    gguf_free(vocab);
    for (int64_t i = gguf_get_n_kv(g) - 1; i >= 0; i--) {
        const std::string k = gguf_get_key(g, i);
        if (k.rfind("tokenizer.", 0) != 0) gguf_remove_key(g, k.c_str());
    }
    if (a.has("chat-template-file")) {
        // A real template on a synthetic model: tests of chat rendering against many templates.
        FILE * tf = fopen(a.str("chat-template-file").c_str(), "rb");
        if (!tf) { gguf_free(g); return report_error(json, "io_error", a.str("chat-template-file") + ": cannot read"); }
        std::string tmpl;
        char buf[4096];
        for (size_t n; (n = fread(buf, 1, sizeof(buf), tf)) > 0;) tmpl.append(buf, n);
        fclose(tf);
        gguf_set_val_str(g, "tokenizer.chat_template", tmpl.c_str());
    }
    const std::string A = s.arch + ".";
    gguf_set_val_str(g, "general.architecture", s.arch.c_str());
    gguf_set_val_str(g, "general.name", ("hone-synthetic-" + s.arch + "-" + std::to_string(s.n_embd) + "x" + std::to_string(s.n_layer)).c_str());
    gguf_set_val_u32(g, "general.file_type", file_type(s.type));
    gguf_set_val_u32(g, (A + "block_count").c_str(), s.n_layer);
    gguf_set_val_u32(g, (A + "context_length").c_str(), s.ctx);
    gguf_set_val_u32(g, (A + "embedding_length").c_str(), s.n_embd);
    gguf_set_val_u32(g, (A + "feed_forward_length").c_str(), s.n_ff);
    gguf_set_val_u32(g, (A + "attention.head_count").c_str(), s.n_head);
    gguf_set_val_u32(g, (A + "attention.head_count_kv").c_str(), s.n_kv);
    gguf_set_val_u32(g, (A + "attention.key_length").c_str(), s.head_dim);
    gguf_set_val_u32(g, (A + "attention.value_length").c_str(), s.head_dim);
    gguf_set_val_u32(g, (A + "rope.dimension_count").c_str(), s.head_dim);
    if (moe) {
        gguf_set_val_u32(g, (A + "expert_count").c_str(), s.n_expert);
        gguf_set_val_u32(g, (A + "expert_used_count").c_str(), s.n_expert_used);
        gguf_set_val_u32(g, (A + "expert_feed_forward_length").c_str(), s.n_ff_exp);
        if (s.n_ff_shexp > 0) gguf_set_val_u32(g, (A + "expert_shared_feed_forward_length").c_str(), s.n_ff_shexp);
    }
    if (s.desc->delta_net) {
        gguf_set_val_u32(g, (A + "ssm.conv_kernel").c_str(), s.ssm_conv);
        gguf_set_val_u32(g, (A + "ssm.state_size").c_str(), s.ssm_state);
        gguf_set_val_u32(g, (A + "ssm.group_count").c_str(), s.ssm_groups);
        gguf_set_val_u32(g, (A + "ssm.time_step_rank").c_str(), s.ssm_heads);
        gguf_set_val_u32(g, (A + "ssm.inner_size").c_str(), s.ssm_heads * s.ssm_state);
        gguf_set_val_u32(g, (A + "full_attention_interval").c_str(), hone::arch::FULL_ATTENTION_INTERVAL);
    }
    if (needs_key(*s.desc, "rope.dimension_sections")) {
        // M-RoPE sections in Qwen2-VL's proportions (head_dim 128: 16, 24, 24, 0)
        const int half = s.head_dim / 2, s1 = half * 3 / 8;
        const int32_t sections[4] = { half - 2 * s1, s1, s1, 0 };
        gguf_set_arr_data(g, (A + "rope.dimension_sections").c_str(), GGUF_TYPE_INT32, sections, 4);
    }
    // --kv name=value[,name=value]: extra keys under the architecture's prefix, unsigned or (with
    // a decimal point) F32, for files a loader must refuse (e.g. nanbeige's num_loops) or read.
    for (const KvItem & kv : split_kv_list(a.str("kv", ""))) {
        const bool decimal = std::count(kv.value.begin(), kv.value.end(), '.') == 1;
        if (kv.name.empty() || kv.value.empty() || kv.value == "." || kv.value.find_first_not_of(decimal ? "0123456789." : "0123456789") != std::string::npos) {
            gguf_free(g);
            throw UsageError("--kv takes name=value[,name=value] with unsigned or decimal values, got '" + kv.item + "'");
        }
        if (decimal) gguf_set_val_f32(g, (A + kv.name).c_str(), std::stof(kv.value));
        else gguf_set_val_u32(g, (A + kv.name).c_str(), (uint32_t) std::stoul(kv.value));
    }
    for (const hone::arch::RequiredKey & k : s.desc->required_keys) {
        if (k.type == hone::arch::KeyType::BOOL) gguf_set_val_bool(g, (A + k.name).c_str(), true); // e.g. GPT-NeoX's parallel residual
        // a window the file must have (gpt-oss): 4 positions unless --kv gave one
        if (k.name == "attention.sliding_window" && gguf_find_key(g, (A + k.name).c_str()) < 0) gguf_set_val_u32(g, (A + k.name).c_str(), 4);
    }
    gguf_set_val_f32(g, (A + "rope.freq_base").c_str(), s.desc->typical_rope_base);
    // --rope-yarn FACTOR:ORIGINAL_CONTEXT[:ATTN_FACTOR]: YaRN scaling keys, as converted long-context releases carry them
    if (a.has("rope-yarn")) {
        float factor = 0.0f, attn = 1.0f;
        unsigned orig = 0;
        const int n = sscanf(a.str("rope-yarn").c_str(), "%f:%u:%f", &factor, &orig, &attn);
        if (n < 2 || factor <= 1.0f || orig == 0 || attn <= 0.0f) {
            gguf_free(g);
            throw UsageError("--rope-yarn takes FACTOR:ORIGINAL_CONTEXT[:ATTN_FACTOR] with FACTOR > 1, got '" + a.str("rope-yarn") + "'");
        }
        gguf_set_val_str(g, (A + "rope.scaling.type").c_str(), "yarn");
        gguf_set_val_f32(g, (A + "rope.scaling.factor").c_str(), factor);
        gguf_set_val_u32(g, (A + "rope.scaling.original_context_length").c_str(), orig);
        if (n == 3) gguf_set_val_f32(g, (A + "rope.scaling.attn_factor").c_str(), attn);
    }
    if (s.longrope_orig > 0) { // LongRoPE: the original context and the rotated values' magnitude factor
        gguf_set_val_u32(g, (A + "rope.scaling.original_context_length").c_str(), (uint32_t) s.longrope_orig);
        gguf_set_val_f32(g, (A + "rope.scaling.attn_factor").c_str(), 1.19f);
    }
    gguf_set_val_f32(g, (A + hone::arch::norm_eps_key(s.desc->norm_kind)).c_str(), s.desc->typical_norm_eps);
    if (s.desc->scales == hone::arch::Scales::GRANITE) {
        // Granite stores its scales (llama.cpp requires logit_scale): values of the real models' order.
        gguf_set_val_f32(g, (A + "logit_scale").c_str(), 8.0f);
        gguf_set_val_f32(g, (A + "residual_scale").c_str(), 0.22f);
        gguf_set_val_f32(g, (A + "embedding_scale").c_str(), 12.0f);
        gguf_set_val_f32(g, (A + "attention.scale").c_str(), 0.0078125f);
    }

    const std::vector<TensorPlan> tensors = plan(s);
    ggml_context * meta = ggml_init({ ggml_tensor_overhead() * (tensors.size() + 1), nullptr, true });
    for (auto & tp : tensors) {
        ggml_tensor * t = tp.ne2 > 1 ? ggml_new_tensor_3d(meta, tp.type, tp.ne0, tp.ne1, tp.ne2)
                        : tp.ne1 == 1 ? ggml_new_tensor_1d(meta, tp.type, tp.ne0) : ggml_new_tensor_2d(meta, tp.type, tp.ne0, tp.ne1);
        ggml_set_name(t, tp.name.c_str());
        gguf_add_tensor(g, t);
    }
    const std::string tmp = out + ".tmp";
    bool ok = gguf_write_to_file(g, tmp.c_str(), /*only_meta =*/ true);
    const size_t align = gguf_get_alignment(g);
    FILE * f = ok ? fopen(tmp.c_str(), "ab") : nullptr;
    std::vector<uint8_t> data;
    int64_t n_params = 0;
    for (size_t i = 0; f && i < tensors.size(); i++) {
        fill_tensor(tensors[i], s.seed * 7919 + i, s.threads, data);
        n_params += tensors[i].ne0 * tensors[i].ne1 * tensors[i].ne2;
        const size_t pad = GGML_PAD(data.size(), align) - data.size();
        data.insert(data.end(), pad, 0);
        if (fwrite(data.data(), 1, data.size(), f) != data.size()) ok = false;
    }
    if (f && fclose(f) != 0) ok = false;
    gguf_free(g);
    ggml_free(meta);
    if (!f || !ok || rename(tmp.c_str(), out.c_str()) != 0) {
        remove(tmp.c_str());
        return report_error(json, "io_error", out + ": cannot write the model (disk full or no permission?)");
    }
    const std::string summary = JsonObject().str("type", "model").str("path", out).str("arch", s.arch).str("quant", s.type)
        .integer("n_params", n_params).integer("n_vocab", s.n_vocab).dump();
    if (json) printf("%s\n", summary.c_str());
    else fprintf(stderr, "wrote %s (%s, %lld parameters, vocab %d, %s)\n", out.c_str(), s.arch.c_str(), (long long) n_params, s.n_vocab, s.type.c_str());
    return 0;
}
