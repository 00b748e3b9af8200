// ChatGLM and GLM-4: fused Q/K/V, partial RoPE, gate and up fused in one ffn_up.
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
    return v;
}

} // namespace hone::arch
