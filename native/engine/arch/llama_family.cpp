// Architectures whose llama.cpp graph is llama's: the same tensors, norms and SwiGLU, with a
// different RoPE kind, a tensor named or added differently, RoPE skipped in some layers, or
// positions chosen by depth.
#include "hone_arch.h"

namespace hone::arch {

// llama.cpp's llama and mistral3 loaders: a file with expert_count > 0 has Mixtral's experts,
// feed_forward_length wide, in every layer
static void with_optional_experts(Desc & d) {
    d.moe = Moe::SOFTMAX_NORM_FF;
    d.experts_optional = true;
}

std::vector<Desc> llama_family() {
    std::vector<Desc> v;
    {
        Desc d = described("llama", "llama", "Llama 1–3.x, Mistral 7B, TinyLlama, SmolLM, stories260K, Mixtral",
                           "RoPE normal, optional `rope_freqs` (Llama 3), GQA, SwiGLU, optional FFN biases (read by llama.cpp's loader, so by ours); "
                           "in a file with `expert_count` (Mixtral 8x7B, 8x22B) a mixture-of-experts FFN in every layer: softmax router, top-k experts, "
                           "their weights renormalised, each expert as wide as feed_forward_length; LoRA on attention there (experts and router stay frozen)");
        with_optional_experts(d);
        v.push_back(d);
    }
    {
        Desc d = described("mistral3", "llama", "Mistral 3 family",
                           "llama's graph with its YaRN RoPE scaling and, when the file sets `attention.temperature_scale`, Q scaled per position after RoPE (log(⌊pos / original context⌋ + 1) · scale + 1); equal to llama.cpp to the last bit on the synthetic model; "
                           "experts as llama's where the file has them");
        d.attn_temperature = true;
        with_optional_experts(d);
        v.push_back(d);
    }
    v.push_back(described("deci", "llama", "Nemotron/DeciLM",
                          "llama's graph with per-layer head and FFN counts; layers without attention or FFN (a count of 0) are refused at load"));
    v.push_back(described("ernie4_5", "llama", "ERNIE 4.5 dense", "llama's graph"));
    {
        Desc d = described("ernie4_5-moe", "llama", "ERNIE 4.5 MoE (21B-A3B, 300B-A47B; text)",
                           "llama's attention; the first `leading_dense_block_count` layers with llama's FFN, the others a mixture of "
                           "experts (`interleave_moe_layer_step` 1, the only step llama.cpp runs): a softmax router, top-k on the probabilities plus the selection bias `exp_probs_b` where "
                           "the file has it, the selected weights renormalised, plus an ungated shared SwiGLU expert where the file sets "
                           "`expert_shared_feed_forward_length`; LoRA on attention and the dense FFNs (experts, shared expert and router stay frozen)");
        d.moe = Moe::SOFTMAX_NORM_BIAS;
        d.required_keys = expert_keys({ "expert_feed_forward_length", "interleave_moe_layer_step" });
        v.push_back(d);
    }
    {
        Desc d = described("exaone", "llama", "EXAONE 3.x", "llama's graph with NeoX RoPE");
        d.rope = Rope::NEOX;
        v.push_back(d);
    }
    {
        Desc d = described("smollm3", "llama", "SmolLM3", "llama's graph; no RoPE in every 4th layer (NoPE), as llama.cpp");
        d.nope_period = 4;
        v.push_back(d);
    }
    v.push_back(described("xverse", "llama", "XVERSE", "llama's graph (found by `probe-arch`: its loader and graph are llama's)"));
    {
        Desc d = described("seed_oss", "llama", "Seed-OSS", "llama's graph with NeoX RoPE; its FFN norm is stored as `post_attention_norm`");
        d.rope = Rope::NEOX;
        d.tensors.ffn_norm = "post_attention_norm.weight";
        v.push_back(d);
    }
    {
        Desc d = described("pangu-embedded", "llama", "openPangu Embedded", "llama's graph with NeoX RoPE and a bias on the output projection");
        d.rope = Rope::NEOX;
        d.tensors.out_bias = true; // required by llama.cpp's loader
        v.push_back(d);
    }
    v.push_back(described("internlm2", "llama", "InternLM2 with separate Q/K/V tensors",
                          "llama's graph with an optional bias on the output projection (a file with a fused `attn_qkv` is refused at load, naming the missing `attn_q`)"));
    {
        Desc d = described("arcee", "llama", "Arcee AFM",
                           "llama's attention; an FFN of relu(up·x)² with no gate (`ffn_gate` targets are skipped by `all`); also checked against finite differences");
        d.ffn = Ffn::RELU2;
        v.push_back(d);
    }
    {
        Desc d = described("nanbeige", "llama", "Nanbeige (without looped layers: a file with `num_loops` > 1 is refused at load)",
                           "llama's graph (found by `probe-arch`)");
        d.refuses_loops = true;
        v.push_back(d);
    }
    {
        Desc d = described("refact", "llama", "Refact",
                           "no RoPE; ALiBi (max bias 8, as llama.cpp hard-codes it), added through the mask with ggml's slopes, since ggml has no backward for SOFT_MAX's own ALiBi");
        d.positions = Positions::ALIBI;
        v.push_back(d);
    }
    {
        Desc d = described("baichuan", "llama", "Baichuan 1/2",
                           "llama's graph, positions as llama.cpp decides by depth: RoPE at 32 layers (7B), ALiBi at 40 (13B), neither at any other depth");
        d.positions = Positions::BY_DEPTH;
        v.push_back(d);
    }
    {
        Desc d = described("deepseek", "llama", "DeepSeek-MoE 16B (DeepSeek's first mixture of experts)",
                           "llama's attention; the first `leading_dense_block_count` layers with llama's FFN, the others a mixture of experts: "
                           "softmax router, top-k experts weighted as selected (times `expert_weights_scale` where set), plus `expert_shared_count` "
                           "ungated shared SwiGLU experts as one; LoRA on attention and the dense FFNs (experts, shared experts and router stay frozen)");
        d.moe = Moe::SOFTMAX_SHARED_COUNT;
        d.required_keys = expert_keys({ "expert_feed_forward_length", "expert_shared_count" });
        v.push_back(d);
    }
    {
        Desc d = described("bailingmoe", "llama", "Ling-lite, Ling-plus (Ling 1)",
                           "llama's attention with an untied head; every FFN a mixture of experts (the pinned llama.cpp's graph ignores "
                           "`leading_dense_block_count`): a softmax router, top-k experts weighted as selected (renormalised where "
                           "`expert_weights_norm`, times `expert_weights_scale` where set), plus `expert_shared_count` ungated shared SwiGLU "
                           "experts as one; LoRA on attention (experts, shared experts and router stay frozen)");
        d.moe = Moe::SOFTMAX_SHARED_COUNT;
        d.moe_norm_key = true;
        d.moe_dense_lead_key = false;
        d.tensors.output_required = true;
        d.required_keys = expert_keys({ "expert_feed_forward_length", "expert_shared_count" });
        v.push_back(d);
    }
    {
        Desc d = described("arctic", "llama", "Snowflake Arctic (480B: a 10B dense transformer with 128 x 3.66B experts)",
                           "llama's attention; in every layer a dense SwiGLU FFN on the FFN norm beside a mixture of experts as wide as "
                           "`feed_forward_length` (softmax router, top-k weights renormalised) that reads the layer's input before attention "
                           "through its own norm `ffn_norm_exps`, both joining the residual; LoRA on attention and the dense FFN (experts and "
                           "router stay frozen)");
        d.moe = Moe::SOFTMAX_NORM_PARALLEL_DENSE;
        d.required_keys = expert_keys();
        v.push_back(d);
    }
    {
        Desc d = described("bailingmoe2", "llama", "Ling 2.0, Ring 2.0 (mini 16B-A1.4B, flash 100B-A6B; the multi-token-prediction layers are not trained)",
                           "llama's norms, a fused Q/K/V, per-head Q/K norms before (partial) NeoX RoPE, an untied head; the first "
                           "`leading_dense_block_count` layers with a SwiGLU FFN, the others GLM-4.5's mixture of experts (the router's "
                           "function from `expert_gating_func`, required; the selection bias `exp_probs_b` where the file has it; "
                           "renormalised where `expert_weights_norm`, times `expert_weights_scale` where set) plus `expert_shared_count` "
                           "ungated shared experts as one, each `expert_shared_feed_forward_length` wide (else as wide as the experts); "
                           "attn_q/k/v targets train one LoRA on the fused `attn_qkv`; LoRA on attention and the dense FFNs");
        d.rope = Rope::NEOX;
        d.qk_norm = QkNorm::PER_HEAD;
        d.moe = Moe::GATED_SHARED_COUNT;
        d.moe_norm_key = true;
        d.shared_ff_key = d.shared_ff_per_expert = true;
        d.tensors.fused_qkv = true;
        d.tensors.output_required = true;
        d.required_keys = expert_keys({ "expert_feed_forward_length", "expert_shared_count", "expert_gating_func" });
        v.push_back(d);
    }
    {
        Desc d = described("exaone-moe", "llama", "EXAONE-MoE (K-EXAONE; the multi-token-prediction layers are not trained)",
                           "llama's norms with per-head Q/K norms; every `attention.sliding_window_pattern`-th layer (default 4) global "
                           "without RoPE, the others windowed with NeoX RoPE (the global base, as llama.cpp's graph); the first "
                           "`leading_dense_block_count` layers with a SwiGLU FFN, the others GLM-4.5's mixture of experts (the router's "
                           "function from `expert_gating_func`, required; the selection bias where the file has it) plus one ungated shared "
                           "expert (`expert_shared_feed_forward_length` wide, else as wide as the experts); LoRA on attention and the dense FFNs");
        d.qk_norm = QkNorm::PER_HEAD;
        d.rope = Rope::NEOX;
        d.window = { Windows::PERIODIC, WindowWhen::ALWAYS, 4, 128, 0, WindowRope::GLOBAL_NOPE };
        d.moe = Moe::GATED_SHARED_COUNT;
        d.moe_norm_key = true;
        d.shared_ff_key = true;
        d.tensors.output_required = true;
        d.required_keys = expert_keys({ "expert_feed_forward_length", "expert_gating_func", "attention.sliding_window" });
        v.push_back(d);
    }
    {
        Desc d = described("phi3", "llama", "Phi-3 mini/medium (4k and 128k), Phi-3.5-mini, Phi-4, Phi-4-mini",
                           "llama's graph with a fused Q/K/V, gate and up fused in one `ffn_up`, NeoX RoPE and Q scaled by 1/√head_dim after RoPE; "
                           "LongRoPE's short or long frequency factors as llama.cpp picks them (the long set when the context passes "
                           "`rope.scaling.original_context_length`; training: the window); no sliding windows, as the pinned llama.cpp runs it");
        d.rope = Rope::NEOX;
        d.q_scale = QScale::HEAD_DIM;
        d.tensors.fused_qkv = d.tensors.fused_gate_up = true;
        v.push_back(d);
    }
    {
        Desc d = described("phimoe", "llama", "Phi-3.5-MoE",
                           "Phi-3's attention (Q scaled after NeoX RoPE, LongRoPE's factors) with Q/K/V and output biases, RMS norms with "
                           "biases, as llama.cpp runs them, and a bias on the logits; every FFN a mixture of experts as wide as "
                           "`feed_forward_length`, softmax router, the selected weights renormalised; LoRA on attention (experts and router stay frozen)");
        d.rope = Rope::NEOX;
        d.q_scale = QScale::HEAD_DIM;
        d.moe = Moe::SOFTMAX_NORM_FF;
        d.tensors.qkv_bias = d.tensors.out_bias = d.tensors.output_bias = true;
        d.tensors.output_required = true;
        d.required_keys = expert_keys();
        v.push_back(d);
    }
    return v;
}

} // namespace hone::arch
