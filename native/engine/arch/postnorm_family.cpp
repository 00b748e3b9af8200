// OLMo 2 and EXAONE 4: no pre-norms; RMS norms after attention and after the FFN.
#include "hone_arch.h"

namespace hone::arch {

std::vector<Desc> postnorm_family() {
    std::vector<Desc> v;
    {
        Desc d = described("olmo2", "postnorm", "OLMo 2, OLMo 3",
                           "its own layout: no pre-norms, RMS norms after attention and after the FFN, Q/K norms over the whole projections, NeoX RoPE; OLMo 3's sliding-window layers (3 of every 4) attend to the last `sliding_window` positions with plain RoPE (no YaRN), its global layers with the file's YaRN; also checked against finite differences");
        d.norms = Norms::POST;
        d.qk_norm = QkNorm::WHOLE;
        d.rope = Rope::NEOX;
        d.window = { Windows::PERIODIC, WindowWhen::IF_WINDOW, 4, 0, 0, WindowRope::UNSCALED }; // OLMo 3
        d.typical_rope_base = 1e6f;
        d.typical_norm_eps = 1e-6f;
        v.push_back(d);
    }
    {
        Desc d = described("exaone4", "postnorm", "EXAONE 4 (1.2B, 32B)",
                           "OLMo 2's post-norm layout with per-head Q/K norms before NeoX RoPE; the 32B's (64 layers) sliding-window layers have RoPE and its global layers none, as llama.cpp runs them; also checked against finite differences");
        d.norms = Norms::POST;
        d.qk_norm = QkNorm::PER_HEAD;
        d.rope = Rope::NEOX;
        d.window = { Windows::PERIODIC, WindowWhen::AT_DEPTH, 4, 4096, 64, WindowRope::GLOBAL_NOPE }; // the 32B
        d.typical_rope_base = 1e6f;
        d.typical_norm_eps = 1e-6f;
        v.push_back(d);
    }
    return v;
}

} // namespace hone::arch
