// Hunyuan's Qwen3-like graphs with the Q/K norms after RoPE instead of before.
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
    return v;
}

} // namespace hone::arch
