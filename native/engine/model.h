// The frozen base model: hyperparameters, resident weights (never dequantized, never
// written) and the tokenizer. Weights are read straight from the GGUF: memory-mapped on the
// CPU, uploaded once to a GPU backend. CPU repacking is never used, so every weight stays
// in a plain buffer that OUT_PROD (the backward of MUL_MAT) can read.
#pragma once

#include "gguf_file.h"
#include "hone.h"

#include "ggml-backend.h"
#include "ggml.h"

#include <memory>
#include <string>
#include <vector>

struct llama_model;

namespace hone {

// The tensor layouts the training graph knows. POSTNORM: no pre-norms, RMS norms after
// attention and after the FFN (OLMo 2, EXAONE 4).
enum class Arch { LLAMA, QWEN2, QWEN3, POSTNORM };

struct Hparams {
    Arch arch;
    std::string arch_name;
    int n_layer = 0, n_embd = 0, n_ff = 0, n_head = 0, n_head_kv = 0, head_dim = 0, n_rot = 0;
    int n_vocab = 0, n_ctx_train = 0;
    int rope_type = 0;            // GGML_ROPE_TYPE_NORMAL, _NEOX, _MROPE or _IMROPE
    int rope_sections[4] = { 0, 0, 0, 0 }; // M-RoPE: rotary dims per position section (Qwen2-VL, Qwen3-VL)
    // M-RoPE reads 4 positions per token (text: t, t, t, 0, as llama.cpp feeds them).
    int n_pos_per_token() const { return rope_type & GGML_ROPE_TYPE_MROPE ? 4 : 1; } // IMROPE has the bit too
    // Granite-style scales (MiniCPM, Granite); 0 = not used.
    float embedding_scale = 0.0f;  // token embeddings times this
    float residual_scale = 0.0f;   // attention and FFN outputs times this before each residual add
    float logit_scale = 0.0f;      // logits divided by this
    float attention_scale = 0.0f;  // KQ scale instead of 1/sqrt(head_dim)
    int no_rope_layer_step = 0;      // > 0: layers il with (il + 1) % step == 0 skip RoPE (SmolLM3 NoPE layers)
    bool qk_norm_after_rope = false; // Hunyuan normalises Q and K after RoPE, Qwen3 before
    bool qk_norm_whole = false;      // OLMo 2: Q/K norms span the whole projection, not one head
    bool ffn_relu2 = false;          // Arcee: FFN = down(relu(up x)^2), no gate
    std::string ffn_norm_tensor;     // the FFN norm's name in a layer ("ffn_norm.weight")
    float rms_eps = 1e-5f;
    float rope_freq_base = 10000.0f;
    float rope_freq_scale = 1.0f;
};

struct LayerWeights {
    ggml_tensor * attn_norm = nullptr;
    ggml_tensor * wq = nullptr, * wk = nullptr, * wv = nullptr, * wo = nullptr;
    ggml_tensor * bq = nullptr, * bk = nullptr, * bv = nullptr, * bo = nullptr;
    ggml_tensor * q_norm = nullptr, * k_norm = nullptr;
    ggml_tensor * ffn_norm = nullptr;
    ggml_tensor * attn_post_norm = nullptr, * ffn_post_norm = nullptr; // OLMo 2: norms after, not before
    ggml_tensor * ffn_gate = nullptr, * ffn_up = nullptr, * ffn_down = nullptr;
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
    bool tied_output = false;
    std::vector<hone::LayerWeights> layers;

    llama_model * vocab_model = nullptr; // tokenizer only (vocab_only load)

    ~hone_model();
    ggml_tensor * weight(const std::string & name, bool required) const;
};

namespace hone {
// Selects and initialises backends for a request ("auto", "cpu", "cuda", "metal").
void init_backends(Backends & b, const std::string & request, int n_threads);
// Silences llama.cpp/ggml logging unless HONE_VERBOSE is set.
void quiet_logs();
} // namespace hone
