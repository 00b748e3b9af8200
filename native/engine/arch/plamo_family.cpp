// PLaMo: attention and FFN side by side; PLaMo 3: sandwich norms and windowed layers.
#include "hone_arch.h"

namespace hone::arch {

std::vector<Desc> plamo_family() {
    std::vector<Desc> v;
    {
        Desc d = described("plamo", "plamo", "PLaMo", "attention and FFN side by side on one norm, both added to the residual");
        d.norms = Norms::PARALLEL;
        d.rope = Rope::NEOX;
        v.push_back(d);
    }
    {
        Desc d = described("plamo3", "plamo", "PLaMo 3",
                           "fused Q/K/V, per-head Q/K norms, norms before and after attention and FFN, fused gate/up; with `sliding_window` > 0, 7 of every 8 layers (the file's pattern) are windowed with their own RoPE base (`rope.freq_base_swa`, else llama.cpp's default 10000)");
        d.norms = Norms::SANDWICH;
        d.qk_norm = QkNorm::PER_HEAD;
        d.rope = Rope::NEOX;
        d.window = { Windows::PERIODIC, WindowWhen::IF_WINDOW, 8, 0, 0, WindowRope::OWN_BASE };
        d.tensors.post_norm_suffix = ""; // its loader names the post-norms without ".weight"
        d.tensors.fused_qkv = d.tensors.fused_gate_up = true;
        v.push_back(d);
    }
    return v;
}

} // namespace hone::arch
