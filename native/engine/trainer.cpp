#include "trainer.h"

#include "error.h"
#include "lora.h"
#include "model.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

using namespace hone;

hone_trainer::~hone_trainer() {
    if (opt_alloc) ggml_gallocr_free(opt_alloc);
    if (sched) ggml_backend_sched_free(sched);
    if (buf_accs) ggml_backend_buffer_free(buf_accs);
    if (buf_state) ggml_backend_buffer_free(buf_state);
    for (ggml_context * c : { ctx_opt, ctx_accs, ctx_state, ctx_compute }) if (c) ggml_free(c);
}

// Room for forward, backward and accumulation nodes: measured at about 3x the forward
// graph; llama.cpp's inference-sized graph overflows at 16 layers, so size from layers.
static size_t training_graph_size(const hone_model & m) { return 4096 + (size_t) m.hp.n_layer * 1024; }

static void build(hone_trainer & tr) {
    hone_model & m = *tr.model;
    hone_adapter & ad = *tr.adapter;
    const size_t gsize = training_graph_size(m);
    ggml_init_params ip = { ggml_tensor_overhead() * gsize * 2 + ggml_graph_overhead_custom(gsize, true), nullptr, true };
    tr.ctx_compute = ggml_init(ip);
    ggml_context * ctx = tr.ctx_compute;

    for (auto & p : ad.pairs) { ggml_set_param(p.a); ggml_set_param(p.b); }
    tr.in = make_forward_inputs(ctx, tr.T, tr.B);
    ggml_tensor * logits = build_forward(ctx, m, &ad, tr.in, tr.T, tr.B);
    tr.loss = build_loss(ctx, logits, tr.li, m.hp.n_vocab, tr.T * tr.B);
    ggml_set_output(tr.loss);
    ggml_set_loss(tr.loss);

    ggml_cgraph * gf = ggml_new_graph_custom(ctx, gsize, true);
    ggml_build_forward_expand(gf, tr.loss);

    // One F32 accumulator per parameter (added to in place by the backward pass) and a
    // constant 1 as the loss's seed gradient.
    const size_t n_pairs = ad.pairs.size();
    tr.ctx_accs = ggml_init({ ggml_tensor_overhead() * (n_pairs * 2 + 1), nullptr, true });
    tr.ctx_state = ggml_init({ ggml_tensor_overhead() * (n_pairs * 4 + 4), nullptr, true });
    std::vector<ggml_tensor *> accs(ggml_graph_n_nodes(gf), nullptr);
    ggml_tensor * loss_seed = nullptr;
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        ggml_tensor * node = ggml_graph_node(gf, i);
        if (node->flags & GGML_TENSOR_FLAG_PARAM) {
            accs[i] = ggml_new_tensor(tr.ctx_accs, GGML_TYPE_F32, GGML_MAX_DIMS, node->ne);
            ggml_format_name(accs[i], "grad_acc %s", node->name);
        } else if (node->flags & GGML_TENSOR_FLAG_LOSS) {
            loss_seed = accs[i] = ggml_new_tensor_1d(tr.ctx_state, GGML_TYPE_F32, 1);
            ggml_set_name(loss_seed, "loss_seed_grad");
        }
    }
    tr.gb = ggml_graph_dup(ctx, gf, true);
    ggml_build_backward_expand(ctx, tr.gb, accs.data());

    tr.adamw_params = ggml_new_tensor_1d(tr.ctx_state, GGML_TYPE_F32, 7);
    ggml_set_name(tr.adamw_params, "adamw_params");
    std::vector<std::pair<ggml_tensor *, ggml_tensor *>> moments;
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        if (!(ggml_graph_node(gf, i)->flags & GGML_TENSOR_FLAG_PARAM)) continue;
        ggml_tensor * mt = ggml_new_tensor(tr.ctx_state, GGML_TYPE_F32, GGML_MAX_DIMS, ggml_graph_node(gf, i)->ne);
        ggml_tensor * vt = ggml_new_tensor(tr.ctx_state, GGML_TYPE_F32, GGML_MAX_DIMS, ggml_graph_node(gf, i)->ne);
        ggml_format_name(mt, "adamw_m %s", ggml_graph_node(gf, i)->name);
        ggml_format_name(vt, "adamw_v %s", ggml_graph_node(gf, i)->name);
        moments.emplace_back(mt, vt);
    }
    ggml_backend_t primary = m.backends.primary;
    tr.buf_accs = ggml_backend_alloc_ctx_tensors(tr.ctx_accs, primary);
    tr.buf_state = ggml_backend_alloc_ctx_tensors(tr.ctx_state, primary);
    if (!tr.buf_accs || !tr.buf_state) fail(HONE_E_MEMORY, "not enough %s memory for gradients and optimizer state", ggml_backend_name(primary));
    ggml_backend_buffer_clear(tr.buf_accs, 0);
    ggml_backend_buffer_clear(tr.buf_state, 0);
    const float one = 1.0f;
    ggml_backend_tensor_set(loss_seed, &one, 0, sizeof(one));

    // The optimizer graph reads only static tensors: parameters, accumulators, moments.
    tr.ctx_opt = ggml_init({ ggml_tensor_overhead() * (n_pairs * 2 + 8) + ggml_graph_overhead(), nullptr, true });
    tr.g_opt = ggml_new_graph(tr.ctx_opt);
    size_t k = 0;
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        ggml_tensor * node = ggml_graph_node(gf, i);
        if (!(node->flags & GGML_TENSOR_FLAG_PARAM)) continue;
        ggml_tensor * step = ggml_opt_step_adamw(tr.ctx_opt, node, accs[i], moments[k].first, moments[k].second, tr.adamw_params);
        ggml_format_name(step, "adamw step %s", node->name);
        ggml_build_forward_expand(tr.g_opt, step);
        k++;
    }
    tr.opt_alloc = ggml_gallocr_new(ggml_backend_get_default_buffer_type(primary));
    if (!ggml_gallocr_alloc_graph(tr.opt_alloc, tr.g_opt)) fail(HONE_E_MEMORY, "cannot allocate the optimizer graph");

    std::vector<ggml_backend_t> list = m.backends.list();
    tr.sched = ggml_backend_sched_new(list.data(), nullptr, (int) list.size(), gsize, false, true);
    if (!ggml_backend_sched_alloc_graph(tr.sched, tr.gb)) {
        fail(HONE_E_MEMORY, "not enough memory for the training graph at context %d x %d sequence(s): lower --ctx or --ubatch, or the rank",
             tr.T, tr.B);
    }
}

// Per-op wall time: the scheduler computes one node at a time and we time each (this
// synchronises every node, so it slows the step; measurement only).
struct OpProfile {
    std::map<std::string, std::pair<int64_t, double>> by_op;
    std::chrono::steady_clock::time_point last;
    static bool cb(ggml_tensor * t, bool ask, void * ud) {
        auto * p = static_cast<OpProfile *>(ud);
        const auto now = std::chrono::steady_clock::now();
        if (ask) { p->last = now; return true; }
        std::string key = ggml_op_desc(t);
        if (t->src[0]) key += std::string(" ") + ggml_type_name(t->src[0]->type);
        auto & e = p->by_op[key];
        e.first++;
        e.second += std::chrono::duration<double>(now - p->last).count();
        return true;
    }
    void print() const {
        double total = 0;
        for (auto & [k, v] : by_op) total += v.second;
        fprintf(stderr, "op profile (%.3f s total)\n", total);
        for (auto & [k, v] : by_op) if (v.second > 0.01 * total) fprintf(stderr, "  %-28s %6lld nodes %8.3f s %5.1f%%\n", k.c_str(), (long long) v.first, v.second, 100 * v.second / total);
    }
};

// Uploads one micro-batch and the scale that turns its mean-over-rows cross-entropy into
// its share of the step's loss.
static void upload_micro_batch(hone_trainer & tr, const std::vector<const PreparedSeq *> & seqs, float loss_scale) {
    const int T = tr.T, B = tr.B, V = tr.model->hp.n_vocab;
    std::vector<int32_t> tokens(T * B), pos(T * B), targets(T * B);
    std::vector<float> mask(T * B, 0.0f), kq_mask((size_t) T * T);
    for (int b = 0; b < B; b++) {
        const PreparedSeq & s = *seqs[b];
        for (int t = 0; t < T; t++) {
            const int r = b * T + t;
            tokens[r] = s.input[t];
            pos[r] = t;
            mask[r] = s.mask[t] ? 1.0f : 0.0f;
            targets[r] = r * V + (s.mask[t] ? s.target[t] : 0);
        }
    }
    fill_causal_mask(kq_mask.data(), T);
    const float zero = 0.0f;
    ggml_backend_tensor_set(tr.in.tokens, tokens.data(), 0, tokens.size() * sizeof(int32_t));
    ggml_backend_tensor_set(tr.in.pos, pos.data(), 0, pos.size() * sizeof(int32_t));
    ggml_backend_tensor_set(tr.in.kq_mask, kq_mask.data(), 0, kq_mask.size() * sizeof(float));
    ggml_backend_tensor_set(tr.li.targets, targets.data(), 0, targets.size() * sizeof(int32_t));
    ggml_backend_tensor_set(tr.li.loss_mask, mask.data(), 0, mask.size() * sizeof(float));
    ggml_backend_tensor_set(tr.li.loss_scale, &loss_scale, 0, sizeof(float));
    ggml_backend_tensor_set(tr.li.zero, &zero, 0, sizeof(float));
}

static void optimizer_step(hone_trainer & tr, float lr) {
    tr.iter++;
    const float beta1h = 1.0f / (1.0f - std::pow(tr.p.beta1, (float) tr.iter));
    const float beta2h = 1.0f / (1.0f - std::pow(tr.p.beta2, (float) tr.iter));
    const float par[7] = { lr, tr.p.beta1, tr.p.beta2, tr.p.eps, tr.p.weight_decay, beta1h, beta2h };
    ggml_backend_tensor_set(tr.adamw_params, par, 0, sizeof(par));
    if (ggml_backend_graph_compute(tr.model->backends.primary, tr.g_opt) != GGML_STATUS_SUCCESS) {
        fail(HONE_E_INTERNAL, "optimizer step failed on %s", ggml_backend_name(tr.model->backends.primary));
    }
    ggml_backend_buffer_clear(tr.buf_accs, 0);
}

extern "C" {

hone_train_params hone_train_default_params(void) {
    hone_train_params p;
    p.n_ctx = 256;
    p.n_batch = 1;
    p.n_ubatch = 1;
    p.n_steps = 0;
    p.n_epochs = 1;
    p.lr = 1e-4f;
    p.weight_decay = 0.0f;
    p.beta1 = 0.9f;
    p.beta2 = 0.999f;
    p.eps = 1e-8f;
    p.seed = 42;
    return p;
}

hone_status hone_trainer_init(hone_model * model, hone_adapter * adapter, const hone_train_params * params,
                              hone_trainer ** out, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(model && adapter && params && out, "model, adapter and params are required");
        HONE_CHECK_ARG(adapter->model == model, "the adapter belongs to another model");
        const hone_train_params & p = *params;
        HONE_CHECK_ARG(p.n_ctx >= 2, "context length must be at least 2 (got %d)", p.n_ctx);
        HONE_CHECK_ARG(p.n_ubatch >= 1 && p.n_batch >= p.n_ubatch && p.n_batch % p.n_ubatch == 0,
                       "batch (%d) must be a positive multiple of the micro-batch (%d)", p.n_batch, p.n_ubatch);
        HONE_CHECK_ARG(p.n_steps > 0 || p.n_epochs > 0, "give a number of steps or epochs");
        HONE_CHECK_ARG(p.lr > 0.0f, "learning rate must be positive (got %g)", p.lr);
        HONE_CHECK_ARG(p.weight_decay >= 0.0f && p.weight_decay <= 1.0f, "weight decay must be in [0, 1] (got %g)", p.weight_decay);
        HONE_CHECK_ARG(p.beta1 >= 0.0f && p.beta1 < 1.0f && p.beta2 >= 0.0f && p.beta2 < 1.0f, "AdamW betas must be in [0, 1)");
        auto tr = std::make_unique<hone_trainer>();
        tr->model = model;
        tr->adapter = adapter;
        tr->p = p;
        tr->T = p.n_ctx;
        tr->B = p.n_ubatch;
        build(*tr);
        *out = tr.release();
    });
}

hone_status hone_trainer_train(hone_trainer * tr, const hone_sequence * seqs, int32_t n_seqs,
                               hone_progress_cb cb, void * user_data, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(tr && (seqs || n_seqs == 0), "trainer and sequences are required");
        const hone_train_params & p = tr->p;
        std::vector<PreparedSeq> data;
        int64_t total_loss_tokens = 0;
        const int32_t pad = std::max(0, hone_model_token_eos(tr->model));
        for (int32_t i = 0; i < n_seqs; i++) {
            data.push_back(prepare_sequence(seqs[i], tr->T, pad));
            total_loss_tokens += data.back().n_loss;
        }
        if (data.empty() || total_loss_tokens == 0) fail(HONE_E_INVALID_ARG, "the dataset is empty: no token carries loss");

        const int n_micro = p.n_batch / p.n_ubatch;
        const int64_t n_steps = p.n_steps > 0 ? p.n_steps : ((int64_t) p.n_epochs * n_seqs + p.n_batch - 1) / p.n_batch;
        DataOrder order(n_seqs, p.seed);
        OpProfile prof;
        const bool profile = getenv("HONE_PROFILE") != nullptr;
        if (profile) ggml_backend_sched_set_eval_callback(tr->sched, OpProfile::cb, &prof);
        struct PrintAtEnd { OpProfile * p; bool on; ~PrintAtEnd() { if (on) p->print(); } } print_at_end{ &prof, profile };
        int64_t tokens_done = 0, cursor = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (int64_t step = 0; step < n_steps; step++) {
            const auto ts = std::chrono::steady_clock::now();
            std::vector<const PreparedSeq *> batch(p.n_batch);
            int64_t step_loss_tokens = 0;
            for (auto & s : batch) { s = &data[order.at(cursor++)]; step_loss_tokens += s->n_loss; }
            // Each micro-batch's loss is scaled so their sum is the mean over the step's loss tokens.
            const float rows = (float) tr->T * tr->B;
            const float scale = step_loss_tokens > 0 ? rows / (float) step_loss_tokens : 0.0f;
            double loss_sum = 0.0;
            for (int mb = 0; mb < n_micro; mb++) {
                std::vector<const PreparedSeq *> seqs_mb(batch.begin() + mb * tr->B, batch.begin() + (mb + 1) * tr->B);
                upload_micro_batch(*tr, seqs_mb, scale);
                if (ggml_backend_sched_graph_compute(tr->sched, tr->gb) != GGML_STATUS_SUCCESS) {
                    fail(HONE_E_INTERNAL, "training graph compute failed at step %lld", (long long) step + 1);
                }
                float l = 0.0f;
                ggml_backend_tensor_get(tr->loss, &l, 0, sizeof(l));
                loss_sum += l;
                tokens_done += (int64_t) tr->T * tr->B;
            }
            if (step_loss_tokens > 0) optimizer_step(*tr, p.lr);
            else ggml_backend_buffer_clear(tr->buf_accs, 0);

            const auto te = std::chrono::steady_clock::now();
            hone_step_event ev;
            ev.step = (int32_t) step + 1;
            ev.n_steps = (int32_t) n_steps;
            ev.loss = (float) loss_sum;
            ev.lr = p.lr;
            ev.tokens = tokens_done;
            ev.loss_tokens = step_loss_tokens;
            ev.tokens_per_s = (double) p.n_batch * tr->T / std::chrono::duration<double>(te - ts).count();
            ev.elapsed_s = std::chrono::duration<double>(te - t0).count();
            if (cb && !cb(&ev, user_data)) fail(HONE_E_CANCELLED, "training cancelled after step %d", ev.step);
        }
    });
}

void hone_trainer_free(hone_trainer * tr) { delete tr; }

} // extern "C"
