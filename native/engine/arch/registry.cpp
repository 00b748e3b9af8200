// Every trainable architecture: the family tables in one list, in the order the documentation
// table and the refusal message name them.
#include "hone_arch.h"

namespace hone::arch {

Desc described(const char * name, const char * family, const char * covers, const char * details) {
    Desc d;
    d.name = name;
    d.family = family;
    d.covers = covers;
    d.details = details;
    return d;
}

std::vector<RequiredKey> expert_keys(std::initializer_list<const char *> more) {
    std::vector<RequiredKey> keys = { { "expert_count", KeyType::U32 }, { "expert_used_count", KeyType::U32 } };
    for (const char * k : more) keys.push_back({ k, KeyType::U32 });
    return keys;
}

const std::vector<Desc> & all() {
    static const std::vector<Desc> list = [] {
        std::vector<Desc> v;
        for (auto family : { llama_family, qwen_family, hunyuan_family, postnorm_family, granite_family, glm_family, plamo_family,
                             gemma_family, other_family, layernorm_family }) {
            for (Desc & d : family()) v.push_back(std::move(d));
        }
        return v;
    }();
    return list;
}

const Desc * find(const std::string & name) {
    for (const Desc & d : all()) if (d.name == name) return &d;
    return nullptr;
}

bool has_gate(Ffn f) { return f != Ffn::RELU2 && f != Ffn::GELU; }

const char * norm_eps_key(NormKind k) {
    return k == NormKind::LAYER ? "attention.layer_norm_epsilon" : "attention.layer_norm_rms_epsilon";
}

std::string bias_of(const std::string & weight) {
    const size_t dot = weight.rfind(".weight");
    return (dot == std::string::npos ? weight : weight.substr(0, dot)) + ".bias";
}

const char * name_of(Norms v) {
    switch (v) {
        case Norms::PRE: return "pre";
        case Norms::POST: return "post";
        case Norms::SANDWICH: return "sandwich";
        case Norms::PARALLEL: return "parallel";
        case Norms::WEIGHTLESS: return "weightless";
    }
    return "?";
}

const char * name_of(QkNorm v) {
    switch (v) {
        case QkNorm::IF_PRESENT: return "if_present";
        case QkNorm::PER_HEAD: return "per_head";
        case QkNorm::AFTER_ROPE: return "after_rope";
        case QkNorm::WHOLE: return "whole";
    }
    return "?";
}

const char * name_of(Ffn v) {
    switch (v) {
        case Ffn::SWIGLU: return "swiglu";
        case Ffn::GEGLU: return "geglu";
        case Ffn::RELU2: return "relu2";
        case Ffn::GELU: return "gelu";
        case Ffn::REGLU: return "reglu";
    }
    return "?";
}

bool has_shared_expert(Moe m) { return m == Moe::SOFTMAX_SHARED || m == Moe::SOFTMAX_NORM_SHARED; }

bool shared_count(Moe m) { return m == Moe::SOFTMAX_SHARED_COUNT || m == Moe::GATED_SHARED_COUNT; }

bool renormalises(Moe m) { return m == Moe::SOFTMAX_NORM || m == Moe::SOFTMAX_NORM_SHARED || m == Moe::SOFTMAX_NORM_FF || m == Moe::SOFTMAX_NORM_BIAS ||
                                  m == Moe::GATED_NORM_FF || m == Moe::SOFTMAX_NORM_BESIDE_DENSE || m == Moe::SOFTMAX_NORM_PARALLEL_DENSE ||
                                  m == Moe::GATED_NORM_RAW_ROUTER || m == Moe::SOFTMAX_NORM_OPTIONAL_DENSE; }

bool beside_dense(Moe m) { return m == Moe::SOFTMAX_NORM_BESIDE_DENSE || m == Moe::SOFTMAX_NORM_PARALLEL_DENSE || m == Moe::SOFTMAX_NORM_OPTIONAL_DENSE; }

bool selection_bias(Moe m) { return m == Moe::GATED_SHARED_COUNT || m == Moe::SOFTMAX_NORM_BIAS || m == Moe::GATED_NORM_FF; }

const char * name_of(Moe v) {
    switch (v) {
        case Moe::NONE: return "none";
        case Moe::SOFTMAX_NORM: return "softmax_norm";
        case Moe::SOFTMAX_SHARED: return "softmax_shared";
        case Moe::SOFTMAX_WEIGHT_OAI: return "softmax_weight_oai";
        case Moe::SOFTMAX_NORM_SHARED: return "softmax_norm_shared";
        case Moe::SOFTMAX_NORM_FF: return "softmax_norm_ff";
        case Moe::SOFTMAX_SHARED_COUNT: return "softmax_shared_count";
        case Moe::GATED_SHARED_COUNT: return "gated_shared_count";
        case Moe::SOFTMAX_NORM_BIAS: return "softmax_norm_bias";
        case Moe::GATED_NORM_FF: return "gated_norm_ff";
        case Moe::SOFTMAX_NORM_BESIDE_DENSE: return "softmax_norm_beside_dense";
        case Moe::SOFTMAX_NORM_PARALLEL_DENSE: return "softmax_norm_parallel_dense";
        case Moe::GATED_NORM_RAW_ROUTER: return "gated_norm_raw_router";
        case Moe::GATED_SHARED_HALF: return "gated_shared_half";
        case Moe::SOFTMAX_NORM_OPTIONAL_DENSE: return "softmax_norm_optional_dense";
    }
    return "?";
}

const char * name_of(NormKind v) {
    switch (v) {
        case NormKind::RMS: return "rms";
        case NormKind::LAYER: return "layer";
    }
    return "?";
}

const char * name_of(Positions v) {
    switch (v) {
        case Positions::ROPE: return "rope";
        case Positions::ALIBI: return "alibi";
        case Positions::ALIBI_KEY: return "alibi_key";
        case Positions::LEARNED: return "learned";
        case Positions::BY_DEPTH: return "by_depth";
    }
    return "?";
}

const char * name_of(Rope v) {
    switch (v) {
        case Rope::NORMAL: return "normal";
        case Rope::NEOX: return "neox";
        case Rope::MROPE: return "mrope";
        case Rope::IMROPE: return "imrope";
    }
    return "?";
}

} // namespace hone::arch
