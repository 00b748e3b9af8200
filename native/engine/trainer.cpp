#include "trainer.h"

#include "backend_registry.h"
#include "checkpoint.h"
#include "error.h"
#include "fatal_report.h"
#include "hone_test.h"
#include "lora.h"
#include "metal_rules_backend.h"
#include "model.h"
#include "optimizer.h"
#include "recompute.h"
#include "refusing_backend.h"
#include "schedule.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace hone;

hone_trainer::~hone_trainer() {
    if (sched) ggml_backend_sched_free(sched);
    if (test_backend) ggml_backend_free(test_backend);
    if (buf_accs) ggml_backend_buffer_free(buf_accs);
    if (buf_state) ggml_backend_buffer_free(buf_state);
    if (frozen_param) frozen_param->flags &= ~GGML_TENSOR_FLAG_PARAM; // the model outlives this trainer
    for (ggml_context * c : { ctx_accs, ctx_state, ctx_compute }) if (c) ggml_free(c);
}

namespace hone {

void GraphSources::save(ggml_cgraph * g) {
    nodes.clear();
    for (int i = 0; i < ggml_graph_n_nodes(g); i++) {
        ggml_tensor * t = ggml_graph_node(g, i);
        std::array<ggml_tensor *, GGML_MAX_SRC> src;
        for (int s = 0; s < GGML_MAX_SRC; s++) src[s] = t->src[s];
        nodes.emplace_back(t, src);
    }
}

void GraphSources::restore() const {
    for (auto & [t, src] : nodes) for (int s = 0; s < GGML_MAX_SRC; s++) t->src[s] = src[s];
}

} // namespace hone

// Tests only: a base tensor marked trainable, so the op report's gradient-waste detector has
// something to find. It gets no accumulator and no optimizer state: nothing can update it.
static ggml_tensor * mark_frozen_param(hone_trainer & tr) {
    if (tr.test_frozen_param.empty()) return nullptr;
    HONE_CHECK_ARG(tr.p.dry_run, "marking a base tensor trainable ('%s') is for dry runs only", tr.test_frozen_param.c_str());
    ggml_tensor * w = tr.model->weight(tr.test_frozen_param, false);
    HONE_CHECK_ARG(w, "%s: the model has no tensor '%s' to mark trainable", tr.model->path.c_str(), tr.test_frozen_param.c_str());
    HONE_CHECK_ARG(w->type == GGML_TYPE_F32 || w->type == GGML_TYPE_F16, "%s: tensor '%s' is %s; only F32/F16 tensors can have a gradient",
                   tr.model->path.c_str(), w->name, ggml_type_name(w->type));
    ggml_set_param(w);
    return w;
}

// The graphs and the scheduler, nothing allocated: forward (evaluation), forward + backward
// (training), the optimizer's two small graphs.
static void build_graphs(hone_trainer & tr) {
    hone_model & m = *tr.model;
    hone_adapter & ad = *tr.adapter;
    // with recomputation the head runs in chunks of rows (their logits rebuilt before their backward)
    const int chunk_rows = !tr.p.recompute ? 0 : tr.test_head_chunk_rows > 0 ? tr.test_head_chunk_rows : head_chunk_rows(m.hp);
    const size_t n_chunks = chunk_rows > 0 ? ((size_t) tr.T * tr.B + chunk_rows - 1) / chunk_rows : 0;
    // recomputation, full or selective, adds a clone of (at most) every forward node to the
    // backward graph; a chunk of the head has fewer than 64 nodes of forward, backward and clones
    const size_t gsize = training_graph_size(m.hp, tr.T) * (tr.p.recompute || tr.selective ? 2 : 1) + 64 * n_chunks;
    ggml_init_params ip = { ggml_tensor_overhead() * gsize * 2 + 2 * ggml_graph_overhead_custom(gsize, true), nullptr, true };
    tr.ctx_compute = ggml_init(ip);
    ggml_context * ctx = tr.ctx_compute;

    for (ggml_tensor * t : ad.trainable()) ggml_set_param(t);
    tr.frozen_param = mark_frozen_param(tr);
    // the test backend exists before the graph: it decides fused attention as a GPU would
    HONE_CHECK_ARG(tr.test_refuse_ops.empty() || tr.test_metal_rules.empty(), "refusing ops and Metal's rules are two test backends: choose one");
    if (!tr.test_refuse_ops.empty()) tr.test_backend = refusing_backend_init(tr.test_refuse_ops, m.n_threads);
    if (!tr.test_metal_rules.empty()) tr.test_backend = metal_rules_backend_init(tr.test_metal_rules, m.n_threads);
    const TrainingLoss tl = build_training_loss(ctx, m, ad, tr.T, tr.B, tr.test_backend, chunk_rows, tr.packed);
    tr.in = tl.in;
    tr.li = tl.li;
    tr.loss = tl.loss;

    tr.gf = ggml_new_graph_custom(ctx, gsize, true);
    ggml_build_forward_expand(tr.gf, tr.loss);

    // One F32 accumulator per parameter (added to in place by the backward pass), each a view
    // of one flat tensor, and a constant 1 as the loss's seed gradient (in ctx_state:
    // accumulators are zeroed every step). The flat tensor lets the optimizer take the norm and
    // the clipping of every gradient in one pass each, not five small kernels per tensor. Where
    // the trained tensors are exactly the adapter's, in its one buffer, each gradient sits
    // at its parameter's offset in that buffer, so AdamW can also run once over the whole buffer.
    const size_t n_pairs = ad.pairs.size();
    tr.ctx_accs = ggml_init({ ggml_tensor_overhead() * (n_pairs * 2 + 2), nullptr, true });
    tr.ctx_state = ggml_init({ ggml_tensor_overhead() * (n_pairs * 4 + 8), nullptr, true });
    const auto is_trained = [&](const ggml_tensor * node) { return node != tr.frozen_param && (node->flags & GGML_TENSOR_FLAG_PARAM); };
    const size_t f = sizeof(float);
    const char * ad_base = ad.buf ? (const char *) ggml_backend_buffer_get_base(ad.buf) : nullptr;
    const size_t ad_size = ad.buf ? ggml_backend_buffer_get_size(ad.buf) : 0;
    bool at_param_offsets = ad.buf != nullptr; // (the optimizer checks the buffer is whole 64-element rows)
    const int64_t acc_align = 64; // elements: otherwise every view starts 256 bytes into the flat tensor
    int64_t acc_elements = 0;
    size_t n_trained = 0;
    for (int i = 0; i < ggml_graph_n_nodes(tr.gf); i++) {
        const ggml_tensor * node = ggml_graph_node(tr.gf, i);
        if (!is_trained(node)) continue;
        n_trained++;
        acc_elements += GGML_PAD(ggml_nelements(node), acc_align);
        at_param_offsets = at_param_offsets && node->buffer == ad.buf && node->type == GGML_TYPE_F32 && ggml_is_contiguous(node) &&
                           ((const char *) node->data - ad_base) % f == 0;
    }
    // every buffer element belongs to a trained tensor or a gap: AdamW over it all changes no other tensor
    at_param_offsets = at_param_offsets && n_trained == ad.trainable().size();
    if (at_param_offsets) acc_elements = (int64_t) (ad_size / f);
    ggml_tensor * acc_all = ggml_new_tensor_1d(tr.ctx_accs, GGML_TYPE_F32, std::max<int64_t>(acc_elements, 1));
    ggml_set_name(acc_all, "grad_acc_all");
    std::vector<ggml_tensor *> accs(ggml_graph_n_nodes(tr.gf), nullptr);
    std::vector<std::pair<ggml_tensor *, ggml_tensor *>> params_and_grads;
    bool frozen_used = false;
    int64_t acc_at = 0;
    for (int i = 0; i < ggml_graph_n_nodes(tr.gf); i++) {
        ggml_tensor * node = ggml_graph_node(tr.gf, i);
        if (node == tr.frozen_param) {
            frozen_used = true;
        } else if (is_trained(node)) {
            const size_t offs = at_param_offsets ? (size_t) ((const char *) node->data - ad_base) : f * acc_at;
            accs[i] = ggml_view_4d(tr.ctx_accs, acc_all, node->ne[0], node->ne[1], node->ne[2], node->ne[3], f * node->ne[0],
                                   f * node->ne[0] * node->ne[1], f * node->ne[0] * node->ne[1] * node->ne[2], offs);
            acc_at += GGML_PAD(ggml_nelements(node), acc_align);
            ggml_format_name(accs[i], "grad_acc.%s", node->name);
            params_and_grads.emplace_back(node, accs[i]);
        } else if (node->flags & GGML_TENSOR_FLAG_LOSS) {
            accs[i] = ggml_new_tensor_1d(tr.ctx_state, GGML_TYPE_F32, 1);
            ggml_set_name(accs[i], "loss_seed_grad");
        }
    }
    HONE_CHECK_ARG(!tr.frozen_param || frozen_used, "tensor '%s' is not used by the training graph", tr.test_frozen_param.c_str());
    tr.gb = ggml_graph_dup(ctx, tr.gf, true);
    ggml_build_backward_expand(ctx, tr.gb, accs.data());
    tr.opt.build(tr.ctx_state, params_and_grads, acc_all, at_param_offsets ? ad.buf : nullptr);
    for (int i = 0; i < ggml_graph_n_nodes(tr.gb); i++) {
        if (ggml_graph_node(tr.gb, i) == tr.loss) { tr.n_forward_nodes = i + 1; break; }
    }
    if (tr.p.recompute) {
        std::vector<ggml_tensor *> checkpoints = tl.layer_outputs;
        if (tl.head_input) checkpoints.push_back(tl.head_input);
        recompute_activations(ctx, tr.gb, tr.n_forward_nodes, recompute_keep_set(tr.gb, tr.n_forward_nodes, checkpoints, tl.head_logits));
    } else if (tr.selective) {
        // tensors under a quarter of a layer's input are kept: a rank-r product's clone saves nothing
        const int64_t min_elements = (int64_t) m.hp.n_embd * tr.T * tr.B / 4;
        recompute_activations(ctx, tr.gb, tr.n_forward_nodes, selective_keep_set(tr.gb, tr.n_forward_nodes, min_elements));
    }
    tr.sources.save(tr.gb);
    for (ggml_tensor * t : ad.trainable()) tr.trainable.insert(t);
    tr.waste = find_gradient_waste(tr.gb, tr.n_forward_nodes, tr.trainable);

    std::vector<ggml_backend_t> list = m.backends.list();
    if (tr.test_backend) list.insert(list.begin(), tr.test_backend);
    tr.sched = ggml_backend_sched_new(list.data(), nullptr, (int) list.size(), gsize, false, true);
}

// Gradient accumulators, optimizer state and the optimizer graphs: adapter-sized.
static void allocate_static(hone_trainer & tr) {
    ggml_backend_t primary = tr.model->backends.primary;
    tr.buf_accs = ggml_backend_alloc_ctx_tensors(tr.ctx_accs, primary);
    tr.buf_state = ggml_backend_alloc_ctx_tensors(tr.ctx_state, primary);
    if (!tr.buf_accs || !tr.buf_state) fail(HONE_E_MEMORY, "not enough %s memory for gradients and optimizer state", ggml_backend_name(primary));
    ggml_backend_buffer_clear(tr.buf_accs, 0);
    ggml_backend_buffer_clear(tr.buf_state, 0);
    const float one = 1.0f;
    ggml_backend_tensor_set(ggml_get_tensor(tr.ctx_state, "loss_seed_grad"), &one, 0, sizeof(one));
    tr.opt.alloc(primary);
}

// The training graph's compute buffers: activations, gradients, attention scores, logits.
static void allocate_compute(hone_trainer & tr) {
    // Planning sized the buffers without allocating them: reserve allocates them (allocating
    // the graph straight after a size-only reserve would use buffers that do not exist).
    tr.sources.restore();
    const bool reserved = ggml_backend_sched_reserve(tr.sched, tr.gb);
    tr.sources.restore();
    if (!reserved || !ggml_backend_sched_alloc_graph(tr.sched, tr.gb)) {
        fail(HONE_E_MEMORY, "not enough memory for the training graph at context %d x %d sequence(s): lower --ctx or --ubatch, or the rank",
             tr.T, tr.B);
    }
    tr.sched_graph = tr.gb;
    tr.masks_set_for = nullptr;
}

// The scheduler holds one graph's allocation at a time: training and evaluation switch it.
static void use_graph(hone_trainer & tr, ggml_cgraph * g) {
    if (tr.sched_graph == g) return;
    tr.masks_set_for = nullptr; // a new allocation: its inputs hold nothing yet
    ggml_backend_sched_reset(tr.sched);
    tr.sources.restore();
    if (!ggml_backend_sched_alloc_graph(tr.sched, g)) fail(HONE_E_MEMORY, "cannot allocate the %s graph", g == tr.gb ? "training" : "evaluation");
    tr.sched_graph = g;
}

// A micro-batch: B rows, each the sequences it holds in order (none: a row of padding).
using Rows = std::vector<std::vector<const PreparedSeq *>>;

// Uploads one micro-batch and the scale that turns its mean-over-rows cross-entropy into its
// share of the step's loss. A row's sequences follow one another, each from position 0; the
// padding after the last continues it (no real token attends to it, and it carries no loss).
// Returns the real input tokens uploaded.
static int64_t upload_micro_batch(hone_trainer & tr, const Rows & rows, float loss_scale) {
    const int T = tr.T, B = tr.B;
    std::vector<int32_t> tokens(T * B), pos(T * B), targets(T * B, -1), segments(T * B);
    std::vector<float> mask(T * B, 0.0f);
    const int32_t pad = std::max(0, hone_model_token_eos(tr.model));
    int64_t real = 0;
    for (int b = 0; b < B; b++) {
        int t = 0, seg = 0, start = 0;
        for (const PreparedSeq * s : rows[b]) {
            start = t;
            for (int i = 0; i < s->n_real; i++, t++) {
                const int r = b * T + t;
                tokens[r] = s->input[i];
                pos[r] = i;
                segments[r] = seg;
                if (s->mask[i]) {
                    mask[r] = 1.0f;
                    targets[r] = s->target[i];
                }
            }
            real += s->n_real;
            seg++;
        }
        for (seg = std::max(0, seg - 1); t < T; t++) {
            tokens[b * T + t] = pad;
            pos[b * T + t] = t - start;
            segments[b * T + t] = seg;
        }
    }
    ggml_backend_tensor_set(tr.in.tokens, tokens.data(), 0, tokens.size() * sizeof(int32_t));
    set_positions(tr.in, pos);
    // unpacked, the masks once per allocation of the graph (at 16384 tokens building and
    // converting them on the host took a few hundred milliseconds a step); packed, whenever the
    // rows' layout changes
    if (tr.masks_set_for != tr.sched_graph || (tr.packed && segments != tr.masks_segments)) {
        set_attention_masks(tr.in, tr.model->hp, T, tr.packed ? &segments : nullptr);
        tr.masks_set_for = tr.sched_graph;
        if (tr.packed) tr.masks_segments = std::move(segments);
    }
    set_delta_net_inputs(tr.in.dn);
    ggml_backend_tensor_set(tr.li.targets, targets.data(), 0, targets.size() * sizeof(int32_t));
    ggml_backend_tensor_set(tr.li.loss_mask, mask.data(), 0, mask.size() * sizeof(float));
    ggml_backend_tensor_set(tr.li.loss_scale, &loss_scale, 0, sizeof(float));
    return real;
}

// The rows a list of sequences takes: one sequence a row, or packed (first-fit decreasing).
static Rows arrange_rows(const hone_trainer & tr, const std::vector<const PreparedSeq *> & seqs) {
    Rows rows;
    if (!tr.packed) {
        for (const PreparedSeq * s : seqs) rows.push_back({ s });
        return rows;
    }
    std::vector<int32_t> lengths;
    for (const PreparedSeq * s : seqs) lengths.push_back(s->n_real);
    for (const auto & r : pack_rows(lengths, tr.T)) {
        rows.emplace_back();
        for (int32_t i : r) rows.back().push_back(seqs[i]);
    }
    return rows;
}

// Micro-batch mb of B rows (the last one filled up with rows of padding).
static Rows micro_batch(const Rows & rows, int mb, int B) {
    Rows out(B);
    for (int b = 0; b < B && (size_t) mb * B + b < rows.size(); b++) out[b] = rows[(size_t) mb * B + b];
    return out;
}

static int micro_batches(const Rows & rows, int B) { return (int) ((rows.size() + B - 1) / B); }

static float compute_loss(hone_trainer & tr, ggml_cgraph * g, const char * what, int64_t step) {
    if (ggml_backend_sched_graph_compute(tr.sched, g) != GGML_STATUS_SUCCESS) {
        fail(HONE_E_INTERNAL, "%s graph compute failed at step %lld", what, (long long) step);
    }
    float l = 0.0f;
    ggml_backend_tensor_get(tr.loss, &l, 0, sizeof(l));
    return l;
}

// The loss over all held-out sequences, with the same definition as the training loss
// (their loss tokens' summed cross-entropy over their count), forward pass only.
static hone_eval_event evaluate(hone_trainer & tr, const std::vector<PreparedSeq> & eval) {
    int64_t n_loss = 0;
    for (auto & s : eval) n_loss += s.n_loss;
    hone_eval_event ev{};
    ev.step = (int32_t) tr.pos.step;
    ev.loss_tokens = n_loss;
    ev.n_sequences = (int32_t) eval.size();
    if (n_loss == 0) return ev;
    use_graph(tr, tr.gf);
    const float scale = loss_scale(tr.T, tr.B, n_loss);
    std::vector<const PreparedSeq *> all;
    for (const PreparedSeq & s : eval) all.push_back(&s);
    const Rows rows = arrange_rows(tr, all);
    double sum = 0.0;
    for (int mb = 0; mb < micro_batches(rows, tr.B); mb++) {
        upload_micro_batch(tr, micro_batch(rows, mb, tr.B), scale);
        sum += compute_loss(tr, tr.gf, "evaluation", tr.pos.step);
    }
    use_graph(tr, tr.gb);
    ev.eval_loss = (float) sum;
    return ev;
}

static std::vector<PreparedSeq> prepare_all(hone_trainer & tr, const hone_sequence * seqs, int32_t n, const char * what) {
    std::vector<PreparedSeq> out;
    const int32_t pad = std::max(0, hone_model_token_eos(tr.model));
    const int32_t n_vocab = tr.model->hp.n_vocab;
    for (int32_t i = 0; i < n; i++) {
        const hone_sequence & s = seqs[i];
        HONE_CHECK_ARG(s.n_tokens >= 0 && (s.tokens || s.n_tokens == 0), "%s sequence %d has no tokens array", what, i);
        for (int32_t k = 0; k < s.n_tokens; k++) {
            HONE_CHECK_ARG(s.tokens[k] >= 0 && s.tokens[k] < n_vocab, "%s sequence %d: token %d at position %d is outside the vocabulary (0..%d)",
                           what, i, s.tokens[k], k, n_vocab - 1);
        }
        out.push_back(prepare_sequence(s, tr.T, pad));
    }
    return out;
}

// Tests only: HONE_TEST_FAKE_GPU_OOM_AT_STEP=N makes step N end the way a CUDA allocation that
// fails inside ggml does (its error lines, then ggml's abort), so the report and the parent's
// handling of it are tested on machines without a GPU.
static void test_fake_gpu_oom(int64_t step) {
    static const char * at = std::getenv("HONE_TEST_FAKE_GPU_OOM_AT_STEP");
    if (!at || std::atoll(at) != step) return;
    hone::note_error_log("CUDA error: out of memory\n");
    hone::note_error_log("  current device: 0, in function alloc at ggml-cuda.cu:455\n");
    hone::note_error_log("  cudaMalloc((void **) &ptr, look_ahead_size)\n");
    GGML_ABORT("CUDA error");
}

// The pieces of one training step, so hone_trainer_train's loop reads as the step itself.

// The wall clock of one hone_trainer_train call, counted on from the time of earlier calls.
struct RunClock {
    std::chrono::steady_clock::time_point t0;
    double elapsed0;
    double elapsed() const { return elapsed0 + std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); }
};

// One step's sequences in their rows, their loss tokens and the scale that makes the
// micro-batches' summed loss the mean over those tokens.
struct StepBatch {
    Rows rows;
    int64_t loss_tokens = 0;
    float scale = 0.0f;
    int n_micro = 0;
};

static StepBatch take_batch(hone_trainer & tr, const std::vector<PreparedSeq> & data, StepPlan & plan, int64_t seg_step) {
    StepBatch b;
    std::vector<const PreparedSeq *> seqs;
    for (int32_t i : plan.take(seg_step)) {
        seqs.push_back(&data[i]);
        b.loss_tokens += data[i].n_loss;
    }
    tr.pos.cursor = plan.start(seg_step);
    b.rows = arrange_rows(tr, seqs);
    b.n_micro = micro_batches(b.rows, tr.B);
    b.scale = loss_scale(tr.T, tr.B, b.loss_tokens);
    return b;
}

// When a step starts: its clock, the micro-batch it starts from (a resumed step may be part
// done) and, on profiled steps, the op profile's hook on every graph node.
struct StepStart {
    std::chrono::steady_clock::time_point ts;
    int first_micro;
    int64_t tokens0, positions0; // the run's counts before this process's part of the step
};

static StepStart begin_step(hone_trainer & tr, int64_t step) {
    const StepStart s{ std::chrono::steady_clock::now(), tr.pos.micro, tr.pos.tokens, tr.pos.positions };
    const bool profiled = tr.profile && OpProfile::profiles(step);
    ggml_backend_sched_set_eval_callback(tr.sched, profiled ? OpProfile::on_node : nullptr, tr.profile.get());
    return s;
}

// Forward and backward over micro-batch mb: its loss and gradients add to the step's.
static void forward_backward(hone_trainer & tr, const StepBatch & batch, int64_t step, int mb) {
    const int64_t real = upload_micro_batch(tr, micro_batch(batch.rows, mb, tr.B), batch.scale);
    tr.pos.loss_sum += compute_loss(tr, tr.gb, "training", step + 1);
    tr.pos.tokens += real;
    tr.pos.positions += (int64_t) tr.T * tr.B;
    tr.pos.micro = mb + 1;
    sample_memory(tr.memory);
}

struct StepUpdate {
    float grad_norm, clip_scale, lr;
};

// The optimizer step over the accumulated gradients (none when the step had no loss token),
// then the accumulators cleared for the next step.
static StepUpdate optimizer_step(hone_trainer & tr, int64_t step, int64_t seg0, int64_t n_steps, int64_t loss_tokens) {
    const hone_train_params & p = tr.p;
    StepUpdate u;
    u.grad_norm = tr.opt.gradient_norm();
    u.clip_scale = clip_factor(u.grad_norm, p.max_grad_norm);
    u.lr = segment_lr(p, step, seg0, n_steps);
    ggml_backend_sched_set_eval_callback(tr.sched, nullptr, nullptr); // the op profile sees only the training graph
    if (loss_tokens > 0) tr.opt.step(p, u.lr, u.clip_scale);
    ggml_backend_buffer_clear(tr.buf_accs, 0);
    return u;
}

// After the optimizer step: the memory sample, the op profile's step time, the step event, the
// position moved to the next step and the adapter's record of it.
static hone_step_event end_step(hone_trainer & tr, const StepStart & s, const StepBatch & batch, const StepUpdate & u, int64_t step,
                                int64_t n_steps, const RunClock & clock) {
    const auto te = std::chrono::steady_clock::now();
    const double seconds = std::chrono::duration<double>(te - s.ts).count();
    sample_memory(tr.memory);
    if (tr.profile && s.first_micro == 0) tr.profile->record_step(step, !tr.stepped, seconds);
    tr.stepped = true;
    hone_step_event ev;
    ev.step = (int32_t) step + 1;
    ev.n_steps = (int32_t) n_steps;
    ev.loss = (float) tr.pos.loss_sum;
    ev.lr = u.lr;
    ev.grad_norm = u.grad_norm;
    ev.clip_scale = u.clip_scale;
    // speed and fill over the micro-batches this process ran (a resumed step may start part done)
    const int64_t real = tr.pos.tokens - s.tokens0, positions = tr.pos.positions - s.positions0;
    ev.tokens = tr.pos.tokens;
    ev.positions = tr.pos.positions;
    ev.loss_tokens = batch.loss_tokens;
    ev.tokens_per_s = (double) real / seconds;
    ev.row_fill = positions > 0 ? (double) real / (double) positions : 0.0;
    ev.elapsed_s = clock.elapsed();
    tr.pos.step = step + 1;
    tr.pos.micro = 0;
    tr.pos.loss_sum = 0.0;
    TrainingRecord & rec = tr.adapter->record;
    rec.steps = tr.pos.step;
    rec.has_train_loss = true;
    rec.train_loss = ev.loss;
    return ev;
}

// Evaluation after every eval_every steps and after the last; checkpoints after every
// checkpoint_every steps and after the last (so a finished run can be continued).
static bool every(int32_t n, int64_t step, bool last) { return (n > 0 && step % n == 0) || last; }

namespace hone {

PlanShape plan_shape(const hone_trainer & tr) {
    return { tr.T, tr.B, tr.adapter->params.rank, tr.adapter->pairs.size(), tr.p.recompute };
}

// The parts of the trainer a checkpoint holds or fills.
static CheckpointState checkpoint_state(hone_trainer & tr) {
    return { *tr.adapter, tr.opt, tr.pos, tr.resumed_data, *tr.model, tr.p, tr.run_config };
}

} // namespace hone

// The memory plan's measured part: the static buffers as allocated and the compute buffers
// the scheduler's split of the training graph asks for (from the sources as built).
static void plan_static(hone_trainer & tr) {
    const hone_model & m = *tr.model;
    PlanBuffers buffers;
    buffers.weights = m.buf_w;
    buffers.weights_mapped = m.map != nullptr;
    buffers.adapter = tr.adapter->buf;
    buffers.grad_accs = tr.buf_accs;
    buffers.opt_state = tr.buf_state;
    buffers.optimizer_graph_bytes = tr.opt.graph_bytes();
    buffers.optimizer_graphs = { tr.opt.step_graph(), tr.opt.norm_graph() };
    tr.sources.restore();
    finish_memory_plan(tr.memory, m.backends, buffers, { tr.sched, tr.gb, m.n_threads });
}

// A trainer with its graphs built, its adapter-sized buffers allocated and its memory planned:
// everything but the compute buffer, which allocate_compute makes once the plan is known to fit.
static std::unique_ptr<hone_trainer> plan_trainer(hone_model * model, hone_adapter * adapter, const hone_train_params & p,
                                                  const hone_train_test_hooks * hooks, bool selective) {
    auto tr = std::make_unique<hone_trainer>();
    tr->model = model;
    tr->adapter = adapter;
    tr->p = p;
    tr->checkpoint_dir = p.checkpoint_dir ? p.checkpoint_dir : "";
    tr->run_config = p.run_config_json ? p.run_config_json : "{}";
    adapter->record.run_config = tr->run_config; // the adapter file says what trained it
    tr->test_refuse_ops = hooks && hooks->refuse_ops ? hooks->refuse_ops : "";
    tr->test_frozen_param = hooks && hooks->frozen_param ? hooks->frozen_param : "";
    tr->test_metal_rules = hooks && hooks->metal_rules ? hooks->metal_rules : "";
    tr->test_head_chunk_rows = hooks ? hooks->head_chunk_rows : 0;
    tr->p.checkpoint_dir = nullptr; // the owned copies are the ones used
    tr->p.run_config_json = nullptr;
    tr->T = p.n_ctx;
    tr->B = p.n_ubatch;
    tr->selective = selective;
    // a delta-net layer carries its state from one position to the next: packed sequences would share it
    tr->packed = p.pack && std::none_of(model->hp.recurrent_l.begin(), model->hp.recurrent_l.end(), [](char r) { return r != 0; });
    if (p.profile) tr->profile = std::make_unique<OpProfile>();
    // Plan before the compute buffer exists: free memory is read before anything is allocated.
    tr->memory = start_memory_plan(model->backends, p.memory_limit);
    build_graphs(*tr);
    allocate_static(*tr);
    plan_static(*tr);
    return tr;
}

// The micro-batch: the asked size, or (n_ubatch 0) the most rows a step fills whose plan fits in
// the given mode, found by bisection over micro_batch_candidates (a plan's size grows with the
// rows). Returns the planned trainer of the size chosen and why it was chosen.
struct MicroBatchChoice {
    std::unique_ptr<hone_trainer> trainer;
    std::string reason;
};
static MicroBatchChoice choose_micro_batch(hone_model * model, hone_adapter * adapter, const hone_train_params & p,
                                           const hone_train_test_hooks * hooks, bool selective) {
    if (p.n_ubatch > 0) return { plan_trainer(model, adapter, p, hooks, selective), "asked for" };
    const bool fixed = p.n_batch_tokens == 0 && !p.pack; // unpacked steps of n_batch sequences
    const int32_t rows = fixed || p.n_step_rows == 0 ? p.n_batch : p.n_step_rows;
    const std::vector<int32_t> sizes = micro_batch_candidates(rows, p.n_batch, fixed);
    auto plan_at = [&](int32_t b) {
        hone_train_params q = p;
        q.n_ubatch = b;
        return plan_trainer(model, adapter, q, hooks, selective);
    };
    const char * s = rows == 1 ? "" : "s";
    const std::string step = fixed ? strfmt("a step's %d sequence%s", rows, s) : strfmt("the %d row%s a step fills at most", rows, s);
    // sizes[lo] does not fit (or lo == -1), sizes[hi] does (or hi == size): bisect between them
    int lo = -1, hi = (int) sizes.size();
    std::unique_ptr<hone_trainer> best;
    std::string overflow; // the plan of the next larger size, which does not fit
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        best.reset(); // each plan reads the free memory with no other plan's buffers held
        std::unique_ptr<hone_trainer> tr = plan_at(sizes[mid]);
        if (plan_fits(tr->memory)) {
            hi = mid;
            best = std::move(tr);
        } else {
            lo = mid;
            overflow = strfmt("%d: %s", sizes[mid], plan_overflow(tr->memory).c_str());
        }
    }
    const bool none = hi == (int) sizes.size();
    const int32_t chosen = sizes[none ? sizes.size() - 1 : hi];
    if (!best || best->B != chosen) best = plan_at(chosen);
    if (hi == 0) return { std::move(best), "automatic: " + step + " in one micro-batch" };
    if (!none) return { std::move(best), "automatic: the most of " + step + " whose plan fits (" + overflow + ")" };
    return { std::move(best), "automatic: not even 1 row fits (" + overflow + ")" };
}

extern "C" {

hone_train_params hone_train_default_params(void) {
    hone_train_params p;
    p.n_ctx = 512;
    p.n_batch = 1;
    p.n_batch_tokens = 0;
    p.n_ubatch = 1;
    p.n_steps = 0;
    p.n_epochs = 1;
    p.lr = 1e-4f;
    p.lr_schedule = HONE_LR_CONSTANT;
    p.warmup_steps = 0;
    p.lr_min = 0.0f;
    p.weight_decay = 0.0f;
    p.beta1 = 0.9f;
    p.beta2 = 0.999f;
    p.eps = 1e-8f;
    p.max_grad_norm = 1.0f;
    p.seed = 42;
    p.eval_every = 0;
    p.checkpoint_dir = nullptr;
    p.checkpoint_every = 0;
    p.keep_checkpoints = 3;
    p.run_config_json = nullptr;
    p.dry_run = false;
    p.profile = false;
    p.memory_limit = 0;
    p.recompute = false;
    p.pack = true;
    p.n_step_rows = 0;
    return p;
}

hone_status hone_trainer_init(hone_model * model, hone_adapter * adapter, const hone_train_params * params,
                              hone_trainer ** out, hone_error * err) {
    return hone_trainer_init_test(model, adapter, params, nullptr, out, err);
}

hone_status hone_trainer_init_test(hone_model * model, hone_adapter * adapter, const hone_train_params * params,
                                   const hone_train_test_hooks * hooks, hone_trainer ** out, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(model && adapter && params && out, "model, adapter and params are required");
        HONE_CHECK_ARG(adapter->model == model, "the adapter belongs to another model");
        const hone_train_params & p = *params;
        HONE_CHECK_ARG(p.n_ctx >= 2, "context length must be at least 2 (got %d)", p.n_ctx);
        // packed or token-budget steps fill a varying number of rows: any micro-batch size splits them
        HONE_CHECK_ARG(p.n_ubatch >= 0 && (p.n_ubatch == 0 || p.n_batch_tokens > 0 || p.pack || (p.n_batch >= p.n_ubatch && p.n_batch % p.n_ubatch == 0)),
                       "batch (%d) must be a positive multiple of the micro-batch (%d)", p.n_batch, p.n_ubatch);
        HONE_CHECK_ARG(p.n_batch >= 1 || p.n_batch_tokens > 0, "batch must be at least 1 sequence (got %d)", p.n_batch);
        HONE_CHECK_ARG(p.n_step_rows >= 0, "the rows a step fills must be >= 0 (0: the batch; got %d)", p.n_step_rows);
        HONE_CHECK_ARG(p.n_steps > 0 || p.n_epochs > 0, "give a number of steps or epochs");
        HONE_CHECK_ARG(p.n_batch_tokens >= 0, "the token budget of a step must be >= 0 (0: n_batch sequences a step; got %d)", p.n_batch_tokens);
        HONE_CHECK_ARG(p.lr > 0.0f, "learning rate must be positive (got %g)", p.lr);
        HONE_CHECK_ARG(p.lr_schedule >= HONE_LR_CONSTANT && p.lr_schedule <= HONE_LR_COSINE, "unknown learning-rate schedule %d", p.lr_schedule);
        HONE_CHECK_ARG(p.warmup_steps >= 0 && (p.n_steps == 0 || p.warmup_steps < p.n_steps),
                       "warm-up steps (%d) must be fewer than the steps (%d)", p.warmup_steps, p.n_steps);
        HONE_CHECK_ARG(p.lr_min >= 0.0f && p.lr_min <= p.lr, "minimum learning rate (%g) must be in [0, lr = %g]", p.lr_min, p.lr);
        HONE_CHECK_ARG(p.weight_decay >= 0.0f && p.weight_decay <= 1.0f, "weight decay must be in [0, 1] (got %g)", p.weight_decay);
        HONE_CHECK_ARG(p.beta1 >= 0.0f && p.beta1 < 1.0f && p.beta2 >= 0.0f && p.beta2 < 1.0f, "AdamW betas must be in [0, 1)");
        HONE_CHECK_ARG(p.eps > 0.0f, "AdamW epsilon must be positive (got %g)", p.eps);
        HONE_CHECK_ARG(p.max_grad_norm >= 0.0f, "maximum gradient norm must be >= 0 (0: no clipping; got %g)", p.max_grad_norm);
        HONE_CHECK_ARG(p.eval_every >= 0, "evaluation interval must be >= 0 (got %d)", p.eval_every);
        HONE_CHECK_ARG(p.checkpoint_every >= 0, "checkpoint interval must be >= 0 (got %d)", p.checkpoint_every);
        HONE_CHECK_ARG(p.keep_checkpoints >= 0, "checkpoints to keep must be >= 0 (got %d)", p.keep_checkpoints);
        HONE_CHECK_ARG(p.memory_limit >= 0, "memory limit must be >= 0 bytes (0: the free memory; got %lld)", (long long) p.memory_limit);
        // Selective recomputation where it is on, or (auto) where the plain graph's plan does not
        // fit: the plain graph is planned first and, if it does not fit, dropped before the other
        // is built (its buffers freed, so the second plan reads the same free memory).
        const SelectiveMode selective = p.recompute ? SelectiveMode::OFF : selective_recompute_mode(!is_cpu_backend(model->backends.primary));
        MicroBatchChoice mb = choose_micro_batch(model, adapter, p, hooks, selective == SelectiveMode::ON);
        std::unique_ptr<hone_trainer> tr = std::move(mb.trainer);
        hone_train_params q = tr->p; // the micro-batch resolved
        std::string mode = p.recompute ? "recompute" : selective == SelectiveMode::ON ? "selective" : "plain";
        const bool env_set = selective_recompute_asked();
        std::string reason = p.recompute ? "asked for"
                           : selective == SelectiveMode::ON ? (env_set ? "asked for (HONE_SELECTIVE_RECOMPUTE)" : "the CPU's default")
                           : selective == SelectiveMode::OFF && env_set ? "asked for (HONE_SELECTIVE_RECOMPUTE=0)" : "the plain graph fits";
        // auto (a GPU): the cheapest mode that fits, plain, then selective, then every layer recomputed
        if (selective == SelectiveMode::AUTO && !plan_fits(tr->memory)) {
            const std::string plain = plan_overflow(tr->memory);
            tr.reset();
            tr = plan_trainer(model, adapter, q, hooks, true);
            mode = "selective";
            reason = "the plain graph does not fit (" + plain + ")";
            if (!plan_fits(tr->memory)) {
                const std::string sel = plan_overflow(tr->memory);
                hone_train_params full = q;
                full.recompute = true; // the same gradients, about one more forward pass of time
                tr.reset();
                tr = plan_trainer(model, adapter, full, hooks, false);
                mode = "recompute";
                reason = "neither the plain graph (" + plain + ") nor selective recomputation (" + sel + ") fits";
            }
        }
        tr->memory.ubatch = q.n_ubatch;
        tr->memory.ubatch_reason = mb.reason;
        tr->memory.mode = mode;
        tr->memory.mode_reason = reason;
        if (!p.dry_run) {
            check_plan_fits(tr->memory, plan_shape(*tr));
            allocate_compute(*tr);
            set_fatal_context(memory_plan_line(tr->memory, plan_shape(*tr)));
        }
        *out = tr.release();
    });
}

hone_status hone_trainer_resume(hone_trainer * tr, const char * dir, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(tr && dir, "trainer and checkpoint folder are required");
        HONE_CHECK_ARG(tr->pos.step == 0 && tr->pos.micro == 0, "resume a checkpoint into a fresh trainer");
        load_checkpoint(checkpoint_state(*tr), dir);
        tr->adapter->record.steps = tr->pos.step;
    });
}

hone_status hone_trainer_continue(hone_trainer * tr, const char * dir, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(tr && dir, "trainer and checkpoint folder are required");
        HONE_CHECK_ARG(tr->pos.step == 0 && tr->pos.micro == 0, "continue a checkpoint in a fresh trainer");
        continue_from_checkpoint(checkpoint_state(*tr), dir);
        tr->adapter->record.steps = tr->pos.step;
    });
}

hone_status hone_trainer_save_checkpoint(hone_trainer * tr, char * path, size_t path_size, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(tr, "trainer is required");
        HONE_CHECK_ARG(!tr->checkpoint_dir.empty(), "this trainer has no checkpoint folder");
        HONE_CHECK_ARG(tr->resumed_data.known, "nothing to checkpoint: the trainer has not trained");
        const std::string dir = save_checkpoint(checkpoint_state(*tr), tr->checkpoint_dir);
        prune_checkpoints(tr->checkpoint_dir, tr->p.keep_checkpoints);
        if (path && path_size) snprintf(path, path_size, "%s", dir.c_str());
    });
}

int32_t hone_trainer_step(const hone_trainer * tr) { return tr ? (int32_t) tr->pos.step : 0; }

bool hone_trainer_packs(const hone_trainer * tr) { return tr && tr->packed; }

hone_status hone_trainer_train(hone_trainer * tr, const hone_sequence * seqs, int32_t n_seqs, const hone_sequence * eval_seqs,
                               int32_t n_eval, const hone_train_callbacks * cbs, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(tr && (seqs || n_seqs == 0) && (eval_seqs || n_eval == 0), "trainer and sequences are required");
        HONE_CHECK_ARG(!tr->p.dry_run, "this trainer was built for a dry run (nothing allocated to train with)");
        const hone_train_params & p = tr->p;
        const hone_train_callbacks cb = cbs ? *cbs : hone_train_callbacks{};
        std::vector<PreparedSeq> data = prepare_all(*tr, seqs, n_seqs, "training");
        std::vector<PreparedSeq> eval = prepare_all(*tr, eval_seqs, n_eval, "evaluation");
        int64_t total_loss_tokens = 0;
        for (auto & s : data) total_loss_tokens += s.n_loss;
        if (data.empty() || total_loss_tokens == 0) fail(HONE_E_INVALID_ARG, "the dataset is empty: no token carries loss");

        int n_micro = 0; // the micro-batches of the step in progress (packed rows: fewer than n_batch / n_ubatch)
        // A continued run (hone_trainer_continue) trains a new segment: its own schedule and
        // data order over its own steps, counted on from the steps before it.
        std::vector<int32_t> lengths;
        for (const PreparedSeq & s : data) lengths.push_back(s.n_real);
        // an epoch-counted run draws epochs x n sequences; a step-counted one draws on
        StepPlan plan(std::move(lengths), p.n_batch, p.n_batch_tokens, p.seed, p.n_steps > 0 ? 0 : (int64_t) p.n_epochs * n_seqs);
        const int64_t seg0 = tr->pos.segment_start, n_seg = p.n_batch_tokens > 0 && p.n_steps == 0 ? plan.steps_to_limit() : planned_steps(p, n_seqs);
        const int64_t n_steps = seg0 + n_seg;
        HONE_CHECK_ARG(p.warmup_steps < n_seg, "warm-up steps (%d) must be fewer than the steps (%lld: %d epoch(s) of %d sequences in batches of %d)",
                       p.warmup_steps, (long long) n_seg, p.n_epochs, n_seqs, p.n_batch);
        DataIdentity here{ true, n_steps, n_seqs, n_eval, fingerprint(data), fingerprint(eval) };
        if (tr->resumed_data.known) check_same_data(tr->resumed_data, here);
        tr->resumed_data = here;
        TrainingRecord & rec = tr->adapter->record;
        rec.has_data = true;
        rec.n_train = here.n_train;
        rec.n_eval = here.n_eval;
        rec.train_fp = here.train_fp;
        rec.eval_fp = here.eval_fp;

        const RunClock clock{ std::chrono::steady_clock::now(), tr->pos.elapsed_s };
        // A checkpoint that cannot be written loses nothing: the state stays in memory, the
        // caller is told, and training goes on (the next checkpoint tries again).
        std::string checkpoint_error;
        auto checkpoint = [&] {
            if (tr->checkpoint_dir.empty()) return;
            tr->pos.elapsed_s = clock.elapsed();
            try {
                const std::string path = save_checkpoint(checkpoint_state(*tr), tr->checkpoint_dir);
                prune_checkpoints(tr->checkpoint_dir, p.keep_checkpoints);
                checkpoint_error.clear();
                hone_checkpoint_event ev{ path.c_str(), (int32_t) tr->pos.step, tr->pos.micro };
                if (cb.on_checkpoint) cb.on_checkpoint(&ev, cb.user_data);
            } catch (const std::exception & e) {
                const HoneError * he = dynamic_cast<const HoneError *>(&e);
                checkpoint_error = e.what();
                hone_checkpoint_failure f{ (int32_t) tr->pos.step, tr->pos.micro, (int32_t) (he ? he->code() : HONE_E_IO), checkpoint_error.c_str() };
                if (cb.on_checkpoint_failed) cb.on_checkpoint_failed(&f, cb.user_data);
            }
        };
        auto stop = [&](const char * how) {
            checkpoint();
            fail(HONE_E_CANCELLED, "training %s after step %lld%s%s", how, (long long) tr->pos.step,
                 tr->pos.micro ? strfmt(" and %d of %d micro-batches of the next", tr->pos.micro, n_micro).c_str() : "",
                 checkpoint_error.empty() ? "" : strfmt("; no checkpoint could be written (%s): the state is kept in memory", checkpoint_error.c_str()).c_str());
        };
        auto poll = [&] { return cb.poll ? cb.poll(cb.user_data) : HONE_TRAIN_CONTINUE; };

        bool stopping = false;
        while (tr->pos.step < n_steps) {
            const int64_t step = tr->pos.step;
            const StepBatch batch = take_batch(*tr, data, plan, step - seg0);
            n_micro = batch.n_micro;
            const StepStart start = begin_step(*tr, step);
            for (int mb = start.first_micro; mb < n_micro; mb++) {
                forward_backward(*tr, batch, step, mb);
                const int32_t ctl = poll();
                if (ctl != HONE_TRAIN_CONTINUE) stopping = true;
                if (ctl == HONE_TRAIN_PAUSE && mb + 1 < n_micro) stop("paused");
            }
            const StepUpdate update = optimizer_step(*tr, step, seg0, n_steps, batch.loss_tokens);
            hone_step_event ev = end_step(*tr, start, batch, update, step, n_steps, clock);
            if (cb.on_step && !cb.on_step(&ev, cb.user_data)) stopping = true;

            const bool last = tr->pos.step == n_steps;
            if (!eval.empty() && every(p.eval_every, tr->pos.step, last)) {
                hone_eval_event e = evaluate(*tr, eval);
                rec.has_eval_loss = true;
                rec.eval_loss = e.eval_loss;
                if (cb.on_eval) cb.on_eval(&e, cb.user_data);
            }
            if (stopping && !last) stop("stopped");
            if (every(p.checkpoint_every, tr->pos.step, last)) checkpoint();
            test_fake_gpu_oom(tr->pos.step + 1);
        }
    });
}

void hone_trainer_free(hone_trainer * tr) {
    if (tr) set_fatal_context(""); // a later abort is not this run's
    delete tr;
}

} // extern "C"
