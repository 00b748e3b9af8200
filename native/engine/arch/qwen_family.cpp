// Qwen's architectures: Qwen (1) with a fused Q/K/V, Qwen2's Q/K/V biases, Qwen3's per-head
// Q/K norms, and the vision-language models' text graphs with M-RoPE.
#include "hone_arch.h"

namespace hone::arch {

// Qwen2-VL's proportions of rotary sections are the file's; make-model writes them.
static const RequiredKey SECTIONS{ "rope.dimension_sections", KeyType::I32_ARRAY };

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
        Desc d = described("qwen2", "qwen", "Qwen2, Qwen2.5", "RoPE NeoX, Q/K/V biases, tied or separate head");
        d.rope = Rope::NEOX;
        d.tensors.qkv_bias = true;
        d.typical_rope_base = 1e6f;
        d.typical_norm_eps = 1e-6f;
        v.push_back(d);
    }
    {
        Desc d = described("qwen2vl", "qwen", "Qwen2-VL (text)",
                           "Qwen2's graph with M-RoPE: rotary sections over the positions (t, t, t, 0) llama.cpp feeds text tokens; the norm epsilon is 0, as the pinned llama.cpp's loader leaves it");
        d.rope = Rope::MROPE;
        d.zero_norm_eps = true;
        d.tensors.qkv_bias = true;
        d.required_keys = { SECTIONS };
        d.typical_rope_base = 1e6f;
        d.typical_norm_eps = 1e-6f;
        v.push_back(d);
    }
    {
        Desc d = described("qwen3", "qwen", "Qwen3 (dense)", "RoPE NeoX, per-head Q/K RMS norms, head_dim independent of n_embd");
        d.rope = Rope::NEOX;
        d.qk_norm = QkNorm::PER_HEAD;
        d.typical_rope_base = 1e6f;
        d.typical_norm_eps = 1e-6f;
        v.push_back(d);
    }
    {
        Desc d = described("qwen3vl", "qwen", "Qwen3-VL (text; deepstack inputs are zero for text)",
                           "Qwen3's graph with interleaved M-RoPE; also checked against finite differences");
        d.rope = Rope::IMROPE;
        d.qk_norm = QkNorm::PER_HEAD;
        d.required_keys = { SECTIONS };
        d.typical_rope_base = 1e6f;
        d.typical_norm_eps = 1e-6f;
        v.push_back(d);
    }
    {
        Desc d = described("qwen3tts", "qwen", "Qwen3-TTS (text)", "Qwen3-VL's graph, as llama.cpp runs it");
        d.rope = Rope::IMROPE;
        d.qk_norm = QkNorm::PER_HEAD;
        d.required_keys = { SECTIONS };
        d.typical_rope_base = 1e6f;
        d.typical_norm_eps = 1e-6f;
        v.push_back(d);
    }
    return v;
}

} // namespace hone::arch
