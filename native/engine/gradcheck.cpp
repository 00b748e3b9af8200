#include "hone_tools.h"

#include "error.h"
#include "graph.h"
#include "lora.h"
#include "model.h"

#include "ggml-alloc.h"
#include "ggml-backend.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace hone {

namespace {

// F32 copies of every quantized weight, swapped into the model's pointers while the
// finite-difference graph is built: MUL_MAT on a quantized weight also quantizes its
// activations, which makes the loss a step function at the scale of a finite difference,
// while the backward pass differentiates the dequantized weights. So the numeric side uses
// the same weights, dequantized, with exact activations.
struct DequantizedView {
    ggml_context * ctx = nullptr;
    ggml_backend_buffer_t buf = nullptr;
    std::vector<std::pair<ggml_tensor **, ggml_tensor *>> swapped; // (model slot, original)
    hone_adapter * ad = nullptr;
    std::vector<const ggml_tensor *> aliases; // dequantized copies given the original's LoRA

    void swap_in(hone_model & m, hone_adapter & adapter) {
        ad = &adapter;
        std::vector<ggml_tensor **> slots = { &m.tok_embd, &m.output };
        for (auto & L : m.layers) {
            for (ggml_tensor ** t : { &L.wq, &L.wk, &L.wv, &L.wqkv, &L.wo, &L.ffn_gate, &L.ffn_up, &L.ffn_down }) slots.push_back(t);
        }
        ctx = ggml_init({ ggml_tensor_overhead() * (slots.size() + 1), nullptr, true });
        std::vector<std::pair<ggml_tensor **, ggml_tensor *>> todo;
        std::vector<ggml_tensor *> made;
        for (ggml_tensor ** slot : slots) {
            if (!*slot) continue; // a module this architecture does not have
            if (!ggml_is_quantized((*slot)->type) && (*slot)->type != GGML_TYPE_F16 && (*slot)->type != GGML_TYPE_BF16) continue;
            bool seen = false; // a tied output shares token_embd
            for (size_t i = 0; i < todo.size(); i++) {
                if (todo[i].second == *slot) { swapped.emplace_back(slot, *slot); *slot = made[i]; seen = true; break; }
            }
            if (seen) continue;
            ggml_tensor * f = ggml_new_tensor(ctx, GGML_TYPE_F32, GGML_MAX_DIMS, (*slot)->ne);
            ggml_format_name(f, "%s (dequantized)", (*slot)->name);
            todo.emplace_back(slot, *slot);
            made.push_back(f);
        }
        if (todo.empty()) return;
        buf = ggml_backend_alloc_ctx_tensors(ctx, m.backends.primary);
        if (!buf) fail(HONE_E_MEMORY, "not enough memory for a dequantized copy of the weights");
        for (size_t i = 0; i < todo.size(); i++) {
            ggml_tensor * q = todo[i].second;
            std::vector<uint8_t> raw(ggml_nbytes(q));
            std::vector<float> f32(ggml_nelements(q));
            ggml_backend_tensor_get(q, raw.data(), 0, raw.size());
            ggml_get_type_traits(q->type)->to_float(raw.data(), f32.data(), (int64_t) f32.size());
            ggml_backend_tensor_set(made[i], f32.data(), 0, f32.size() * sizeof(float));
            swapped.emplace_back(todo[i].first, q);
            *todo[i].first = made[i];
            auto it = ad->by_weight.find(q);
            if (it != ad->by_weight.end()) { ad->by_weight[made[i]] = it->second; aliases.push_back(made[i]); }
        }
    }
    void restore() {
        for (auto it = swapped.rbegin(); it != swapped.rend(); ++it) *it->first = it->second;
        swapped.clear();
        for (const ggml_tensor * t : aliases) ad->by_weight.erase(t);
        aliases.clear();
    }
    ~DequantizedView() {
        restore();
        if (buf) ggml_backend_buffer_free(buf);
        if (ctx) ggml_free(ctx);
    }
};

// One sequence, every position carrying loss: the loss is the mean cross-entropy, exactly as
// the trainer defines a step's loss (loss_scale = rows / loss tokens = 1).
struct Harness {
    hone_model & m;
    hone_adapter & ad;
    int T;
    std::vector<int32_t> input, target;
    ggml_context * ctx = nullptr, * ctx_accs = nullptr;
    ggml_backend_buffer_t buf_accs = nullptr;
    ggml_backend_sched_t sched_grad = nullptr, sched_fwd = nullptr;
    ForwardInputs in, in_fwd;
    LossInputs li;
    ggml_tensor * logits_fwd = nullptr;
    ggml_cgraph * gb = nullptr, * gf_fwd = nullptr;
    std::vector<std::pair<ggml_tensor *, ggml_tensor *>> param_acc;
    DequantizedView dequantized;

    Harness(hone_model & m_, hone_adapter & ad_, const std::vector<int32_t> & tokens) : m(m_), ad(ad_), T((int) tokens.size() - 1) {
        input.assign(tokens.begin(), tokens.end() - 1);
        target.assign(tokens.begin() + 1, tokens.end());
    }
    ~Harness() {
        if (sched_grad) ggml_backend_sched_free(sched_grad);
        if (sched_fwd) ggml_backend_sched_free(sched_fwd);
        if (buf_accs) ggml_backend_buffer_free(buf_accs);
        if (ctx_accs) ggml_free(ctx_accs);
        if (ctx) ggml_free(ctx);
        for (ggml_tensor * t : ad.trainable()) t->flags &= ~GGML_TENSOR_FLAG_PARAM;
    }

    void build() {
        const size_t gsize = training_graph_size(m.hp, T);
        ctx = ggml_init({ ggml_tensor_overhead() * gsize * 3 + 3 * ggml_graph_overhead_custom(gsize, true), nullptr, true });
        for (ggml_tensor * t : ad.trainable()) ggml_set_param(t);
        const TrainingLoss tl = build_training_loss(ctx, m, ad, T, 1);
        in = tl.in;
        li = tl.li;
        ggml_tensor * loss = tl.loss;
        ggml_cgraph * gf = ggml_new_graph_custom(ctx, gsize, true);
        ggml_build_forward_expand(gf, loss);

        ctx_accs = ggml_init({ ggml_tensor_overhead() * (ad.pairs.size() * 2 + 2), nullptr, true });
        std::vector<ggml_tensor *> accs(ggml_graph_n_nodes(gf), nullptr);
        ggml_tensor * seed = nullptr;
        for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
            ggml_tensor * node = ggml_graph_node(gf, i);
            if (node->flags & GGML_TENSOR_FLAG_PARAM) {
                accs[i] = ggml_new_tensor(ctx_accs, GGML_TYPE_F32, GGML_MAX_DIMS, node->ne);
                param_acc.emplace_back(node, accs[i]);
            } else if (node->flags & GGML_TENSOR_FLAG_LOSS) {
                seed = accs[i] = ggml_new_tensor_1d(ctx_accs, GGML_TYPE_F32, 1);
            }
        }
        gb = ggml_graph_dup(ctx, gf, true);
        ggml_build_backward_expand(ctx, gb, accs.data());
        buf_accs = ggml_backend_alloc_ctx_tensors(ctx_accs, m.backends.primary);
        if (!buf_accs) fail(HONE_E_MEMORY, "not enough memory for the gradient check");
        ggml_backend_buffer_clear(buf_accs, 0);
        const float one = 1.0f;
        ggml_backend_tensor_set(seed, &one, 0, sizeof(one));

        // A separate forward-only graph for the finite differences: logits, loss in float64 on the host.
        in_fwd = make_forward_inputs(ctx, m.hp, T, 1);
        in_fwd.smooth_gelu = true;
        dequantized.swap_in(m, ad);
        logits_fwd = build_forward(ctx, m, &ad, in_fwd, T, 1);
        dequantized.restore();
        ggml_set_output(logits_fwd);
        gf_fwd = ggml_new_graph_custom(ctx, gsize, false);
        ggml_build_forward_expand(gf_fwd, logits_fwd);

        std::vector<ggml_backend_t> list = m.backends.list();
        sched_grad = ggml_backend_sched_new(list.data(), nullptr, (int) list.size(), gsize, false, true);
        sched_fwd = ggml_backend_sched_new(list.data(), nullptr, (int) list.size(), gsize, false, true);
        if (!ggml_backend_sched_alloc_graph(sched_grad, gb) || !ggml_backend_sched_alloc_graph(sched_fwd, gf_fwd)) {
            fail(HONE_E_MEMORY, "not enough memory for the gradient check at %d tokens", T);
        }
    }

    void set_inputs(const ForwardInputs & fi) {
        std::vector<int32_t> pos(T);
        for (int i = 0; i < T; i++) pos[i] = i;
        ggml_backend_tensor_set(fi.tokens, input.data(), 0, T * sizeof(int32_t));
        set_positions(fi, pos);
        set_causal_mask(fi, m.hp, T);
    }

    void gradients() {
        set_inputs(in);
        std::vector<float> ones(T, 1.0f);
        const float scale = 1.0f;
        ggml_backend_tensor_set(li.targets, target.data(), 0, T * sizeof(int32_t));
        ggml_backend_tensor_set(li.loss_mask, ones.data(), 0, T * sizeof(float));
        ggml_backend_tensor_set(li.loss_scale, &scale, 0, sizeof(float));
        if (ggml_backend_sched_graph_compute(sched_grad, gb) != GGML_STATUS_SUCCESS) fail(HONE_E_INTERNAL, "backward pass failed");
    }

    double loss64() {
        set_inputs(in_fwd);
        if (ggml_backend_sched_graph_compute(sched_fwd, gf_fwd) != GGML_STATUS_SUCCESS) fail(HONE_E_INTERNAL, "forward pass failed");
        const int V = m.hp.n_vocab;
        std::vector<float> lg((size_t) V * T);
        ggml_backend_tensor_get(logits_fwd, lg.data(), 0, lg.size() * sizeof(float));
        double sum = 0.0;
        for (int r = 0; r < T; r++) {
            const float * row = lg.data() + (size_t) r * V;
            double mx = row[0];
            for (int v = 1; v < V; v++) mx = std::max(mx, (double) row[v]);
            double se = 0.0;
            for (int v = 0; v < V; v++) se += std::exp((double) row[v] - mx);
            sum += mx + std::log(se) - row[target[r]];
        }
        return sum / T;
    }
};

float get_elem(ggml_tensor * t, int64_t i) {
    float v;
    ggml_backend_tensor_get(t, &v, i * sizeof(float), sizeof(float));
    return v;
}

void set_elem(ggml_tensor * t, int64_t i, float v) { ggml_backend_tensor_set(t, &v, i * sizeof(float), sizeof(float)); }

int layer_of(const std::string & name) {
    if (name.rfind("blk.", 0) != 0) return -1;
    return atoi(name.c_str() + 4);
}

// (L(x0 + eps) - L(x0 - eps)) / step, over the step actually taken in F32, not the nominal eps.
double central_difference(Harness & h, ggml_tensor * param, int64_t at, float x0, float eps) {
    set_elem(param, at, x0 + eps);
    const double lp = h.loss64();
    set_elem(param, at, x0 - eps);
    const double lm = h.loss64();
    set_elem(param, at, x0);
    return (lp - lm) / ((double) (x0 + eps) - (double) (x0 - eps));
}

} // namespace

double judge_gradients(std::vector<GradCheckEntry> & entries, double rtol, double floor) {
    for (auto & e : entries) {
        const double mag = std::max(std::fabs(e.analytic), std::fabs(e.numeric));
        e.checked = mag >= floor;
        e.rel_error = mag > 0 ? std::fabs(e.analytic - e.numeric) / mag : 0.0;
    }
    double d2 = 0.0;
    int n = 0;
    for (const auto & e : entries) {
        if (!e.checked) continue;
        d2 += (e.numeric - e.numeric_half) * (e.numeric - e.numeric_half);
        n++;
    }
    const double atol_floor = n > 0 ? 2.0 * std::sqrt(d2 / n) : 0.0;
    for (auto & e : entries) {
        const double d = std::fabs(e.numeric - e.numeric_half);
        e.tolerance = rtol * std::fabs(e.numeric) + std::max(2.0 * d, atol_floor);
        e.pass = !e.checked || std::fabs(e.analytic - e.numeric) <= e.tolerance;
    }
    return atol_floor;
}

GradCheckResult grad_check(hone_model & m, hone_adapter & ad, const std::vector<int32_t> & tokens, const GradCheckParams & p) {
    HONE_CHECK_ARG(tokens.size() >= 3, "the gradient check needs at least 3 tokens (got %zu)", tokens.size());
    Harness h(m, ad, tokens);
    h.build();
    h.gradients();
    std::mt19937_64 rng(p.seed);
    GradCheckResult res;
    res.quantized_base = !h.dequantized.aliases.empty() || h.dequantized.buf != nullptr;
    std::vector<GradCheckEntry> & out = res.entries;
    // Per adapter tensor, as the adapter file names them, in the adapter's order (each pair's B,
    // then its A), whatever order the graph holds them in: a fused A is checked through each
    // member's view (its rows of the fused tensor and of the fused gradient), all members at the first.
    struct Slice { std::string name; ggml_tensor * param, * acc; int64_t offset, n; };
    std::vector<Slice> slices;
    auto acc_of = [&](const ggml_tensor * param) -> ggml_tensor * {
        for (auto & [p, acc] : h.param_acc) if (p == param) return acc;
        return nullptr;
    };
    std::vector<const ggml_tensor *> fused_done;
    for (auto & pair : ad.pairs) {
        if (ggml_tensor * acc = acc_of(pair.b)) slices.push_back({ pair.b->name, pair.b, acc, 0, ggml_nelements(pair.b) });
        if (!pair.fused_a) {
            if (ggml_tensor * acc = acc_of(pair.a)) slices.push_back({ pair.a->name, pair.a, acc, 0, ggml_nelements(pair.a) });
            continue;
        }
        if (std::find(fused_done.begin(), fused_done.end(), pair.fused_a) != fused_done.end()) continue;
        fused_done.push_back(pair.fused_a);
        ggml_tensor * acc = acc_of(pair.fused_a);
        if (!acc) continue;
        for (auto & member : ad.pairs) {
            if (member.fused_a != pair.fused_a) continue;
            slices.push_back({ member.a->name, member.fused_a, acc, (int64_t) (member.a->view_offs / sizeof(float)), ggml_nelements(member.a) });
        }
    }
    for (auto & [name, param, acc, offset, n] : slices) {
        const int il = layer_of(name);
        if (std::find(p.layers.begin(), p.layers.end(), il) == p.layers.end()) continue;
        for (int k = 0; k < p.elements; k++) {
            GradCheckEntry e;
            e.tensor = name;
            e.index = (int64_t) (rng() % (uint64_t) n);
            const int64_t at = offset + e.index;
            e.analytic = get_elem(acc, at);
            const float x0 = get_elem(param, at);
            e.numeric = central_difference(h, param, at, x0, p.eps);
            e.numeric_half = central_difference(h, param, at, x0, p.eps / 2);
            out.push_back(e);
        }
    }
    return res;
}

} // namespace hone
