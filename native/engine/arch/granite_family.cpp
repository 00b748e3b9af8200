// Granite-style scales on llama's graph: embeddings, residual branches, logits and attention.
#include "hone_arch.h"

namespace hone::arch {

std::vector<Desc> granite_family() {
    std::vector<Desc> v;
    {
        Desc d = described("minicpm", "granite", "MiniCPM (1/2)",
                           "llama's graph with Granite-style scales: embeddings, residual branches, logits (llama.cpp's defaults when the keys are absent)");
        d.scales = Scales::MINICPM;
        v.push_back(d);
    }
    {
        Desc d = described("granite", "granite", "Granite 3.x dense", "the same scales, read from the file, and its attention scale; granitemoe's experts where the file has `expert_count` (llama.cpp's granite loader reads them)");
        d.scales = Scales::GRANITE;
        d.required_keys = { { "logit_scale", KeyType::F32 } };
        d.moe = Moe::SOFTMAX_NORM_FF; // llama.cpp's granite loader: granitemoe's experts where the file has them
        d.experts_optional = d.shared_ff_key = true;
        v.push_back(d);
    }
    {
        Desc d = described("granitemoe", "granite", "Granite 3.x MoE (1B-A400M, 3B-A800M), Granite MoE Shared",
                           "Granite's scales and attention; a mixture-of-experts FFN in every layer (softmax router, top-k experts, their weights renormalised, "
                           "each expert as wide as feed_forward_length) plus, where `expert_shared_feed_forward_length` is set, an ungated shared SwiGLU "
                           "expert; LoRA on attention (experts, shared expert and router stay frozen)");
        d.scales = Scales::GRANITE;
        d.moe = Moe::SOFTMAX_NORM_FF;
        d.shared_ff_key = true;
        d.required_keys = { { "logit_scale", KeyType::F32 }, { "expert_count", KeyType::U32 }, { "expert_used_count", KeyType::U32 } };
        v.push_back(d);
    }
    {
        Desc d = described("granite_swa", "granite", "Granite 4 (dense)",
                           "Granite's scales; a sink logit per head in every softmax (its backward to the scores is softmax's own); windowed layers and RoPE layers from the file's per-layer patterns; deepstack inputs are refused");
        d.scales = Scales::GRANITE;
        d.window.layout = Windows::PATTERN;
        d.tensors.sinks_required = true;
        d.required_keys = { { "logit_scale", KeyType::F32 }, { "attention.sliding_window", KeyType::U32 },
                            { "attention.sliding_window_pattern", KeyType::I32_ARRAY } };
        v.push_back(d);
    }
    return v;
}

} // namespace hone::arch
