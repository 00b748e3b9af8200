// LoRA adapter: F32 A/B pairs beside frozen base weights. The layout is llama.cpp's adapter
// format: A has ne = [n_in, r], B has ne = [r, n_out], so x -> B·(A·x) uses two MUL_MATs.
#pragma once

#include "hone.h"

#include "ggml-backend.h"
#include "ggml.h"
#include "gguf.h"

#include <functional>
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

// What the adapter was trained with and how it ended, written into its GGUF as hone.* keys
// (docs/adapter-format.md). The trainer keeps it current; a loaded adapter reads it back.
struct TrainingRecord {
    std::string run_config;     // the caller's configuration (JSON text); empty: untrained
    int64_t steps = 0;          // optimizer steps done
    bool has_train_loss = false, has_eval_loss = false;
    float train_loss = 0.0f;    // the last step's loss
    float eval_loss = 0.0f;     // the last evaluation's loss
    bool has_data = false;      // the trainer's data fingerprints below are known
    int32_t n_train = 0, n_eval = 0;
    uint64_t train_fp = 0, eval_fp = 0; // FNV-1a of the sequences' tokens and loss masks
};

struct hone_adapter {
    hone_model * model = nullptr;
    hone_adapter_params params{};
    ggml_context * ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    std::vector<LoraPair> pairs;
    std::map<const ggml_tensor *, size_t> by_weight; // base weight -> index in pairs

    std::vector<ggml_tensor *> fused; // every fused A (its members' `a` are views into it)
    TrainingRecord record;

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

// One LoRA pair of an adapter file, matched to the base tensor it adapts.
struct AdapterPair {
    std::string base;            // the base tensor's name ("blk.0.attn_q.weight")
    const ggml_tensor * a = nullptr, * b = nullptr; // the file's tensors (metadata; data maybe absent)
    const ggml_tensor * w = nullptr;                // the base tensor
};

// Pairs every <base>.lora_a of an adapter (tensor metadata in `meta`) with its .lora_b and the
// base tensor `base_tensor` names, as llama.cpp's loader does (norm vectors are skipped as it
// skips them), checking the architecture and every shape against the base. Every problem goes
// into one HONE_E_MISMATCH error naming the tensor and the expected and actual shapes.
std::vector<AdapterPair> match_adapter(const std::string & path, const gguf_context * g, ggml_context * meta,
                                       const std::string & base_arch, const std::string & base_desc,
                                       const std::function<const ggml_tensor *(const std::string &)> & base_tensor);

// The base tensor a target bit names in layer il (or the output head), nullptr if absent.
ggml_tensor * target_weight(const hone_model & m, uint32_t target, int il);
const char * target_name(uint32_t target);
} // namespace hone
