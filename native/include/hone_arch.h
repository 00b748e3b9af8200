// What an architecture is, in one description per architecture (the descriptions are in
// native/engine/arch/, one file per family): where its norms sit, its Q/K
// norms, FFN, positions, attention windows, scales, tensor names that differ and the keys it
// reads beyond the common ones. The loader (hparams.cpp, model.cpp), the graph builder
// (graph.cpp), `make-model` and the documentation table (`hone-train architectures`) all read
// these; nothing else compares an architecture's name.
//
// Adding an architecture whose llama.cpp graph is one of ours: one description in the family
// file it belongs to (or a new file listed in engine/arch/registry.cpp) and one case in the tests.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

namespace hone::arch {

// Where a layer's RMS norms sit.
enum class Norms {
    PRE,        // before attention and before the FFN (llama)
    POST,       // after attention and after the FFN, none before (OLMo 2, EXAONE 4)
    SANDWICH,   // before and after both (GLM-4, Gemma 2/3, PLaMo 3)
    PARALLEL,   // one norm before attention; the FFN reads it too and both join the residual (PLaMo)
    WEIGHTLESS, // before both, with no weight tensors; the K and final norms have none either (Talkie)
};

// The kind of every norm of the architecture (layers, Q/K, output).
enum class NormKind {
    RMS,   // x / sqrt(mean(x^2) + eps) times the weight
    LAYER, // LayerNorm: (x - mean) / sqrt(var + eps) times the weight plus the bias (the file's
           // attention.layer_norm_epsilon); NORM's backward is patch 0006
    RMS_IF_KEY, // RMS where the file has attention.layer_norm_rms_epsilon, else LayerNorm (Cohere 2 MoE's loader)
};

// Per-head or whole-projection norms on Q and K.
enum class QkNorm {
    IF_PRESENT,       // per head before RoPE where the file has them (optional)
    PER_HEAD,         // per head before RoPE, required (Qwen3)
    AFTER_ROPE,       // per head after RoPE, required (Hunyuan)
    WHOLE,            // over the whole Q and K projections before RoPE, required (OLMo 2)
};

// The feed-forward network. Gate and up may be one `ffn_up` of 2·n_ff rows for the GLU kinds
// (read from the tensor's shape); `fused_gate_up` says which form released files use.
enum class Ffn {
    SWIGLU, // down(silu(gate x) * up x)
    GEGLU,  // down(gelu(gate x) * up x) (Gemma)
    RELU2,  // down(relu(up x)^2), no gate (Arcee)
    GELU,   // down(gelu(up x)), no gate (Phi-2, StarCoder 2, GPT-NeoX)
    REGLU,  // down(relu(gate x) * up x), built from RELU and MUL (ggml's REGLU has no backward) (SmallThinker's experts)
};

// A mixture-of-experts FFN in every layer, as llama.cpp's build_moe_ffn builds it: a router
// (`ffn_gate_inp`) over `expert_count` experts, the `expert_used_count` most probable of them
// per token (top-k selection itself is not differentiated; the selected weights are), their
// SwiGLU experts (`ffn_gate_exps`, `ffn_up_exps`, `ffn_down_exps`: frozen, MUL_MAT_ID's
// backward is patch 0010) summed by weight. Keys: expert_count and expert_used_count
// (required_keys), expert_feed_forward_length (else feed_forward_length / expert_used_count).
enum class Moe {
    NONE,
    SOFTMAX_NORM,   // softmax router; the selected weights renormalised to sum 1 (Qwen3-MoE)
    SOFTMAX_SHARED, // softmax router, weights as selected, plus a shared SwiGLU expert gated per token by
                    // sigmoid(ffn_gate_inp_shexp · x) (Qwen2-MoE; key expert_shared_feed_forward_length)
    SOFTMAX_WEIGHT_OAI, // router with a bias, top-k on its logits, the selected logits' softmax as weights;
                        // experts with biases and SwiGLU-OAI (alpha 1.702, limit 7) (gpt-oss)
    SOFTMAX_NORM_SHARED, // SOFTMAX_NORM's experts plus SOFTMAX_SHARED's gated shared expert (Qwen3.5-MoE)
    SOFTMAX_NORM_FF,     // SOFTMAX_NORM's experts, each feed_forward_length wide (Mixtral, Granite MoE, Hunyuan-A13B), plus an
                         // ungated shared SwiGLU expert where Desc::shared_ff_key says (Granite MoE Shared)
    SOFTMAX_SHARED_COUNT, // softmax router, weights as selected (renormalised: Desc::moe_norm_key) times expert_weights_scale (where set), plus
                          // expert_shared_count ungated SwiGLU experts as one of expert_feed_forward_length x
                          // that count; the first leading_dense_block_count layers dense (DeepSeek-MoE)
    GATED_SHARED_COUNT, // SOFTMAX_SHARED_COUNT's layout with the router's function from expert_gating_func
                        // (softmax 1, sigmoid 2; Desc::moe_gating_default where absent) and a selection bias
                        // `exp_probs_b` added to the probabilities for top-k only (GLM-4.5, dots.llm1)
    SOFTMAX_NORM_BIAS, // softmax router, a selection bias `exp_probs_b` where the file has it, the selected
                       // weights renormalised, an ungated shared SwiGLU expert where the file sets
                       // expert_shared_feed_forward_length; the first leading_dense_block_count layers
                       // dense; interleave_moe_layer_step must be 1 (ERNIE 4.5)
    GATED_NORM_FF, // the router's function from expert_gating_func (required), top-k with the selection bias
                   // `exp_probs_b`, the selected weights renormalised; experts feed_forward_length wide, as the
                   // loader shapes them, no shared expert (MiniMax-M2)
    SOFTMAX_NORM_BESIDE_DENSE, // experts beside the layer's dense FFN, each with its own norms, in the layers
                               // that have a router: softmax over the router's product with the layer's input
                               // RMS-normed, divided by √n_embd and times `ffn_gate_inp.scale`; the selected
                               // weights renormalised; each expert's output times its `ffn_down_exps.scale`
                               // where the file has one (Gemma 4 26B-A4B)
    SOFTMAX_NORM_PARALLEL_DENSE, // a dense SwiGLU FFN on the FFN norm and, beside it, experts
                                 // feed_forward_length wide (softmax router, the selected weights
                                 // renormalised) over the layer's input before attention through their
                                 // own norm `ffn_norm_exps`; both join the residual (Snowflake Arctic)
    GATED_NORM_RAW_ROUTER, // the router's function from expert_gating_func (required) over the layer's input
                           // before its attention norm; top-k, the selected weights renormalised; experts
                           // expert_feed_forward_length wide, no shared expert (SmallThinker)
    GATED_SHARED_HALF, // the router's function from expert_gating_func (sigmoid where absent), the selected weights
                       // renormalised where expert_weights_norm and times expert_weights_scale where set, no
                       // selection bias; experts expert_feed_forward_length wide (else feed_forward_length); where
                       // expert_shared_count > 0 that many ungated shared experts as one (expert_shared_feed_forward_length
                       // wide, else the experts' width times the count), the routed and shared outputs averaged;
                       // the first leading_dense_block_count layers dense (Cohere 2 MoE)
    SOFTMAX_NORM_OPTIONAL_DENSE, // softmax router, the selected weights renormalised, experts expert_feed_forward_length
                                 // wide (else feed_forward_length); where the layer also has a dense FFN (`ffn_up`), the
                                 // two outputs summed times √½ (Grok)
};
// Whether the router's top-k adds a per-expert selection bias (`exp_probs_b`, optional or required
// by Desc::tensors.exp_probs_b_required).
bool selection_bias(Moe m);
// Whether a layer of this kind has expert_shared_count ungated shared experts as one.
bool shared_count(Moe m);
// Whether the FFN has a shared expert gated per token beside the routed ones.
bool has_shared_expert(Moe m);
// Whether the routed experts' weights are renormalised to sum 1 over the selected ones.
bool renormalises(Moe m);
// Whether a layer with experts keeps its dense FFN beside them (Gemma 4, Arctic, Grok).
bool beside_dense(Moe m);

// How positions enter attention.
enum class Positions {
    ROPE,     // rotary embeddings of `rope` kind
    ALIBI,    // ALiBi with max bias 8, as llama.cpp hard-codes it (Refact)
    ALIBI_KEY, // ALiBi with the file's attention.max_alibi_bias; absent or 0: no positions at all, as llama.cpp (JAIS)
    BY_DEPTH, // Baichuan: RoPE at 32 layers, ALiBi at 40, neither at any other depth
    LEARNED,  // absolute position embeddings (`position_embd`, one row per position up to context_length) added to the token embeddings (GPT-2, StarCoder)
};

enum class Rope { NORMAL, NEOX, MROPE, IMROPE };

// RoPE's base and sections beyond what every file says.
enum class RopeBase {
    FILE,           // rope.freq_base and the scaling keys
    FIXED_DEFAULTS, // ggml_rope's base 10000 and scale 1 whatever the file says (CogVLM)
    NTK_ALPHA,      // base · α^(d / (d - 2)) with rope.scaling.alpha (HunYuan-VL)
};

// Which layers attend to a sliding window, and their RoPE.
enum class Windows {
    NONE,
    PERIODIC, // every layer but the last of each `window.period` (the file's pattern key overrides)
    PATTERN,  // per-layer window and RoPE patterns from the file (Granite 4)
    PERIODIC_FIRST_GLOBAL, // every layer but the first of each `window.period` (the file's pattern key overrides)
};
enum class WindowWhen {
    IF_WINDOW, // when attention.sliding_window > 0
    ALWAYS,    // always, with `window.default_size` when the file says none (Gemma 2)
    AT_DEPTH,  // at `window.depth` layers only, with `window.default_size` (EXAONE 4 32B)
};
enum class WindowRope {
    SAME,          // windowed layers keep the global RoPE
    OWN_BASE,      // rope.freq_base_swa, else 10000; scale 1 (PLaMo 3, Gemma 3)
    SWA_BASE,      // rope.freq_base_swa, else the global base; scale kept (Gemma 2)
    UNSCALED,      // rope.freq_base_swa, else the global base; scale 1 (OLMo 3)
    GLOBAL_UNSCALED, // the global base (the graph does not read rope.freq_base_swa); scale 1, no YaRN (Mellum)
    GLOBAL_NOPE,   // windowed layers keep RoPE, global layers have none (EXAONE 4 32B)
    GLOBAL_NOPE_AFTER_LEAD, // GLOBAL_NOPE, but the first leading_dense_block_count layers keep RoPE (Cohere 2 MoE)
    SWA_BASE_GLOBAL_NOPE, // windowed layers: rope.freq_base_swa, else the global base, scale kept; global
                          // layers: no RoPE, which llama.cpp's graph takes from every 4th layer (period 4 only) (SmallThinker)
};
struct WindowRule {
    Windows layout = Windows::NONE;
    WindowWhen when = WindowWhen::IF_WINDOW;
    int period = 0;       // PERIODIC: the default pattern period
    int default_size = 0; // ALWAYS / AT_DEPTH: the window when the file gives none
    int depth = 0;        // AT_DEPTH
    WindowRope rope = WindowRope::SAME;
    bool fixed_size = false; // default_size whatever positive window the file gives (SmallThinker's loader: 4096)
};

// Granite-style scale keys: embedding_scale, residual_scale, logit_scale, attention.scale.
enum class Scales {
    NONE,
    MINICPM, // optional, with llama.cpp's defaults (12, 1.4/√n_layer, 256/n_embd)
    GRANITE, // read from the file; logit_scale required; the logits are divided by it
    LOGIT_MULTIPLIED, // logit_scale required; the logits are multiplied by it (Talkie, Command-R)
    GROK, // embedding_scale and logit_scale optional with llama.cpp's grok defaults (78.38…, 0.5773…); the
          // embeddings and the logits are multiplied by them
};

// Q scaled after RoPE (and the KQ scale then 1), as Gemma and Phi-3 do.
enum class QScale {
    NONE,
    HEAD_DIM, // 1/√head_dim, except 1/√(n_embd / n_head) at `q_scale_embd_depth` layers (Gemma 27Bs)
    OUTPUT_SCALE_KEY, // attention.output_scale (llama.cpp's grok default 0.0883883…), applied to the scores before
                      // their soft cap: the same as scaling Q (Grok)
};

// Soft caps: cap · tanh(x / cap). `read`: the key is read, `def` its default (0: none).
struct Softcap {
    bool read = false;
    float def = 0.0f;
};

// A key an architecture's loader requires beyond the common ones (its type, for the tests and
// `make-model` to write an example value).
enum class KeyType { U32, F32, BOOL, I32_ARRAY };
struct RequiredKey {
    std::string name; // under "<arch>."
    KeyType type;
};

struct Desc {
    std::string name;   // general.architecture
    std::string family; // the file it is described in
    std::string covers; // the released models (documentation)
    std::string details; // what its graph does (documentation)

    Norms norms = Norms::PRE;
    NormKind norm_kind = NormKind::RMS;
    // GPT-NeoX: with use_parallel_residual the FFN reads its own norm of the layer's input and
    // attention and FFN both join the residual
    bool parallel_residual_key = false;
    QkNorm qk_norm = QkNorm::IF_PRESENT;
    Ffn ffn = Ffn::SWIGLU;
    Moe moe = Moe::NONE; // a mixture-of-experts FFN instead of `ffn` (every layer)
    // `moe` only where the file has `expert_count` > 0, else `ffn` (llama.cpp's llama, mistral3 and
    // granite loaders: Mixtral is a llama file with experts)
    bool experts_optional = false;
    // an ungated shared expert where the file sets expert_shared_feed_forward_length (the loaders
    // that read that key: granite's); with shared_count(moe), one shared expert of that width (as
    // wide as the experts where the file sets none) instead of expert_shared_count of the experts'
    bool shared_ff_key = false;
    // Moe::SOFTMAX_NORM_FF with shared_ff_key: the shared expert is always there, as wide as the
    // experts where the file sets no expert_shared_feed_forward_length (Hunyuan-MoE's loader)
    bool shared_ff_always = false;
    // shared_count(moe) with shared_ff_key: the key is each shared expert's width (else the experts'),
    // times expert_shared_count (Ling 2's loader)
    bool shared_ff_per_expert = false;
    // Moe::GATED_SHARED_COUNT: the router's function when the file has no expert_gating_func (1
    // softmax, 2 sigmoid; 0: the key is required, as llama.cpp's loader then has none to run)
    int moe_gating_default = 0;
    // shared_count(moe): the selected weights renormalised where the file sets expert_weights_norm
    // (GLM-4.5, dots.llm1, Ling), and the first leading_dense_block_count layers dense (all but Ling,
    // whose graph gives every layer experts whatever the key says)
    bool moe_norm_key = false;
    bool moe_dense_lead_key = true;
    Positions positions = Positions::ROPE;
    Rope rope = Rope::NORMAL;
    RopeBase rope_base = RopeBase::FILE;
    bool mrope_if_sections = false; // M-RoPE when the file has rope sections (GLM-4, HunYuan-VL)
    int nope_period = 0;            // > 0: every nope_period-th layer has no RoPE (SmolLM3: 4)
    WindowRule window;
    Scales scales = Scales::NONE;
    QScale q_scale = QScale::NONE;
    int q_scale_embd_depth = 0;
    Softcap attn_softcap, final_softcap;
    bool embeddings_sqrt_scaled = false; // embeddings times √n_embd (Gemma)
    bool embeddings_skip = false;   // embeddings RMS-normed, added back per layer times layer_output_scale (Talkie)
    bool kq_scale_inverse_dim = false; // the KQ scale is 1/head_dim, not 1/√head_dim (JAIS)
    bool clamp_kqv_key = false;     // attention.clamp_kqv (optional): Q, K and V clamped to ±it after their projections (OLMo)
    bool embeddings_normed = false; // the embeddings normed by token_embd_norm (weight, bias) before the first layer (BLOOM)
    bool zero_norm_eps = false;     // the pinned loader reads no epsilon: it stays 0 (Qwen2-VL)
    bool refuses_loops = false;     // num_loops > 1 (looped layers) is refused (Nanbeige)
    // tensors (name suffixes) the loader reads as optional whose computation the graph does not
    // build: a file with one is refused at load, naming it (MPT's Q/K LayerNorms)
    std::vector<std::string> refused_tensors;
    // attention.temperature_scale (Mistral 3, as Llama 4): Q times log(floor(pos / n_ctx_orig) + 1) * scale + 1 after RoPE
    bool attn_temperature = false;
    bool always_tied = false;       // the head is token_embd even where output.weight exists
    bool qkv_thirds = false;        // a fused Q/K/V splits in three equal parts (CogVLM)
    bool no_lora_out_down = false;  // llama.cpp asserts on a LoRA of attn_output / ffn_down (GLM-4)
    // Qwen3.5's hybrid stack: a gated delta-net (linear attention, delta_net.cpp) in every layer
    // llama.cpp marks recurrent (attention.recurrent_layers, else all but every
    // full_attention_interval-th, default 4), softmax attention in the others; keys ssm.*.
    bool delta_net = false;
    // The Q projection carries an output gate per head (each head's Q, then its gate): attention's
    // output times sigmoid(gate) before attn_output (Qwen3.5's attention layers).
    bool q_gate = false;
    // Gemma 4's layers. Each layer adds its slice of the per-layer embeddings (a frozen table
    // per_layer_token_embd plus a projection of the embeddings, per_layer_model_proj; key
    // embedding_length_per_layer_input, 0: none) through a GELU gate after its FFN
    // (per_layer_embeddings.cpp).
    bool per_layer_embeddings = false;
    // The last attention.shared_kv_layers layers compute no K and V: they attend to the K and V
    // of the last earlier layer of their kind (windowed or global), as llama.cpp's KV cache reuse.
    bool shared_kv = false;
    // V RMS-normed without a weight after its projection; without attn_v, V is K's projection
    // (before K's norm and RoPE).
    bool v_norm = false;
    bool kq_unscaled = false;       // the KQ scale is 1 (the Q/K norms set the scale)
    bool layer_output_scaled = false; // each layer's output times its layer_output_scale (optional [1])
    bool rope_factors_global = false; // rope_freqs applies in the global layers only, none in windowed ones

    // Tensor names and presence that differ from llama's.
    struct Tensors {
        std::string ffn_norm = "ffn_norm.weight";
        std::string post_norm_suffix = ".weight"; // post_attention_norm / post_ffw_norm + this
        // Grok's names of the same norms: attn_output_norm, and layer_output_norm else post_ffw_norm
        bool grok_post_norms = false;
        bool sinks_required = false;              // attn_sinks.weight in every layer (Granite 4)
        bool output_required = false;             // output.weight: no tying to token_embd (Talkie)
        bool embd_from_output = false;            // no token_embd: the head's matrix embeds the tokens (CodeShell)
        bool ffn_norm_optional = false;           // no FFN norm: the FFN reads attention's normed input (StableLM 2 12B)
        // what released files hold (make-model writes them; the loader reads them where present)
        bool qkv_bias = false;
        bool out_bias = false;
        bool output_bias = false; // output.bias on the logits (Phi-2)
        bool ffn_bias = false;    // biases on the FFN's projections
        bool fused_qkv = false;
        bool fused_gate_up = false;
        bool exp_probs_b_required = false; // Moe::GATED_SHARED_COUNT: every expert layer's `exp_probs_b.bias` (GLM-4.5)
        // `*.scale` tensors the graph applies (any other is a per-tensor weight scale, refused at load)
        std::vector<std::string> scales_applied;
    } tensors;

    std::vector<RequiredKey> required_keys;
    float typical_rope_base = 10000.0f; // make-model's rope.freq_base
    float typical_norm_eps = 1e-5f;     // make-model's epsilon
};

// Every trainable architecture, families in registry order.
const std::vector<Desc> & all();
// The description of general.architecture `name`, or nullptr.
const Desc * find(const std::string & name);

// A description with llama's layout, to be changed where the architecture differs.
Desc described(const char * name, const char * family, const char * covers, const char * details);
// A mixture of experts' required keys: expert_count and expert_used_count, then `more` (all U32).
std::vector<RequiredKey> expert_keys(std::initializer_list<const char *> more = {});

// Family tables (one file each), gathered by registry.cpp.
std::vector<Desc> llama_family();
std::vector<Desc> qwen_family();
std::vector<Desc> postnorm_family();
std::vector<Desc> granite_family();
std::vector<Desc> glm_family();
std::vector<Desc> gemma_family();
std::vector<Desc> plamo_family();
std::vector<Desc> hunyuan_family();
std::vector<Desc> other_family();
std::vector<Desc> layernorm_family();

// llama.cpp's default full_attention_interval for delta-net stacks: every 4th layer attends.
constexpr int FULL_ATTENTION_INTERVAL = 4;

// Whether the FFN has a gate tensor (relu² and GELU FFNs have none).
bool has_gate(Ffn f);
// The file's epsilon key for a norm kind, under "<arch>.".
const char * norm_eps_key(NormKind k);
// The bias beside a weight tensor: "ffn_norm.weight" -> "ffn_norm.bias".
std::string bias_of(const std::string & weight);

// Names of the enum values (documentation and `hone-train architectures --json`).
const char * name_of(Norms v);
const char * name_of(QkNorm v);
const char * name_of(Ffn v);
const char * name_of(Moe v);
const char * name_of(NormKind v);
const char * name_of(Positions v);
const char * name_of(Rope v);

} // namespace hone::arch
