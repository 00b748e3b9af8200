// Hunyuan's Qwen3-like graphs with the Q/K norms after RoPE instead of before (and Hunyuan-A13B's experts).
#include "hone_arch.h"

namespace hone::arch {

std::vector<Desc> hunyuan_family() {
    std::vector<Desc> v;
    {
        Desc d = described("hunyuan-dense", "hunyuan", "Hunyuan dense", "Qwen3's graph with the Q/K RMS norms after RoPE instead of before");
        d.rope = Rope::NEOX;
        d.qk_norm = QkNorm::AFTER_ROPE;
        d.typical_rope_base = 1e6f;
        d.typical_norm_eps = 1e-6f;
        v.push_back(d);
    }
    {
        Desc d = described("maincoder", "hunyuan", "Maincoder",
                           "Hunyuan's graph (Qwen3's with the Q/K norms after RoPE) with normal RoPE and an optional output-projection bias");
        d.qk_norm = QkNorm::AFTER_ROPE;
        d.typical_rope_base = 1e6f;
        d.typical_norm_eps = 1e-6f;
        v.push_back(d);
    }
    {
        Desc d = described("hunyuan_vl", "hunyuan", "HunYuan-VL (text)",
                           "Hunyuan's graph (Q/K norms after RoPE); M-RoPE when the file has rope sections; the NTK-aware base, base · α^(d/(d−2)) with `rope.scaling.alpha`");
        d.rope = Rope::NEOX;
        d.qk_norm = QkNorm::AFTER_ROPE;
        d.mrope_if_sections = true;
        d.rope_base = RopeBase::NTK_ALPHA;
        v.push_back(d);
    }
    {
        Desc d = described("hunyuan-moe", "hunyuan", "Hunyuan-A13B",
                           "Hunyuan's graph (Q/K norms after NeoX RoPE); every FFN a mixture of experts as wide as `feed_forward_length`: a softmax "
                           "router, the selected weights renormalised, plus an ungated shared SwiGLU expert (`expert_shared_feed_forward_length` "
                           "wide, else `feed_forward_length`); LoRA on attention (experts, shared expert and router stay frozen)");
        d.rope = Rope::NEOX;
        d.qk_norm = QkNorm::AFTER_ROPE;
        d.moe = Moe::SOFTMAX_NORM_FF;
        d.shared_ff_key = d.shared_ff_always = true;
        d.typical_rope_base = 1e6f;
        d.typical_norm_eps = 1e-6f;
        d.required_keys = expert_keys();
        v.push_back(d);
    }
    return v;
}

} // namespace hone::arch
