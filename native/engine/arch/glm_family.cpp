// ChatGLM, GLM-4 and GLM-4.5: fused Q/K/V, partial RoPE, gate and up fused in one ffn_up; GLM-4.5's experts.
#include "hone_arch.h"

namespace hone::arch {

std::vector<Desc> glm_family() {
    std::vector<Desc> v;
    {
        Desc d = described("chatglm", "glm", "ChatGLM 2/3",
                           "fused Q/K/V, partial RoPE (the first n_rot dims of each head), gate and up fused in one `ffn_up` (SwiGLU over its two halves, built split: ggml's one-input SwiGLU has no backward)");
        d.tensors.fused_qkv = d.tensors.qkv_bias = d.tensors.fused_gate_up = true;
        v.push_back(d);
    }
    {
        Desc d = described("glm4", "glm", "GLM-4 (dense)",
                           "ChatGLM's graph plus norms after attention and after the FFN; M-RoPE when the file has rope sections. LoRAs on `attn_output` and `ffn_down` are skipped: the pinned llama.cpp asserts when an adapter touches them (it sets F32 precision on those products)");
        d.norms = Norms::SANDWICH;
        d.mrope_if_sections = true;
        d.no_lora_out_down = true;
        d.tensors.fused_qkv = d.tensors.qkv_bias = d.tensors.fused_gate_up = true;
        v.push_back(d);
    }
    {
        Desc d = described("glm4moe", "glm", "GLM-4.5, GLM-4.5-Air, GLM-4.6 (text; the multi-token-prediction layers are not trained)",
                           "llama's norms (the FFN's named `post_attention_norm`), Q/K/V with biases, per-head Q/K norms where the file has them, "
                           "partial NeoX RoPE (M-RoPE with rope sections); the first `leading_dense_block_count` layers with a SwiGLU FFN, the others "
                           "a mixture of experts: a sigmoid router (or the file's `expert_gating_func`), top-k on the probabilities plus each expert's "
                           "selection bias `exp_probs_b`, the selected weights renormalised where `expert_weights_norm` and times `expert_weights_scale`, "
                           "plus `expert_shared_count` ungated shared experts as one; LoRA on attention and the dense FFNs (experts, shared experts and "
                           "router stay frozen); LoRAs on `attn_output` and `ffn_down` are skipped, as GLM-4's");
        d.rope = Rope::NEOX;
        d.no_lora_out_down = true;
        d.mrope_if_sections = true;
        d.moe = Moe::GATED_SHARED_COUNT;
        d.moe_norm_key = true;
        d.moe_gating_default = 2; // llama.cpp's glm4moe loader: sigmoid when the file says none
        d.tensors.ffn_norm = "post_attention_norm.weight";
        d.tensors.qkv_bias = true;
        d.tensors.exp_probs_b_required = true;
        d.required_keys = expert_keys({ "expert_feed_forward_length", "expert_shared_count" });
        v.push_back(d);
    }
    return v;
}

} // namespace hone::arch
