// The LayerNorm families: norms with a weight (and usually a bias: NORM's backward is patch
// 0006), biases on some projections, GELU FFNs or attention and FFN side by side.
#include "hone_arch.h"

namespace hone::arch {

static Desc layernorm_base(const char * name, const char * covers, const char * details) {
    Desc d = described(name, "layernorm", covers, details);
    d.norm_kind = NormKind::LAYER;
    d.rope = Rope::NEOX;
    return d;
}

std::vector<Desc> layernorm_family() {
    std::vector<Desc> v;
    {
        Desc d = layernorm_base("phi2", "Phi-1.5, Phi-2",
                                "LayerNorm; attention and a GELU FFN side by side on one norm, both added to the residual; fused Q/K/V with a bias, partial NeoX RoPE, Q scaled by 1/√head_dim after RoPE, biases on every projection and on the logits");
        d.norms = Norms::PARALLEL;
        d.ffn = Ffn::GELU;
        d.q_scale = QScale::HEAD_DIM;
        d.tensors.fused_qkv = d.tensors.qkv_bias = d.tensors.out_bias = d.tensors.ffn_bias = d.tensors.output_bias = true;
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("starcoder2", "StarCoder 2",
                                "LayerNorm before attention and FFN, a GELU FFN without a gate, NeoX RoPE, GQA, biases on Q/K/V, the output projection and the FFN");
        d.ffn = Ffn::GELU;
        d.tensors.qkv_bias = d.tensors.out_bias = d.tensors.ffn_bias = true;
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("stablelm", "StableLM (2)",
                                "LayerNorm, SwiGLU, partial NeoX RoPE, optional per-head LayerNorms on Q and K; without an FFN norm (StableLM 2 12B) the FFN reads the attention's normed input");
        d.tensors.ffn_norm_optional = true;
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("gptneox", "GPT-NeoX, Pythia",
                                "LayerNorm, fused Q/K/V with a bias, partial NeoX RoPE, a GELU FFN; with `use_parallel_residual` the FFN reads its own norm of the layer's input and attention and FFN both join the residual");
        d.ffn = Ffn::GELU;
        d.parallel_residual_key = true;
        d.tensors.fused_qkv = d.tensors.qkv_bias = d.tensors.out_bias = d.tensors.ffn_bias = true;
        d.required_keys = { { "use_parallel_residual", KeyType::BOOL } };
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("falcon", "Falcon 7B, Falcon-RW (the 7B layout)",
                                "one LayerNorm before attention and a GELU FFN side by side, both added to the residual (as Phi-2), fused Q/K/V without a bias, NeoX RoPE, no other biases; Falcon-40B's second attention norm (`attn_norm_2`) is refused at load");
        d.norms = Norms::PARALLEL;
        d.ffn = Ffn::GELU;
        d.tensors.fused_qkv = true;
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("gpt2", "GPT-2 (and DistilGPT-2, Cerebras-GPT)",
                                "learned absolute positions added to the embeddings, LayerNorms with biases, fused Q/K/V with a bias, no RoPE, a GELU FFN, biases on every projection");
        d.positions = Positions::LEARNED;
        d.ffn = Ffn::GELU;
        d.tensors.fused_qkv = d.tensors.qkv_bias = d.tensors.out_bias = d.tensors.ffn_bias = true;
        v.push_back(d);
        d.name = "starcoder";
        d.covers = "StarCoder, StarCoderBase, SantaCoder";
        d.details = "GPT-2's graph (learned positions, LayerNorms, fused Q/K/V with a bias, a GELU FFN) with grouped-query (multi-query) K/V";
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("bloom", "BLOOM, BLOOMZ",
                                "the embeddings LayerNormed, then LayerNorms with biases, fused Q/K/V with a bias, ALiBi (max bias 8, as llama.cpp hard-codes it) through the mask, a GELU FFN, biases on every projection");
        d.positions = Positions::ALIBI;
        d.embeddings_normed = true;
        d.ffn = Ffn::GELU;
        d.tensors.fused_qkv = d.tensors.qkv_bias = d.tensors.out_bias = d.tensors.ffn_bias = true;
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("olmo", "OLMo (1)",
                                "LayerNorms without weights or biases (before attention, before the FFN, before the head), normal RoPE, SwiGLU, Q/K/V clamped to ±`attention.clamp_kqv` when the file gives it");
        d.norms = Norms::WEIGHTLESS;
        d.rope = Rope::NORMAL;
        d.clamp_kqv_key = true;
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("nemotron", "Nemotron (Minitron, Nemotron-4)",
                                "LayerNorms with biases (Nemotron's +1 folded into the weights by the conversion), partial NeoX RoPE, an FFN of relu(up·x)² with no gate and optional biases, a head of its own");
        d.ffn = Ffn::RELU2;
        d.tensors.output_required = true;
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("jais", "JAIS",
                                "LayerNorms with biases, fused Q/K/V with a bias, ALiBi through the mask with the file's `attention.max_alibi_bias` (none without it), KQ scaled by 1/head_dim, SwiGLU with biases, a head of its own");
        d.positions = Positions::ALIBI_KEY;
        d.kq_scale_inverse_dim = true;
        d.tensors.fused_qkv = d.tensors.qkv_bias = d.tensors.out_bias = d.tensors.ffn_bias = d.tensors.output_required = true;
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("mpt", "MPT (7B, 30B)",
                                "LayerNorms (biases where the file has them), fused Q/K/V clamped to ±`attention.clamp_kqv` when the file gives it, "
                                "ALiBi through the mask with the file's `attention.max_alibi_bias`, a GELU FFN without a gate; optional biases on every projection. "
                                "Files with learned positions, Q/K LayerNorms or activation scales (`ffn.act`) are refused at load");
        d.positions = Positions::ALIBI_KEY;
        d.ffn = Ffn::GELU;
        d.clamp_kqv_key = true;
        d.tensors.fused_qkv = true;
        d.refused_tensors = { "position_embd.weight", "attn_q_norm.weight", "attn_k_norm.weight", "ffn.act.scales" };
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("dbrx", "DBRX (132B)",
                                "LayerNorms without biases (the FFN's named `attn_output_norm`), fused Q/K/V clamped to ±`attention.clamp_kqv` "
                                "when the file gives it, NeoX RoPE, a head of its own; every FFN a mixture of experts as wide as "
                                "`feed_forward_length`: a softmax router, the selected weights renormalised; LoRA on attention (experts and router stay frozen)");
        d.clamp_kqv_key = true;
        d.moe = Moe::SOFTMAX_NORM_FF;
        d.tensors.ffn_norm = "attn_output_norm.weight";
        d.tensors.fused_qkv = d.tensors.output_required = true;
        d.required_keys = expert_keys();
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("codeshell", "CodeShell",
                                "LayerNorms with biases, Q/K/V with biases, NeoX RoPE, a GELU FFN with biases, a head of its own");
        d.ffn = Ffn::GELU;
        d.tensors.fused_qkv = d.tensors.qkv_bias = d.tensors.out_bias = d.tensors.ffn_bias = d.tensors.output_required = true;
        d.tensors.embd_from_output = true;
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("orion", "Orion", "llama's graph with LayerNorms (weights and biases) and NeoX RoPE");
        v.push_back(d);
    }
    {
        Desc d = layernorm_base("command-r", "Command-R, Command-R+, Aya 23",
                                "LayerNorms without biases; attention and a SwiGLU FFN side by side on one norm, both added to the residual; normal RoPE, logits times `logit_scale` when the file has it; Command-R+'s per-head Q/K LayerNorms (64 layers) are built but not checked against llama.cpp (the probe makes the 2-layer layout)");
        d.rope = Rope::NORMAL;
        d.norms = Norms::PARALLEL;
        d.scales = Scales::LOGIT_MULTIPLIED; // optional here: without it llama.cpp leaves the logits as they are
        v.push_back(d);
        d.name = "cohere2";
        d.covers = "Command R7B, Command A";
        d.details = "Command-R's layout with sliding windows: every layer but the last of each `sliding_window_pattern` (default 4) attends to a window with RoPE, the others globally without RoPE; `logit_scale` required";
        d.window = { Windows::PERIODIC, WindowWhen::IF_WINDOW, 4, 0, 0, WindowRope::GLOBAL_NOPE };
        d.required_keys = { { "attention.sliding_window", KeyType::U32 }, { "logit_scale", KeyType::F32 } };
        v.push_back(d);
        Desc e = described("cohere2moe", "layernorm", "Cohere 2 MoE (30B-A3B; the multi-token-prediction layers are not trained)",
                           "Command-R's parallel block on one norm (LayerNorm without biases, RMS where the file has "
                           "`attention.layer_norm_rms_epsilon`); a sliding window in every layer but the first of each "
                           "`attention.sliding_window_pattern` (default 4), windowed layers and the first `leading_dense_block_count` "
                           "with normal RoPE, the other global layers without; those first layers with a SwiGLU FFN, the others a "
                           "mixture of experts: the router's function from `expert_gating_func` (sigmoid where absent), renormalised where "
                           "`expert_weights_norm`, times `expert_weights_scale` where set, gate and up separate or fused, plus "
                           "`expert_shared_count` ungated shared experts as one, routed and shared outputs averaged; logits times "
                           "`logit_scale`; LoRA on attention and the dense FFNs (experts, shared experts and router stay frozen)");
        e.norm_kind = NormKind::RMS_IF_KEY;
        e.rope = Rope::NORMAL;
        e.norms = Norms::PARALLEL;
        e.scales = Scales::LOGIT_MULTIPLIED;
        e.moe = Moe::GATED_SHARED_HALF;
        e.moe_gating_default = 2; // llama.cpp's loader: sigmoid when the file says none
        e.window = { Windows::PERIODIC_FIRST_GLOBAL, WindowWhen::IF_WINDOW, 4, 0, 0, WindowRope::GLOBAL_NOPE_AFTER_LEAD };
        e.required_keys = expert_keys({ "leading_dense_block_count" });
        e.required_keys.push_back({ "attention.sliding_window", KeyType::U32 });
        e.required_keys.push_back({ "logit_scale", KeyType::F32 });
        v.push_back(e);
    }
    return v;
}

} // namespace hone::arch
