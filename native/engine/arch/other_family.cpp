// Single architectures with a trait of their own: CogVLM's thirds, Talkie's weightless norms
// and embedding skips, BitNet's sub-norms, gpt-oss's, dots.llm1's and MiniMax-M2's experts, OpenELM's per-layer counts.
#include "hone_arch.h"

namespace hone::arch {

std::vector<Desc> other_family() {
    std::vector<Desc> v;
    {
        Desc d = described("cogvlm", "other", "CogVLM (text)",
                           "fused Q/K/V in three equal parts, `ggml_rope`'s fixed base 10000; the vision-expert weights are not used for text");
        d.rope = Rope::NEOX;
        d.rope_base = RopeBase::FIXED_DEFAULTS;
        d.qkv_thirds = true;
        d.tensors.fused_qkv = true;
        v.push_back(d);
    }
    {
        Desc d = described("talkie", "other", "Talkie",
                           "RMS norms without weights, normed embeddings added back in every layer times its `layer_output_scale`, a per-head Q norm and a weightless K norm after RoPE, logits times `logit_scale`");
        d.rope = Rope::NEOX;
        d.norms = Norms::WEIGHTLESS;
        d.qk_norm = QkNorm::AFTER_ROPE;
        d.embeddings_skip = true;
        d.scales = Scales::LOGIT_MULTIPLIED;
        d.tensors.output_required = true;
        d.required_keys = { { "logit_scale", KeyType::F32 } };
        v.push_back(d);
    }
    {
        Desc d = described("bitnet", "other", "BitNet b1.58",
                           "sub-norms before `attn_output` and `ffn_down`; the head is `token_embd`. Files with per-tensor weight scales (`*.scale`, any architecture) are refused");
        d.rope = Rope::NEOX;
        d.always_tied = true;
        v.push_back(d);
    }
    {
        Desc d = described("dots1", "other", "dots.llm1 (142B-A14B)",
                           "llama's norms, per-head Q/K norms before NeoX RoPE, K/V heads as many as Q heads (the loader's shapes), an untied head; "
                           "the first `leading_dense_block_count` layers with a SwiGLU FFN, the others GLM-4.5's mixture of experts (the router's "
                           "function from `expert_gating_func`, required; the selection bias `exp_probs_b` where the file has it); LoRA on "
                           "attention and the dense FFNs (experts, shared experts and router stay frozen)");
        d.rope = Rope::NEOX;
        d.qk_norm = QkNorm::PER_HEAD;
        d.moe = Moe::GATED_SHARED_COUNT;
        d.moe_norm_key = true; // moe_gating_default 0: llama.cpp has no default router for dots1
        d.tensors.output_required = true;
        d.required_keys = expert_keys({ "expert_feed_forward_length", "expert_shared_count", "expert_gating_func" });
        v.push_back(d);
    }
    {
        Desc d = described("minimax-m2", "other", "MiniMax-M2 (230B-A10B)",
                           "llama's norms, RMS norms over the whole Q and K projections before partial NeoX RoPE, an untied head; every FFN "
                           "a mixture of experts as wide as `feed_forward_length` (as the loader shapes them): the router's function from "
                           "`expert_gating_func` (required), top-k on the probabilities plus the selection bias `exp_probs_b`, the selected "
                           "weights renormalised; LoRA on attention (experts and router stay frozen)");
        d.rope = Rope::NEOX;
        d.qk_norm = QkNorm::WHOLE;
        d.moe = Moe::GATED_NORM_FF; // moe_gating_default 0: llama.cpp has no default router for minimax-m2
        d.tensors.output_required = true;
        d.tensors.exp_probs_b_required = true;
        d.required_keys = expert_keys({ "expert_feed_forward_length", "expert_gating_func" });
        v.push_back(d);
    }
    {
        Desc d = described("mellum", "other", "Mellum (12B-A2.5B)",
                           "llama's norms, per-head Q/K norms before NeoX RoPE, an untied head; with a sliding window, every layer but the last "
                           "of each `attention.sliding_window_pattern` (4 by default) windowed, with plain RoPE at the global base (no YaRN, as "
                           "its graph runs them); every FFN a mixture of experts: softmax router, top-k weights renormalised, experts "
                           "`expert_feed_forward_length` wide (else feed_forward_length / expert_used_count); LoRA on attention (experts "
                           "and router stay frozen)");
        d.rope = Rope::NEOX;
        d.qk_norm = QkNorm::PER_HEAD;
        d.moe = Moe::SOFTMAX_NORM;
        d.window = { Windows::PERIODIC, WindowWhen::IF_WINDOW, 4, 0, 0, WindowRope::GLOBAL_UNSCALED };
        d.tensors.output_required = true;
        d.required_keys = expert_keys();
        v.push_back(d);
    }
    {
        Desc d = described("smallthinker", "other", "SmallThinker (4B-A0.6B, 21B-A3B)",
                           "llama's norms and attention with NeoX RoPE; with a sliding window (4096 positions whatever size the file gives, "
                           "as llama.cpp's loader sets it), every layer but the first of each 4 windowed with RoPE at `rope.freq_base_swa` "
                           "(else the global base), the first without RoPE; every FFN a mixture of experts whose router reads the layer's "
                           "input before its norm: the router's function from `expert_gating_func` (required), top-k weights "
                           "renormalised, ReLU-gated experts (relu(gate)·up) `expert_feed_forward_length` wide; LoRA on attention "
                           "(experts and router stay frozen)");
        d.rope = Rope::NEOX;
        d.ffn = Ffn::REGLU;
        d.moe = Moe::GATED_NORM_RAW_ROUTER;
        d.window = { Windows::PERIODIC_FIRST_GLOBAL, WindowWhen::IF_WINDOW, 4, 4096, 0, WindowRope::SWA_BASE_GLOBAL_NOPE, true };
        d.required_keys = expert_keys({ "expert_feed_forward_length", "expert_gating_func" });
        v.push_back(d);
    }
    {
        Desc d = described("grok", "other", "Grok-1 (314B), Grok-2 (270B)",
                           "llama's norms plus norms after attention (`attn_output_norm`) and after the FFN (`layer_output_norm`, else "
                           "`post_ffw_norm`); NeoX RoPE; the scores times `attention.output_scale` and soft-capped at "
                           "`attn_logit_softcapping` (30 by default), the KQ scale 1; every FFN a mixture of GEGLU experts (softmax "
                           "router, top-k renormalised, `expert_feed_forward_length` wide, else feed_forward_length), summed with a "
                           "dense GEGLU FFN times √½ where the layer has one; embeddings times `embedding_scale` and logits times "
                           "`logit_scale` (llama.cpp's defaults where absent), the final soft cap where the file sets one; YaRN "
                           "scaling refused; LoRA on attention and the dense FFNs (experts and router stay frozen)");
        d.rope = Rope::NEOX;
        d.norms = Norms::SANDWICH;
        d.tensors.grok_post_norms = true;
        d.ffn = Ffn::GEGLU;
        d.moe = Moe::SOFTMAX_NORM_OPTIONAL_DENSE;
        d.q_scale = QScale::OUTPUT_SCALE_KEY;
        d.scales = Scales::GROK;
        d.attn_softcap = { true, 30.0f };
        d.final_softcap = { true, 0.0f };
        d.required_keys = expert_keys();
        v.push_back(d);
    }
    {
        Desc d = described("gpt-oss", "other", "gpt-oss (20B, 120B)",
                           "attention with Q/K/V and output biases, a sink logit per head, NeoX RoPE (YaRN from the file), every other layer windowed; a mixture-of-experts FFN on the `post_attention_norm`: a router with a bias, top-k on its logits, the selected logits' softmax as weights, experts with biases and SwiGLU-OAI (ggml's ADD_ID and SWIGLU_OAI written as ops with a backward: GET_ROWS + ADD, CLAMP, SILU, MUL); LoRA on attention (experts and router stay frozen)");
        d.rope = Rope::NEOX;
        d.typical_rope_base = 150000.0f;
        d.tensors.qkv_bias = true;
        d.tensors.out_bias = true;
        d.tensors.sinks_required = true;
        d.tensors.ffn_norm = "post_attention_norm.weight";
        d.window = { Windows::PERIODIC, WindowWhen::IF_WINDOW, 2, 0, 0, WindowRope::SAME };
        d.moe = Moe::SOFTMAX_WEIGHT_OAI;
        d.required_keys = expert_keys({ "expert_feed_forward_length", "attention.sliding_window" });
        v.push_back(d);
    }
    {
        Desc d = described("openelm", "other", "OpenELM", "per-layer head and FFN counts, fused Q/K/V, per-head Q/K norms; the head is `token_embd`");
        d.rope = Rope::NEOX;
        d.qk_norm = QkNorm::PER_HEAD;
        d.always_tied = true;
        d.tensors.fused_qkv = true;
        v.push_back(d);
    }
    return v;
}

} // namespace hone::arch
