#include "lora.h"
#include "hone_tools.h"

#include "error.h"
#include "hone_test.h"
#include "model.h"

#include "ggml-alloc.h"

#include "gguf.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

using namespace hone;

// Flushes a written file to disk, so the rename that follows cannot outlive its contents
// across a power cut. (A killed process needs only the rename; Windows: best effort.)
static void sync_file(const std::string & path) {
#ifndef _WIN32
    const int fd = open(path.c_str(), O_RDONLY);
    if (fd >= 0) { fsync(fd); close(fd); }
#else
    (void) path;
#endif
}

static const struct { uint32_t bit; const char * name; } TARGETS[] = {
    { HONE_TARGET_ATTN_Q, "attn_q" },     { HONE_TARGET_ATTN_K, "attn_k" },     { HONE_TARGET_ATTN_V, "attn_v" },
    { HONE_TARGET_ATTN_OUT, "attn_output" }, { HONE_TARGET_FFN_GATE, "ffn_gate" }, { HONE_TARGET_FFN_UP, "ffn_up" },
    { HONE_TARGET_FFN_DOWN, "ffn_down" }, { HONE_TARGET_OUTPUT, "output" },
};

namespace hone {

const char * target_name(uint32_t target) {
    for (auto & t : TARGETS) if (t.bit == target) return t.name;
    return "?";
}

ggml_tensor * target_weight(const hone_model & m, uint32_t target, int il) {
    if (target == HONE_TARGET_OUTPUT) return m.output;
    if (m.hp.desc->no_lora_out_down && (target == HONE_TARGET_ATTN_OUT || target == HONE_TARGET_FFN_DOWN)) return nullptr;
    const LayerWeights & L = m.layers[il];
    switch (target) {
        // a fused attn_qkv carries one LoRA for all three (llama.cpp adapts tensors, not slices)
        case HONE_TARGET_ATTN_Q: return L.wqkv ? L.wqkv : L.wq;
        case HONE_TARGET_ATTN_K: return L.wqkv ? L.wqkv : L.wk;
        case HONE_TARGET_ATTN_V: return L.wqkv ? L.wqkv : L.wv;
        case HONE_TARGET_ATTN_OUT: return L.wo ? L.wo : L.ssm_out; // a delta-net layer's output projection
        case HONE_TARGET_FFN_GATE: return L.ffn_gate;
        case HONE_TARGET_FFN_UP: return L.ffn_up;
        case HONE_TARGET_FFN_DOWN: return L.ffn_down;
        default: return nullptr;
    }
}

static std::string shape(const ggml_tensor * t) {
    std::string s = strfmt("[%lld", (long long) t->ne[0]);
    for (int d = 1; d < ggml_n_dims(t); d++) s += strfmt(", %lld", (long long) t->ne[d]);
    return s + (ggml_n_dims(t) == 1 ? ", 1]" : "]");
}

std::vector<AdapterPair> match_adapter(const std::string & path, const gguf_context * g, ggml_context * meta,
                                       const std::string & base_arch, const std::string & base_desc,
                                       const std::function<const ggml_tensor *(const std::string &)> & base_tensor) {
    if (gguf_str(g, "general.type") != "adapter" || gguf_str(g, "adapter.type") != "lora") {
        fail(HONE_E_FORMAT, "%s: not a LoRA adapter (general.type must be 'adapter', adapter.type 'lora')", path.c_str());
    }
    std::vector<std::string> problems;
    auto problem = [&](std::string m) { problems.push_back(std::move(m)); };
    const std::string arch = gguf_str(g, "general.architecture");
    if (arch != base_arch) problem(strfmt("architecture: the adapter is for '%s', the base is '%s'", arch.c_str(), base_arch.c_str()));
    std::map<std::string, AdapterPair> pairs; // by base name
    std::vector<std::string> order;           // base names in file order
    auto pair_of = [&](const std::string & base) -> AdapterPair & {
        if (!pairs.count(base)) order.push_back(base);
        return pairs[base];
    };
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++) {
        const std::string name = gguf_get_tensor_name(g, i);
        ggml_tensor * t = ggml_get_tensor(meta, name.c_str());
        if (ends_with(name, ".lora_a")) pair_of(name.substr(0, name.size() - 7)).a = t;
        else if (ends_with(name, ".lora_b")) pair_of(name.substr(0, name.size() - 7)).b = t;
        else if (ends_with(name, "_norm.weight")) continue; // llama.cpp skips these too
        else problem(strfmt("'%s' is neither a .lora_a nor a .lora_b tensor", name.c_str()));
    }
    std::vector<AdapterPair> out;
    for (const std::string & base : order) {
        AdapterPair & p = pairs[base];
        p.base = base;
        if (!p.a || !p.b) { problem(strfmt("'%s' has a %s but no %s", base.c_str(), p.a ? "lora_a" : "lora_b", p.a ? "lora_b" : "lora_a")); continue; }
        p.w = base_tensor(base);
        if (!p.w) { problem(strfmt("'%s' is not a tensor of the base model", base.c_str())); continue; }
        if (ggml_n_dims(p.a) > 2 || ggml_n_dims(p.b) > 2 || ggml_n_dims(p.w) > 2) {
            problem(strfmt("'%s': LoRA on 3-D (expert) tensors is not supported (base %s)", base.c_str(), shape(p.w).c_str()));
            continue;
        }
        const ggml_tensor * a = p.a, * b = p.b, * w = p.w;
        if (ends_with(base, "token_embd.weight")) {
            // llama.cpp's convention for the embedding: A is [r, n_vocab] (rows gathered by token), B [r, n_embd]
            if (a->ne[1] != w->ne[1] || b->ne[1] != w->ne[0] || a->ne[0] != b->ne[0]) {
                problem(strfmt("'%s': lora_a %s and lora_b %s do not fit the base %s (expected [r, %lld] and [r, %lld])", base.c_str(),
                                   shape(a).c_str(), shape(b).c_str(), shape(w).c_str(), (long long) w->ne[1], (long long) w->ne[0]));
            } else {
                out.push_back(p);
            }
            continue;
        }
        const int64_t r = a->ne[1];
        if (a->ne[0] != w->ne[0] || b->ne[1] != w->ne[1] || b->ne[0] != r) {
            problem(strfmt("'%s': lora_a %s and lora_b %s do not fit the base's %s (expected [%lld, %lld] and [%lld, %lld])", base.c_str(),
                           shape(a).c_str(), shape(b).c_str(), shape(w).c_str(), (long long) w->ne[0], (long long) r, (long long) r, (long long) w->ne[1]));
            continue;
        }
        out.push_back(p);
    }
    if (!problems.empty()) {
        // the first few, and how many more (an adapter for another model size differs everywhere)
        std::string list;
        const size_t shown = std::min<size_t>(problems.size(), 6);
        for (size_t i = 0; i < shown; i++) list += "\n  " + problems[i];
        if (problems.size() > shown) list += strfmt("\n  ... and %zu more", problems.size() - shown);
        fail(HONE_E_MISMATCH, "%s: this adapter does not fit %s:%s", path.c_str(), base_desc.c_str(), list.c_str());
    }
    if (out.empty()) fail(HONE_E_FORMAT, "%s: the adapter has no LoRA tensors", path.c_str());
    return out;
}

} // namespace hone

hone_adapter::~hone_adapter() {
    if (buf) ggml_backend_buffer_free(buf);
    if (ctx) ggml_free(ctx);
}

// The weights of one layer that multiply the same input: q/k/v read the attention norm's
// output, gate/up the FFN norm's. -1 for the others.
static int input_group(const hone_model & m, const ggml_tensor * w) {
    for (size_t il = 0; il < m.layers.size(); il++) {
        const LayerWeights & L = m.layers[il];
        if (w == L.wq || w == L.wk || w == L.wv) return (int) il * 2;
        if (w == L.ffn_gate || w == L.ffn_up) return (int) il * 2 + 1;
    }
    return -1;
}

std::vector<ggml_tensor *> hone_adapter::trainable() const {
    std::vector<ggml_tensor *> out(fused.begin(), fused.end());
    for (auto & p : pairs) {
        if (!p.fused_a) out.push_back(p.a);
        out.push_back(p.b);
    }
    return out;
}

// One buffer for every A and B, zeroed, its size a multiple of 256 bytes: the optimizer can then
// read the whole buffer as one flat tensor of 64-element rows (AdamW once over every parameter,
// the gaps between tensors zero and staying zero).
static void alloc_adapter_buffer(hone_adapter & ad) {
    ggml_backend_buffer_type_t bt = ggml_backend_get_default_buffer_type(ad.model->backends.primary);
    const size_t align = ggml_backend_buft_get_alignment(bt);
    size_t size = 0;
    for (ggml_tensor * t = ggml_get_first_tensor(ad.ctx); t; t = ggml_get_next_tensor(ad.ctx, t)) {
        if (!t->view_src) size += GGML_PAD(ggml_backend_buft_get_alloc_size(bt, t), align);
    }
    size = GGML_PAD(size, 256);
    if (size > ggml_backend_buft_get_max_size(bt)) fail(HONE_E_MEMORY, "the adapter (%zu bytes) exceeds one %s buffer", size, ggml_backend_buft_name(bt));
    ad.buf = ggml_backend_buft_alloc_buffer(bt, size);
    if (!ad.buf) fail(HONE_E_MEMORY, "not enough %s memory for the adapter", ggml_backend_name(ad.model->backends.primary));
    ggml_tallocr ta = ggml_tallocr_new(ad.buf);
    for (ggml_tensor * t = ggml_get_first_tensor(ad.ctx); t; t = ggml_get_next_tensor(ad.ctx, t)) {
        if (!t->view_src && ggml_tallocr_alloc(&ta, t) != GGML_STATUS_SUCCESS) fail(HONE_E_INTERNAL, "cannot place %s in the adapter buffer", t->name);
    }
    for (ggml_tensor * t = ggml_get_first_tensor(ad.ctx); t; t = ggml_get_next_tensor(ad.ctx, t)) {
        if (t->view_src && ggml_backend_view_init(t) != GGML_STATUS_SUCCESS) fail(HONE_E_INTERNAL, "cannot place %s in the adapter buffer", t->name);
    }
    ggml_backend_buffer_clear(ad.buf, 0);
}

// Creates the A/B tensors (uninitialised) for every (target, layer) pair, on the model's
// primary backend, with shapes from the base weights. Pairs whose weights read the same input
// with the same rank share one A of r * members rows (each pair's A a view of its rows): the
// graph then multiplies that input once, and the backward pass computes one A gradient and
// one input gradient for the group instead of one per weight.
static void create_pairs(hone_adapter & ad, const std::vector<std::pair<ggml_tensor *, int>> & weights) {
    ggml_init_params ip = { ggml_tensor_overhead() * (weights.size() * 3 + 1), nullptr, true };
    ad.ctx = ggml_init(ip);
    std::map<int, std::vector<size_t>> groups;
    for (size_t i = 0; i < weights.size(); i++) {
        const int g = input_group(*ad.model, weights[i].first);
        if (g >= 0) groups[g].push_back(i);
    }
    std::vector<ggml_tensor *> fused_of(weights.size(), nullptr);
    std::vector<int> slot_of(weights.size(), 0);
    for (auto & [g, members] : groups) {
        const int rank = weights[members[0]].second;
        bool same_rank = members.size() > 1;
        for (size_t i : members) same_rank = same_rank && weights[i].second == rank;
        if (!same_rank) continue;
        ggml_tensor * f = ggml_new_tensor_2d(ad.ctx, GGML_TYPE_F32, weights[members[0]].first->ne[0], (int64_t) rank * members.size());
        ggml_format_name(f, "blk.%d.%s.lora_a", g / 2, g % 2 == 0 ? "attn_qkv" : "ffn_gate_up");
        ad.fused.push_back(f);
        for (size_t k = 0; k < members.size(); k++) { fused_of[members[k]] = f; slot_of[members[k]] = (int) k; }
    }
    for (size_t i = 0; i < weights.size(); i++) {
        ggml_tensor * w = weights[i].first;
        const int rank = weights[i].second;
        LoraPair p;
        p.base_name = w->name;
        p.fused_a = fused_of[i];
        p.slot = slot_of[i];
        p.a = p.fused_a ? ggml_view_2d(ad.ctx, p.fused_a, w->ne[0], rank, p.fused_a->nb[1], (size_t) p.slot * rank * p.fused_a->nb[1])
                        : ggml_new_tensor_2d(ad.ctx, GGML_TYPE_F32, w->ne[0], rank);
        p.b = ggml_new_tensor_2d(ad.ctx, GGML_TYPE_F32, rank, w->ne[1]);
        ggml_format_name(p.a, "%s.lora_a", w->name);
        ggml_format_name(p.b, "%s.lora_b", w->name);
        ad.by_weight[w] = ad.pairs.size();
        ad.pairs.push_back(p);
    }
    alloc_adapter_buffer(ad);
}

static void set_f32(ggml_tensor * t, const std::vector<float> & v) { ggml_backend_tensor_set(t, v.data(), 0, v.size() * sizeof(float)); }

static std::vector<float> get_f32(const ggml_tensor * t) {
    std::vector<float> v(ggml_nelements(t));
    ggml_backend_tensor_get(t, v.data(), 0, v.size() * sizeof(float));
    return v;
}

// The hone.* keys (docs/adapter-format.md): what trained the adapter and on which base.
static void write_record(gguf_context * g, const hone_adapter & ad) {
    const hone_model & m = *ad.model;
    const TrainingRecord & r = ad.record;
    const FileFingerprint fp = gguf_fingerprint(m.path, m.gguf);
    gguf_set_val_u32(g, "hone.format_version", 1);
    gguf_set_val_str(g, "hone.base.file", utf8_string(utf8_path(m.path).filename()).c_str());
    gguf_set_val_str(g, "hone.base.name", m.name.c_str());
    gguf_set_val_u64(g, "hone.base.size", fp.size);
    gguf_set_val_str(g, "hone.base.fingerprint", hex64(fp.hash).c_str());
    char targets[256];
    hone_format_targets(ad.params.targets, targets, sizeof(targets));
    gguf_set_val_u32(g, "hone.lora.rank", (uint32_t) ad.params.rank);
    gguf_set_val_str(g, "hone.lora.targets", targets);
    if (r.run_config.empty()) return; // never trained: no training keys
    gguf_set_val_str(g, "hone.training.config", r.run_config.c_str());
    gguf_set_val_u64(g, "hone.training.steps", (uint64_t) r.steps);
    if (r.has_train_loss) gguf_set_val_f32(g, "hone.training.train_loss", r.train_loss);
    if (r.has_eval_loss) gguf_set_val_f32(g, "hone.training.eval_loss", r.eval_loss);
    if (r.has_data) {
        gguf_set_val_u32(g, "hone.dataset.train_sequences", (uint32_t) r.n_train);
        gguf_set_val_str(g, "hone.dataset.train_digest", hex64(r.train_fp).c_str());
        gguf_set_val_u32(g, "hone.dataset.eval_sequences", (uint32_t) r.n_eval);
        gguf_set_val_str(g, "hone.dataset.eval_digest", hex64(r.eval_fp).c_str());
    }
}

// A loaded adapter keeps its training record, so saving it again keeps the hone.* keys.
static void read_record(const gguf_context * g, TrainingRecord & r) {
    r.run_config = gguf_str(g, "hone.training.config");
    if (r.run_config.empty()) return;
    const int64_t steps = gguf_find_key(g, "hone.training.steps");
    if (steps >= 0 && gguf_get_kv_type(g, steps) == GGUF_TYPE_UINT64) r.steps = (int64_t) gguf_get_val_u64(g, steps);
    r.has_train_loss = gguf_find_key(g, "hone.training.train_loss") >= 0;
    r.train_loss = gguf_f32(g, "hone.training.train_loss", 0.0f);
    r.has_eval_loss = gguf_find_key(g, "hone.training.eval_loss") >= 0;
    r.eval_loss = gguf_f32(g, "hone.training.eval_loss", 0.0f);
    const std::string train_fp = gguf_str(g, "hone.dataset.train_digest"), eval_fp = gguf_str(g, "hone.dataset.eval_digest");
    if (train_fp.size() == 16 && eval_fp.size() == 16) {
        r.has_data = true;
        r.n_train = (int32_t) gguf_u32(g, "hone.dataset.train_sequences", false);
        r.n_eval = (int32_t) gguf_u32(g, "hone.dataset.eval_sequences", false);
        r.train_fp = std::stoull(train_fp, nullptr, 16);
        r.eval_fp = std::stoull(eval_fp, nullptr, 16);
    }
}

extern "C" {

hone_status hone_parse_targets(const char * list, uint32_t * mask, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(list && mask, "targets are required");
        uint32_t m = 0;
        std::string s(list), unknown;
        size_t pos = 0;
        while (pos <= s.size()) {
            size_t end = s.find(',', pos);
            if (end == std::string::npos) end = s.size();
            std::string name = s.substr(pos, end - pos);
            pos = end + 1;
            if (name.empty()) continue;
            if (name == "all") { m |= 0x7F; continue; }
            bool found = false;
            for (auto & t : TARGETS) if (name == t.name) { m |= t.bit; found = true; }
            if (!found) unknown += (unknown.empty() ? "" : ", ") + name;
        }
        if (!unknown.empty()) {
            fail(HONE_E_INVALID_ARG, "unknown target module(s): %s (known: attn_q, attn_k, attn_v, attn_output, ffn_gate, ffn_up, ffn_down, output)", unknown.c_str());
        }
        if (m == 0) fail(HONE_E_INVALID_ARG, "no target modules given");
        *mask = m;
    });
}

void hone_format_targets(uint32_t mask, char * buf, size_t size) {
    std::string s;
    for (auto & t : TARGETS) if (mask & t.bit) s += (s.empty() ? "" : ",") + std::string(t.name);
    snprintf(buf, size, "%s", s.c_str());
}

hone_adapter_params hone_adapter_default_params(void) {
    hone_adapter_params p;
    p.rank = 8;
    p.alpha = 16.0f;
    p.targets = HONE_TARGET_ATTN_Q | HONE_TARGET_ATTN_K | HONE_TARGET_ATTN_V | HONE_TARGET_ATTN_OUT |
                HONE_TARGET_FFN_GATE | HONE_TARGET_FFN_UP | HONE_TARGET_FFN_DOWN;
    p.seed = 42;
    return p;
}

hone_status hone_adapter_init(hone_model * model, const hone_adapter_params * params, hone_adapter ** out, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(model && params && out, "model and adapter params are required");
        HONE_CHECK_ARG(params->rank >= 1, "LoRA rank must be at least 1 (got %d)", params->rank);
        HONE_CHECK_ARG(params->alpha > 0.0f, "LoRA alpha must be positive (got %g)", params->alpha);
        HONE_CHECK_ARG(params->targets != 0 && (params->targets & ~0xFFu) == 0, "invalid target mask 0x%x", params->targets);
        if ((params->targets & HONE_TARGET_OUTPUT) && model->tied_output) {
            fail(HONE_E_INVALID_ARG, "target 'output' is not possible on this model: its output head is tied to token_embd, and "
                 "llama.cpp's adapter format would apply that LoRA to the input embedding instead");
        }
        std::vector<std::pair<ggml_tensor *, int>> weights;
        for (auto & t : TARGETS) {
            if (!(params->targets & t.bit)) continue;
            const int n = t.bit == HONE_TARGET_OUTPUT ? 1 : model->hp.n_layer;
            for (int il = 0; il < n; il++) {
                ggml_tensor * w = target_weight(*model, t.bit, il);
                if (!w) continue; // a module this architecture does not have (Arcee: no ffn_gate)
                bool seen = false; // attn_q/k/v of a fused attn_qkv name one tensor
                for (auto & e : weights) seen = seen || e.first == w;
                if (seen) continue;
                const int64_t lim = std::min(w->ne[0], w->ne[1]);
                if (params->rank > lim) {
                    fail(HONE_E_INVALID_ARG, "LoRA rank %d is larger than layer '%s' allows (%lld x %lld: rank at most %lld)",
                         params->rank, w->name, (long long) w->ne[0], (long long) w->ne[1], (long long) lim);
                }
                weights.emplace_back(w, params->rank);
            }
        }
        if (weights.empty()) {
            fail(HONE_E_INVALID_ARG, "none of the target modules exists in this model%s", model->hp.desc->no_lora_out_down
                 ? " (on this architecture llama.cpp cannot apply a LoRA to attn_output or ffn_down, so those are skipped)" : "");
        }
        auto ad = std::make_unique<hone_adapter>();
        ad->model = model;
        ad->params = *params;
        create_pairs(*ad, weights);
        // A: Kaiming-uniform as PEFT does (bound 1/sqrt(fan_in)); B: zero, so training starts at the base model.
        std::mt19937_64 rng(params->seed);
        for (auto & p : ad->pairs) {
            const float bound = 1.0f / std::sqrt((float) p.a->ne[0]);
            std::uniform_real_distribution<float> u(-bound, bound);
            std::vector<float> a(ggml_nelements(p.a));
            for (auto & x : a) x = u(rng);
            set_f32(p.a, a);
            set_f32(p.b, std::vector<float>(ggml_nelements(p.b), 0.0f));
        }
        *out = ad.release();
    });
}

void hone_adapter_perturb_b(hone_adapter * ad, float sigma, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> n(0.0f, sigma);
    for (auto & p : ad->pairs) {
        std::vector<float> b = get_f32(p.b);
        for (auto & x : b) x += n(rng);
        set_f32(p.b, b);
    }
}

int64_t hone_adapter_n_params(const hone_adapter * ad) {
    int64_t n = 0;
    for (auto & p : ad->pairs) n += ggml_nelements(p.a) + ggml_nelements(p.b);
    return n;
}

void hone_adapter_free(hone_adapter * ad) { delete ad; }

hone_status hone_adapter_save(const hone_adapter * ad, const char * path, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(ad && path, "adapter and path are required");
        const hone_model & m = *ad->model;
        size_t bytes = 0;
        for (auto & p : ad->pairs) bytes += ggml_nbytes(p.a) + ggml_nbytes(p.b);
        ggml_init_params ip = { bytes + ggml_tensor_overhead() * (ad->pairs.size() * 2 + 1), nullptr, false };
        ggml_context * host = ggml_init(ip);
        gguf_context * g = gguf_init_empty();
        gguf_set_val_str(g, "general.type", "adapter");
        gguf_set_val_str(g, "general.architecture", m.hp.arch_name.c_str());
        gguf_set_val_str(g, "general.name", (m.name + " LoRA").c_str());
        gguf_set_val_str(g, "adapter.type", "lora");
        gguf_set_val_f32(g, "adapter.lora.alpha", ad->params.alpha);
        write_record(g, *ad);
        for (auto & p : ad->pairs) {
            for (ggml_tensor * t : { p.a, p.b }) {
                ggml_tensor * c = ggml_dup_tensor(host, t);
                ggml_set_name(c, t->name);
                ggml_backend_tensor_get(t, c->data, 0, ggml_nbytes(t));
                gguf_add_tensor(g, c);
            }
        }
        const std::string tmp = std::string(path) + ".tmp";
        const bool ok = gguf_write_to_file(g, tmp.c_str(), false);
        gguf_free(g);
        ggml_free(host);
        if (ok) sync_file(tmp);
        if (!ok || std::rename(tmp.c_str(), path) != 0) {
            std::remove(tmp.c_str());
            fail(HONE_E_IO, "%s: cannot write the adapter (disk full or no permission?)", path);
        }
    });
}

hone_status hone_adapter_load(hone_model * model, const char * path, hone_adapter ** out, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(model && path && out, "model and adapter path are required");
        ggml_context * meta = nullptr;
        gguf_context * g = open_gguf_checked(path, &meta);
        gguf_free(g);
        if (meta) ggml_free(meta);
        ggml_context * data = nullptr;
        g = gguf_init_from_file(path, { false, &data });
        if (!g) fail(HONE_E_FORMAT, "%s: cannot read adapter tensors", path);
        struct Closer { gguf_context * g; ggml_context * c; ~Closer() { gguf_free(g); ggml_free(c); } } closer{ g, data };

        const std::vector<AdapterPair> found = match_adapter(path, g, data, model->hp.arch_name, "the model " + model->path,
                                                              [&](const std::string & n) { return model->weight(n, false); });
        auto ad = std::make_unique<hone_adapter>();
        ad->model = model;
        ad->params = hone_adapter_default_params();
        ad->params.alpha = gguf_f32(g, "adapter.lora.alpha", 0.0f);
        ad->params.targets = 0;
        read_record(g, ad->record);
        std::vector<std::pair<ggml_tensor *, int>> weights;
        std::string problems;
        for (const AdapterPair & p : found) {
            const std::string & base = p.base;
            if (model->hp.desc->no_lora_out_down && (base.find(".attn_output.") != std::string::npos || base.find(".ffn_down.") != std::string::npos)) {
                problems += strfmt("\n  '%s': llama.cpp cannot apply a LoRA to this tensor on %s", base.c_str(), model->hp.arch_name.c_str());
                continue;
            }
            uint32_t bits = 0;
            for (auto & tg : TARGETS) {
                if (base == "output.weight" ? tg.bit == HONE_TARGET_OUTPUT : base.find(std::string(".") + tg.name + ".") != std::string::npos) bits |= tg.bit;
            }
            if (base.find(".attn_qkv.") != std::string::npos) bits |= HONE_TARGET_ATTN_Q | HONE_TARGET_ATTN_K | HONE_TARGET_ATTN_V;
            if (!bits) { problems += strfmt("\n  '%s': Hone does not train a LoRA on this tensor", base.c_str()); continue; }
            ad->params.targets |= bits;
            ad->params.rank = (int) p.a->ne[1];
            weights.emplace_back(model->weight(base, true), (int) p.a->ne[1]);
        }
        if (!problems.empty()) fail(HONE_E_UNSUPPORTED, "%s: the adapter has LoRA tensors the training graph cannot use:%s", path, problems.c_str());
        if (ad->params.alpha <= 0.0f) ad->params.alpha = (float) ad->params.rank;
        create_pairs(*ad, weights);
        for (size_t i = 0; i < found.size(); i++) {
            for (auto [from, to] : { std::make_pair(found[i].a, ad->pairs[i].a), std::make_pair(found[i].b, ad->pairs[i].b) }) {
                std::vector<float> v(ggml_nelements(from));
                if (from->type == GGML_TYPE_F32) memcpy(v.data(), from->data, v.size() * sizeof(float));
                else if (from->type == GGML_TYPE_F16) ggml_fp16_to_fp32_row((const ggml_fp16_t *) from->data, v.data(), (int64_t) v.size());
                else fail(HONE_E_UNSUPPORTED, "%s: tensor '%s' has type %s (F32 or F16 expected)", path, from->name, ggml_type_name(from->type));
                set_f32(to, v);
            }
        }
        *out = ad.release();
    });
}

} // extern "C"
