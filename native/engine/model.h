// The frozen base model: hyperparameters, resident weights (never dequantized, never
// written) and the tokenizer. Weights are read straight from the GGUF: memory-mapped on the
// CPU, uploaded once to a GPU backend. CPU repacking is never used, so every weight stays
// in a plain buffer that OUT_PROD (the backward of MUL_MAT) can read.
#pragma once

#include "hone_arch.h"
#include "gguf_file.h"
#include "hone.h"

#include "ggml-backend.h"
#include "ggml.h"

#include <memory>
#include <string>
#include <vector>

struct llama_model;

namespace hone {

struct Hparams {
    const arch::Desc * desc = nullptr; // what the architecture is (arch/arch.h)
    std::string arch_name;
    int n_layer = 0, n_embd = 0, n_ff = 0, n_head = 0, n_head_kv = 0, head_dim = 0, n_rot = 0;
    // block_count: n_layer plus the multi-token-prediction blocks (nextn_predict_layers) after
    // them, which llama.cpp's main pass skips; per-layer arrays have this many entries
    int n_layer_all = 0;
    int n_vocab = 0, n_ctx_train = 0;
    // Per layer (OpenELM's counts vary by layer; elsewhere every entry is n_head, n_head_kv, n_ff).
    std::vector<int> n_head_l, n_head_kv_l, n_ff_l;
    int rope_type = 0;            // GGML_ROPE_TYPE_NORMAL, _NEOX, _MROPE or _IMROPE; -1: no RoPE
    float alibi_max_bias = 0.0f;  // > 0: ALiBi (Refact, Baichuan 13B): slopes from this, distances in the mask
    int rope_sections[4] = { 0, 0, 0, 0 }; // M-RoPE: rotary dims per position section (Qwen2-VL, Qwen3-VL)
    // M-RoPE reads 4 positions per token (text: t, t, t, 0, as llama.cpp feeds them).
    int n_pos_per_token() const { return rope_type >= 0 && rope_type & GGML_ROPE_TYPE_MROPE ? 4 : 1; } // IMROPE has the bit too
    bool has_rope() const { return rope_type >= 0; }
    // Granite-style scales (MiniCPM, Granite); 0 = not used.
    float embedding_scale = 0.0f;  // token embeddings times this
    float residual_scale = 0.0f;   // attention and FFN outputs times this before each residual add
    float logit_scale = 0.0f;      // logits divided by this
    float attention_scale = 0.0f;  // KQ scale instead of 1/sqrt(head_dim)
    // Per layer, as llama.cpp sets them: RoPE or none (SmolLM3's NoPE layers, EXAONE 4 32B's
    // global layers), its base and scale (sliding-window layers may differ).
    std::vector<char> rope_l;
    std::vector<float> rope_base_l, rope_scale_l;
    std::vector<float> rope_ext_l, rope_attn_l; // YaRN's ext_factor and the attention factor (OLMo 3's windowed layers: 0 and 1)
    // Sliding-window attention (OLMo 3, EXAONE 4 32B, PLaMo 3): layers with swa_l set attend to
    // the last n_swa positions (their own included) only.
    int n_swa = 0;
    std::vector<char> swa_l;
    float q_scale = 0.0f;            // Q times this after RoPE, and the KQ scale 1 (0: not used)
    float final_softcap = 0.0f;      // logits = cap * tanh(logits / cap) (0: not used)
    float attn_softcap = 0.0f;       // attention scores = cap * tanh(scores / cap) before the softmax
    float clamp_kqv = 0.0f;          // > 0: Q, K and V clamped to [-clamp_kqv, clamp_kqv] after their projections
    float norm_eps = 1e-5f;          // RMS or LayerNorm epsilon, as the description's norm kind reads it
    bool layer_norm = false;         // LayerNorm, else RMS: the description's kind, or (NormKind::RMS_IF_KEY) the file's key
    bool parallel_residual = false;  // GPT-NeoX's use_parallel_residual
    float rope_freq_base = 10000.0f;
    float rope_freq_scale = 1.0f;
    // YaRN (rope.scaling.type "yarn"), as llama.cpp's context sets it: ext_factor 1, the
    // original context the ramp is computed from, and the file's attention factor (which
    // llama.cpp applies whatever the scaling type); beta fast/slow are llama.cpp's 32 and 1.
    float rope_ext_factor = 0.0f;
    float rope_attn_factor = 1.0f;
    int n_ctx_orig = 0; // rope.scaling.original_context_length, else the training context
    float attn_temp_scale = 0.0f; // Mistral 3's attention.temperature_scale (0: none); its floor scale is n_ctx_orig
    // Mixture of experts (arch::Moe): experts per layer, used per token, each expert's FFN width
    int n_expert = 0, n_expert_used = 0, n_ff_exp = 0, n_ff_shexp = 0; // n_ff_shexp: the shared expert's (0: none)
    int n_layer_dense_lead = 0;        // the first layers' dense FFNs before the experts' (Moe::SOFTMAX_SHARED_COUNT)
    // Whether layer il has experts (else a dense FFN), as llama.cpp's loaders decide.
    bool moe_layer(int il) const { return n_expert > 0 && il >= n_layer_dense_lead; }
    float expert_weights_scale = 0.0f; // the selected experts' weights times this, where not 0 or 1 (as llama.cpp)
    // Moe::GATED_SHARED_COUNT: the router's function (llama.cpp's expert_gating_func: 1 softmax, 2
    // sigmoid) and whether the selected weights are renormalised (expert_weights_norm)
    int expert_gating = 1;
    bool expert_weights_norm = false;
    // Gated delta-net layers (arch::Desc::delta_net): which layers, the causal convolution's
    // width, the key heads (ssm.group_count) of ssm_d_state dims, the value heads
    // (ssm.time_step_rank) sharing ssm_d_inner, as llama.cpp's qwen35 loader reads them.
    std::vector<char> recurrent_l;
    bool recurrent(int il) const { return !recurrent_l.empty() && recurrent_l[il]; }
    int ssm_d_conv = 0, ssm_d_inner = 0, ssm_d_state = 0, ssm_dt_rank = 0, ssm_n_group = 0;
    // Per layer, as llama.cpp reads them for every architecture: windowed layers take
    // attention.key_length_swa and rope.dimension_count_swa where the file has them (Gemma 4).
    std::vector<int> head_dim_l, n_rot_l;
    // The layer whose K and V a layer attends to: itself, or an earlier layer's (arch::Desc::shared_kv).
    std::vector<int> kv_from_l;
    int kv_from(int il) const { return kv_from_l.empty() ? il : kv_from_l[il]; }
    bool has_kv(int il) const { return kv_from(il) == il; }
    int n_embd_per_layer = 0; // arch::Desc::per_layer_embeddings: each layer's slice width (0: none)
};

// A layer's tensors; absent ones are nullptr and the graph leaves their step out.
struct LayerWeights {
    ggml_tensor * attn_norm = nullptr, * attn_norm_b = nullptr; // LayerNorm: weight and bias
    ggml_tensor * wq = nullptr, * wk = nullptr, * wv = nullptr, * wo = nullptr;
    ggml_tensor * wqkv = nullptr, * bqkv = nullptr; // fused Q/K/V (Qwen, ChatGLM, OpenELM, CogVLM): wq/wk/wv absent
    ggml_tensor * bq = nullptr, * bk = nullptr, * bv = nullptr, * bo = nullptr;
    ggml_tensor * q_norm = nullptr, * k_norm = nullptr;
    ggml_tensor * ffn_norm = nullptr, * ffn_norm_b = nullptr;
    ggml_tensor * attn_post_norm = nullptr, * ffn_post_norm = nullptr; // OLMo 2: instead of the pre-norms; GLM-4: beside them
    ggml_tensor * attn_sub_norm = nullptr, * ffn_sub_norm = nullptr;   // BitNet: before attn_output and ffn_down
    ggml_tensor * ffn_gate = nullptr, * ffn_up = nullptr, * ffn_down = nullptr; // no gate and up of 2*n_ff rows: gate and up fused
    ggml_tensor * b_gate = nullptr, * b_up = nullptr, * b_down = nullptr;       // optional FFN biases (llama, Granite)
    ggml_tensor * ffn_gate_inp = nullptr; // mixture of experts: the router [n_embd, n_expert]
    ggml_tensor * ffn_exp_probs_b = nullptr; // [n_expert] added to the router's probabilities for top-k only (GLM-4.5)
    ggml_tensor * ffn_gate_inp_b = nullptr, * ffn_gate_exps_b = nullptr, * ffn_up_exps_b = nullptr, * ffn_down_exps_b = nullptr; // gpt-oss: [n_expert], [n_ff_exp, n_expert] x2, [n_embd, n_expert]
    ggml_tensor * ffn_gate_exps = nullptr, * ffn_up_exps = nullptr, * ffn_down_exps = nullptr; // [.., .., n_expert]
    ggml_tensor * ffn_gate_up_exps = nullptr; // gate and up fused [n_embd, 2 n_ff_exp, n_expert]: gate_exps and up_exps absent
    // Moe::SOFTMAX_NORM_BESIDE_DENSE (Gemma 4): the router input's scale [n_embd], each expert's
    // output scale [n_expert] (optional), the experts' norm before and the two branches' norms after
    ggml_tensor * ffn_gate_inp_s = nullptr, * ffn_down_exps_s = nullptr;
    ggml_tensor * ffn_pre_norm_2 = nullptr, * ffn_post_norm_1 = nullptr, * ffn_post_norm_2 = nullptr;
    ggml_tensor * ffn_norm_exps = nullptr; // Moe::SOFTMAX_NORM_PARALLEL_DENSE (Arctic): the experts' norm of the layer's input
    ggml_tensor * ffn_gate_inp_shexp = nullptr; // the shared expert's gate [n_embd], its SwiGLU below
    ggml_tensor * ffn_gate_shexp = nullptr, * ffn_up_shexp = nullptr, * ffn_down_shexp = nullptr;
    ggml_tensor * attn_sinks = nullptr; // Granite 4 (granite_swa): one sink logit per head in every softmax
    ggml_tensor * out_scale = nullptr; // Talkie: the normed embeddings' weight in this layer's output
    ggml_tensor * layer_scale = nullptr; // Gemma 4: the layer's output times this [1]
    // Gemma 4's per-layer embeddings: the gate [n_embd, n_epl], the projection back [n_epl, n_embd], its norm
    ggml_tensor * pl_gate = nullptr, * pl_proj = nullptr, * pl_post_norm = nullptr;
    // A gated delta-net layer (Qwen3.5): Q/K/V in wqkv, the output gate z, the causal convolution
    // [d_conv, channels], the decay's bias and -exp(A_log) per value head, the β and α
    // projections, the output's per-head RMS norm and projection.
    ggml_tensor * wqkv_gate = nullptr, * ssm_conv1d = nullptr, * ssm_dt = nullptr, * ssm_a = nullptr;
    ggml_tensor * ssm_beta = nullptr, * ssm_alpha = nullptr, * ssm_norm = nullptr, * ssm_out = nullptr;
};

// The backends a model computes on: the primary one (holding the weights) first, the CPU last.
struct Backends {
    ggml_backend_t primary = nullptr;
    ggml_backend_t cpu = nullptr;
    std::vector<ggml_backend_t> list() const;
    ~Backends();
};

} // namespace hone

struct hone_model {
    std::string path;
    std::string name;
    hone::Hparams hp;
    int n_threads = 1;
    hone::Backends backends;
    std::string gpu_precision; // as applied; empty where the backend has no such switch

    gguf_context * gguf = nullptr;
    ggml_context * ctx_w = nullptr;   // weight tensors (metadata; data in buf_w)
    ggml_backend_buffer_t buf_w = nullptr;
    std::unique_ptr<hone::ReadOnlyMap> map;

    ggml_tensor * tok_embd = nullptr, * output_norm = nullptr, * output = nullptr, * rope_freqs = nullptr;
    ggml_tensor * output_norm_b = nullptr, * output_b = nullptr; // LayerNorm's bias; a bias on the logits (Phi-2)
    // LongRoPE's frequency factors [n_rot/2] (Phi-3 128k, Phi-3.5, Phi-4-mini): llama.cpp applies the
    // long set when its context passes the original one (Hparams::n_ctx_orig), else the short set
    ggml_tensor * rope_long = nullptr, * rope_short = nullptr;
    ggml_tensor * tok_norm = nullptr, * tok_norm_b = nullptr; // the embeddings' norm (arch::Desc::embeddings_normed)
    ggml_tensor * pos_embd = nullptr; // learned absolute positions [n_embd, context_length] (arch::Positions::LEARNED)
    // Gemma 4's per-layer embeddings: the table [n_epl * n_layer, n_vocab], the embeddings'
    // projection [n_embd, n_epl * n_layer] and its norm [n_epl]
    ggml_tensor * pl_tok_embd = nullptr, * pl_model_proj = nullptr, * pl_proj_norm = nullptr;
    bool tied_output = false;
    std::vector<hone::LayerWeights> layers;

    llama_model * vocab_model = nullptr; // tokenizer only (vocab_only load)

    ~hone_model();
    ggml_tensor * weight(const std::string & name, bool required) const;
};

namespace hone {
// Reads m.gguf's architecture and hyperparameters into m.hp (hparams.cpp); refuses, naming the
// file and the key, what the training graph does not build.
void read_hparams(hone_model & m);
// The general.architecture names read_hparams accepts (hparams.cpp's table), in table order.
std::vector<std::string> trainable_architectures();
// The GPU device a backend request ("auto", "cpu", "cuda", "metal") asks for: nullptr for "cpu",
// and for "auto" without a GPU. Throws for an unknown request, and for "cuda"/"metal" when this
// build has no such device.
ggml_backend_dev_t find_gpu_device(const std::string & request);
// Selects and initialises backends for a request ("auto", "cpu", "cuda", "metal").
void init_backends(Backends & b, const std::string & request, int n_threads);
// Silences llama.cpp/ggml logging unless HONE_VERBOSE is set.
void quiet_logs();
} // namespace hone
