// Gemma 1–3: GEGLU, embeddings times √n_embd, Q scaled after RoPE; Gemma 2 and 3 add norms
// after attention and FFN, windowed layers and soft caps.
#include "hone_arch.h"

namespace hone::arch {

static Desc gemma_base(const char * name, const char * covers, const char * details) {
    Desc d = described(name, "gemma", covers, details);
    d.rope = Rope::NEOX;
    d.ffn = Ffn::GEGLU;
    d.embeddings_sqrt_scaled = true;
    d.q_scale = QScale::HEAD_DIM;
    return d;
}

std::vector<Desc> gemma_family() {
    std::vector<Desc> v;
    v.push_back(gemma_base("gemma", "Gemma (1)",
                           "llama's layout with GEGLU (its backward: patch 0005), embeddings times √n_embd, Q scaled by 1/√head_dim after RoPE"));
    {
        Desc d = gemma_base("gemma2", "Gemma 2",
                            "Gemma's plus norms after attention and FFN, attention scores and logits soft-capped (cap · tanh(x / cap): TANH's backward, patch 0005; 50 and 30 by default, as llama.cpp), every other layer windowed (4096 by default)");
        d.norms = Norms::SANDWICH;
        d.q_scale_embd_depth = 46; // the 27B scales Q by n_embd / n_head
        d.attn_softcap = { true, 50.0f };
        d.final_softcap = { true, 30.0f };
        d.window = { Windows::PERIODIC, WindowWhen::ALWAYS, 2, 4096, 0, WindowRope::SWA_BASE };
        v.push_back(d);
    }
    {
        Desc d = gemma_base("gemma3", "Gemma 3 (text)",
                            "Gemma 2's norms plus per-head Q/K norms; with a sliding window, 5 of every 6 layers windowed with their own RoPE base (`rope.freq_base_swa`, else llama.cpp's 10000) while the global layers keep the file's base and linear scaling; logits soft-capped when the file says");
        d.norms = Norms::SANDWICH;
        d.qk_norm = QkNorm::PER_HEAD;
        d.q_scale_embd_depth = 62; // the 27B
        d.final_softcap = { true, 0.0f };
        d.window = { Windows::PERIODIC, WindowWhen::IF_WINDOW, 6, 0, 0, WindowRope::OWN_BASE };
        v.push_back(d);
    }
    {
        Desc d = gemma_base("gemma4", "Gemma 4 (E2B, E4B, 26B-A4B, 31B; text)",
                            "Gemma 3's norms and per-head Q/K norms with V RMS-normed too (without attn_v, V is K's projection) and the KQ scale 1; windowed layers from the file's per-layer pattern with their own head size, rotary dims and RoPE base, `rope_freqs` in global layers only; per-layer embeddings (a frozen table plus a projection of the embeddings, added through a GELU gate after each FFN); the last `attention.shared_kv_layers` layers attend to the K and V of the last earlier layer of their kind; each layer's output times its `layer_output_scale`; in the 26B-A4B, experts beside the dense FFN in every layer with a router (a softmax router over the layer's input RMS-normed and scaled, the top k renormalised, GEGLU experts with gate and up separate or fused, each expert's output times its `ffn_down_exps.scale`), each branch with its own norms");
        d.norms = Norms::SANDWICH;
        d.qk_norm = QkNorm::PER_HEAD;
        d.q_scale = QScale::NONE;
        d.kq_unscaled = true;
        d.v_norm = true;
        d.final_softcap = { true, 0.0f };
        d.window = { Windows::PATTERN, WindowWhen::IF_WINDOW, 0, 0, 0, WindowRope::OWN_BASE };
        d.rope_factors_global = true;
        d.per_layer_embeddings = true;
        d.moe = Moe::SOFTMAX_NORM_BESIDE_DENSE;
        d.experts_optional = true; // the dense models have no expert_count
        d.tensors.scales_applied = { "ffn_gate_inp.scale", "ffn_down_exps.scale" };
        d.shared_kv = true;
        d.layer_output_scaled = true;
        d.required_keys = { { "attention.sliding_window", KeyType::U32 }, { "attention.sliding_window_pattern", KeyType::I32_ARRAY },
                            { "attention.layer_norm_rms_epsilon", KeyType::F32 }, { "embedding_length_per_layer_input", KeyType::U32 },
                            { "attention.key_length_swa", KeyType::U32 }, { "attention.value_length_swa", KeyType::U32 } };
        v.push_back(d);
    }
    return v;
}

} // namespace hone::arch
