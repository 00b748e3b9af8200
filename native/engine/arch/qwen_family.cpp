// Qwen's architectures: Qwen (1) with a fused Q/K/V, Qwen2's Q/K/V biases, Qwen3's per-head
// Q/K norms, and the vision-language models' text graphs with M-RoPE.
#include "hone_arch.h"

namespace hone::arch {

// Qwen2-VL's proportions of rotary sections are the file's; make-model writes them.
static const RequiredKey SECTIONS{ "rope.dimension_sections", KeyType::I32_ARRAY };

// Qwen3-MoE's layers of experts: the router's counts, which llama.cpp's loader requires.
static Desc with_experts(Desc d, Moe moe = Moe::SOFTMAX_NORM) {
    d.moe = moe;
    d.required_keys.push_back({ "expert_count", KeyType::U32 });
    d.required_keys.push_back({ "expert_used_count", KeyType::U32 });
    return d;
}

// Qwen3.5's gated delta-net layers (three of every four) and gated-Q attention layers.
static Desc hybrid(Desc d) {
    d.delta_net = d.q_gate = true;
    d.tensors.ffn_norm = "post_attention_norm.weight";
    for (const char * k : { "ssm.conv_kernel", "ssm.inner_size", "ssm.state_size", "ssm.time_step_rank", "ssm.group_count" }) {
        d.required_keys.push_back({ k, KeyType::U32 });
    }
    return d;
}

// Qwen2 and later: NeoX RoPE, and the base and epsilon their releases use (for make-model).
static Desc qwen_base(const char * name, const char * covers, const char * details) {
    Desc d = described(name, "qwen", covers, details);
    d.rope = Rope::NEOX;
    d.typical_rope_base = 1e6f;
    d.typical_norm_eps = 1e-6f;
    return d;
}

// Qwen3's per-head Q/K norms on that base; the VL and TTS text graphs add interleaved M-RoPE.
static Desc qwen3_base(const char * name, const char * covers, const char * details, bool mrope) {
    Desc d = qwen_base(name, covers, details);
    d.qk_norm = QkNorm::PER_HEAD;
    if (mrope) {
        d.rope = Rope::IMROPE;
        d.required_keys = { SECTIONS };
    }
    return d;
}

std::vector<Desc> qwen_family() {
    std::vector<Desc> v;
    {
        Desc d = described("qwen", "qwen", "Qwen (1)",
                           "llama's graph with a fused Q/K/V and its bias, NeoX RoPE; attn_q/k/v targets train one LoRA on the fused `attn_qkv` (llama.cpp adapts whole tensors)");
        d.rope = Rope::NEOX;
        d.tensors.fused_qkv = d.tensors.qkv_bias = true;
        v.push_back(d);
    }
    {
        Desc d = qwen_base("qwen2", "Qwen2, Qwen2.5", "RoPE NeoX, Q/K/V biases, tied or separate head");
        d.tensors.qkv_bias = true;
        v.push_back(d);
    }
    {
        Desc d = with_experts(qwen_base("qwen2moe", "Qwen1.5-MoE, Qwen2-MoE (57B-A14B)",
                                        "Qwen2's attention; a mixture-of-experts FFN (softmax router, top-k weights as selected) plus a shared expert gated by a sigmoid per token; LoRA on attention (experts, shared expert and routers stay frozen)"),
                              Moe::SOFTMAX_SHARED);
        d.tensors.qkv_bias = true;
        v.push_back(d);
    }
    {
        Desc d = qwen_base("qwen2vl", "Qwen2-VL (text)",
                           "Qwen2's graph with M-RoPE: rotary sections over the positions (t, t, t, 0) llama.cpp feeds text tokens; the norm epsilon is 0, as the pinned llama.cpp's loader leaves it");
        d.rope = Rope::MROPE;
        d.zero_norm_eps = true;
        d.tensors.qkv_bias = true;
        d.required_keys = { SECTIONS };
        v.push_back(d);
    }
    v.push_back(qwen3_base("qwen3", "Qwen3 (dense)", "RoPE NeoX, per-head Q/K RMS norms, head_dim independent of n_embd", false));
    v.push_back(with_experts(qwen3_base("qwen3moe", "Qwen3-MoE (30B-A3B, 235B-A22B)",
                        "Qwen3's attention; a mixture-of-experts FFN in every layer: softmax router, top-k experts, their weights renormalised; LoRA on attention (the experts and the router stay frozen)", false)));
    v.push_back(with_experts(qwen3_base("qwen3vlmoe", "Qwen3-VL MoE (text; deepstack inputs are zero for text)",
                        "Qwen3-VL's attention (interleaved M-RoPE) with Qwen3-MoE's mixture-of-experts FFN; LoRA on attention", true)));
    v.push_back(qwen3_base("qwen3vl", "Qwen3-VL (text; deepstack inputs are zero for text)",
                           "Qwen3's graph with interleaved M-RoPE; also checked against finite differences", true));
    v.push_back(qwen3_base("qwen3tts", "Qwen3-TTS (text)", "Qwen3-VL's graph, as llama.cpp runs it", true));
    {
        Desc d = qwen3_base("qwen35", "Qwen3.5 (dense; text)",
                            "hybrid: a gated delta-net in three of every four layers (causal convolution, L2-normed Q/K, the delta rule "
                            "with a per-head decay, written in chunks of 64 tokens with ops that have a backward), Qwen3's attention in the "
                            "fourth with an output gate per head (sigmoid) and interleaved M-RoPE; the FFN norm is `post_attention_norm`; "
                            "q/k/v targets train one LoRA on a delta-net layer's fused `attn_qkv`, attn_output its `ssm_out` "
                            "(its gate, β and α projections stay frozen)", true);
        v.push_back(hybrid(d));
    }
    v.push_back(with_experts(hybrid(qwen3_base("qwen35moe", "Qwen3.5-MoE (35B-A3B, 122B-A10B; text)",
                                               "Qwen3.5's hybrid layers with a mixture-of-experts FFN in every layer: softmax router, top-k experts, "
                                               "their weights renormalised, plus a shared SwiGLU expert gated per token by a sigmoid; LoRA on attention "
                                               "and the delta-net's attn_qkv and ssm_out (experts, shared expert and routers stay frozen)", true)),
                             Moe::SOFTMAX_NORM_SHARED));
    return v;
}

} // namespace hone::arch
