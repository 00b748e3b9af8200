// LoRA adapter: F32 A/B pairs beside frozen base weights. The layout is llama.cpp's adapter
// format: A has ne = [n_in, r], B has ne = [r, n_out], so x -> B·(A·x) uses two MUL_MATs.
#pragma once

#include "hone.h"

#include "ggml-backend.h"
#include "ggml.h"

#include <map>
#include <string>
#include <vector>

struct LoraPair {
    std::string base_name; // e.g. "blk.0.attn_q.weight"
    ggml_tensor * a = nullptr; // a view into fused_a when the pair shares its input
    ggml_tensor * b = nullptr;
    ggml_tensor * fused_a = nullptr; // [n_in, r * members]: one A for weights reading the same input
    int slot = 0;                    // this pair's rows r*slot .. r*slot+r-1 of fused_a's output
};

struct hone_adapter {
    hone_model * model = nullptr;
    hone_adapter_params params{};
    ggml_context * ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    std::vector<LoraPair> pairs;
    std::map<const ggml_tensor *, size_t> by_weight; // base weight -> index in pairs

    std::vector<ggml_tensor *> fused; // every fused A (its members' `a` are views into it)

    float scale() const { return params.alpha / (float) params.rank; }
    // The tensors the optimizer updates: fused A's, A's of unfused pairs, and every B.
    std::vector<ggml_tensor *> trainable() const;
    const LoraPair * find(const ggml_tensor * w) const {
        auto it = by_weight.find(w);
        return it == by_weight.end() ? nullptr : &pairs[it->second];
    }
    ~hone_adapter();
};

namespace hone {
// The base tensor a target bit names in layer il (or the output head), nullptr if absent.
ggml_tensor * target_weight(const hone_model & m, uint32_t target, int il);
const char * target_name(uint32_t target);
} // namespace hone
