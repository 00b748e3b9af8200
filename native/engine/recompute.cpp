#include "recompute.h"

#include "env_switch.h"

#include "error.h"

// struct ggml_cgraph: the node order, hash set and use counts rewritten here (its static
// helpers this file does not call would warn)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#include "ggml-impl.h"
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace hone {

namespace {

struct Rewriter {
    ggml_context * ctx;
    std::unordered_set<const ggml_tensor *> forward;
    const std::unordered_set<const ggml_tensor *> & keep;
    std::unordered_map<const ggml_tensor *, ggml_tensor *> clones;
    std::unordered_set<const ggml_tensor *> clone_set; // the clones themselves
    std::unordered_set<const ggml_tensor *> placed;
    std::vector<ggml_tensor *> order;

    // parameters are graph nodes too (op NONE): they hold data, never recomputed
    bool recomputed(const ggml_tensor * t) const { return t && t->op != GGML_OP_NONE && forward.count(t) && !keep.count(t); }

    // t's clone, its sources (and view source) cloned first where they are recomputed too
    ggml_tensor * clone(ggml_tensor * t) {
        auto it = clones.find(t);
        if (it != clones.end()) return it->second;
        ggml_tensor * c = ggml_new_tensor(ctx, t->type, GGML_MAX_DIMS, t->ne);
        memcpy(c->nb, t->nb, sizeof(t->nb));
        c->op = t->op;
        memcpy(c->op_params, t->op_params, sizeof(t->op_params));
        c->flags = t->flags & GGML_TENSOR_FLAG_COMPUTE; // not an output: it dies after its last reader
        ggml_format_name(c, "%.*s (re)", (int) sizeof(c->name) - 6, t->name);
        // known before its sources: a cast names itself as its destination (src[1] == t)
        clones.emplace(t, c);
        clone_set.insert(c);
        for (int s = 0; s < GGML_MAX_SRC; s++) c->src[s] = recomputed(t->src[s]) ? clone(t->src[s]) : t->src[s];
        if (t->view_src) {
            c->view_src = recomputed(t->view_src) ? clone(t->view_src) : t->view_src;
            c->view_offs = t->view_offs;
        }
        return c;
    }

    // a backward node after its not yet placed clone sources, depth first
    void place(ggml_tensor * t) {
        if (placed.count(t)) return;
        placed.insert(t);
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (t->src[s] && is_clone(t->src[s])) place(t->src[s]);
        }
        if (t->view_src && is_clone(t->view_src)) place(t->view_src);
        order.push_back(t);
    }

    bool is_clone(const ggml_tensor * t) const { return clone_set.count(t) > 0; }
};

} // namespace

std::unordered_set<const ggml_tensor *> recompute_keep_set(ggml_cgraph * gb, int n_forward, const std::vector<ggml_tensor *> & checkpoints,
                                                           const std::vector<ggml_tensor *> & rebuilt) {
    std::unordered_set<const ggml_tensor *> keep(checkpoints.begin(), checkpoints.end());
    if (checkpoints.empty()) return keep;
    // the ancestors of the last checkpoint: the layers' work; every other forward node is kept
    std::unordered_set<const ggml_tensor *> ancestors;
    std::vector<const ggml_tensor *> todo{ checkpoints.back() };
    while (!todo.empty()) {
        const ggml_tensor * t = todo.back();
        todo.pop_back();
        if (!ancestors.insert(t).second) continue;
        for (int s = 0; s < GGML_MAX_SRC; s++) if (t->src[s]) todo.push_back(t->src[s]);
        if (t->view_src) todo.push_back(t->view_src);
    }
    for (int i = 0; i < n_forward; i++) {
        const ggml_tensor * t = ggml_graph_node(gb, i);
        if (!ancestors.count(t)) keep.insert(t);
    }
    // each rebuilt tensor and what it is built from, back to the checkpoints
    const std::unordered_set<const ggml_tensor *> stops(checkpoints.begin(), checkpoints.end());
    std::unordered_set<const ggml_tensor *> seen;
    todo.assign(rebuilt.begin(), rebuilt.end());
    while (!todo.empty()) {
        const ggml_tensor * t = todo.back();
        todo.pop_back();
        if (stops.count(t) || !seen.insert(t).second) continue;
        keep.erase(t);
        for (int s = 0; s < GGML_MAX_SRC; s++) if (t->src[s]) todo.push_back(t->src[s]);
        if (t->view_src) todo.push_back(t->view_src);
    }
    return keep;
}

namespace {

// One pass over memory (elementwise, per row, or rows gathered from a table): cheaper to redo than
// to hold until the backward. (No op of a training graph is computed in place: ggml's autograd
// refuses them, so a clone never writes into an original.)
bool cheap(const ggml_tensor * t) {
    switch (t->op) {
        case GGML_OP_RMS_NORM: case GGML_OP_NORM: case GGML_OP_MUL: case GGML_OP_ADD: case GGML_OP_SCALE:
        case GGML_OP_ROPE: case GGML_OP_GLU: case GGML_OP_UNARY: case GGML_OP_CONT: case GGML_OP_GET_ROWS:
        case GGML_OP_VIEW: case GGML_OP_RESHAPE: case GGML_OP_PERMUTE: case GGML_OP_TRANSPOSE:
            return true;
        default:
            return false;
    }
}

// the tensor whose memory t is (ggml points a view of a view at the first one's source)
const ggml_tensor * owner(const ggml_tensor * t) { return t->view_src ? t->view_src : t; }

} // namespace

std::unordered_set<const ggml_tensor *> selective_keep_set(ggml_cgraph * gb, int n_forward, int64_t min_elements) {
    std::unordered_set<const ggml_tensor *> forward, redo;
    for (int i = 0; i < n_forward; i++) {
        const ggml_tensor * t = ggml_graph_node(gb, i);
        forward.insert(t);
        if (t->op != GGML_OP_NONE && cheap(t) && (ggml_op_is_empty(t->op) || ggml_nelements(t) >= min_elements)) redo.insert(t);
    }
    std::unordered_set<const ggml_tensor *> read; // the forward tensors the backward reads
    for (int i = n_forward; i < ggml_graph_n_nodes(gb); i++) {
        const ggml_tensor * t = ggml_graph_node(gb, i);
        for (int s = 0; s < GGML_MAX_SRC; s++) if (t->src[s] && forward.count(t->src[s])) read.insert(t->src[s]);
        if (t->view_src && forward.count(t->view_src)) read.insert(t->view_src);
    }
    // A tensor is redone only from parameters, inputs, other redone tensors and memory the
    // backward keeps anyway. Dropping one can disqualify its readers (or, when the backward
    // reads it, keep its memory alive for them), so each pass judges against the set as the
    // pass began, until nothing changes.
    for (;;) {
        std::unordered_set<const ggml_tensor *> alive;
        for (const ggml_tensor * r : read) if (!redo.count(r)) alive.insert(owner(r));
        const auto usable = [&](const ggml_tensor * s) {
            return !s || !forward.count(s) || s->op == GGML_OP_NONE || redo.count(s) || alive.count(owner(s));
        };
        std::vector<const ggml_tensor *> dropped;
        for (const ggml_tensor * t : redo) {
            bool ok = usable(t->view_src);
            for (int s = 0; ok && s < GGML_MAX_SRC; s++) ok = usable(t->src[s]);
            if (!ok) dropped.push_back(t);
        }
        if (dropped.empty()) break;
        for (const ggml_tensor * t : dropped) redo.erase(t);
    }
    // a view of kept memory saves nothing when redone (its memory lives on); it stays as it is
    for (auto it = redo.begin(); it != redo.end();) {
        if (ggml_op_is_empty((*it)->op) && !redo.count(owner(*it))) it = redo.erase(it); else ++it;
    }
    std::unordered_set<const ggml_tensor *> keep;
    for (const ggml_tensor * t : forward) if (!redo.count(t)) keep.insert(t);
    return keep;
}

SelectiveMode selective_recompute_mode(const char * env_value, bool gpu) {
    if (!env_value || !*env_value) return gpu ? SelectiveMode::AUTO : SelectiveMode::ON;
    if (strcmp(env_value, "0") == 0) return SelectiveMode::OFF;
    if (strcmp(env_value, "auto") == 0) return SelectiveMode::AUTO;
    return SelectiveMode::ON;
}

SelectiveMode selective_recompute_mode(bool gpu) {
    return selective_recompute_mode(env_switch_value("HONE_SELECTIVE_RECOMPUTE"), gpu);
}

bool selective_recompute_asked() { return env_switch_value("HONE_SELECTIVE_RECOMPUTE") != nullptr; }

int recompute_activations(ggml_context * ctx, ggml_cgraph * gb, int n_forward, const std::unordered_set<const ggml_tensor *> & keep) {
    Rewriter r{ ctx, {}, keep, {}, {}, {}, {} };
    for (int i = 0; i < n_forward; i++) r.forward.insert(gb->nodes[i]);
    for (int i = 0; i < n_forward; i++) r.order.push_back(gb->nodes[i]);
    for (int i = n_forward; i < gb->n_nodes; i++) {
        ggml_tensor * t = gb->nodes[i];
        for (int s = 0; s < GGML_MAX_SRC; s++) if (r.recomputed(t->src[s])) t->src[s] = r.clone(t->src[s]);
        if (r.recomputed(t->view_src)) t->view_src = r.clone(t->view_src);
        r.place(t);
    }
    const int n_clones = (int) r.clones.size();
    if ((int) r.order.size() != gb->n_nodes + n_clones) {
        fail(HONE_E_INTERNAL, "recomputation placed %d nodes of %d", (int) r.order.size(), gb->n_nodes + n_clones);
    }
    if ((int) r.order.size() > gb->size) {
        fail(HONE_E_INTERNAL, "the training graph holds %d nodes; recomputation needs %d", gb->size, (int) r.order.size());
    }
    for (auto & kv : r.clones) {
        const size_t pos = ggml_hash_insert(&gb->visited_hash_set, kv.second);
        if (pos == GGML_HASHSET_FULL || pos == GGML_HASHSET_ALREADY_EXISTS) fail(HONE_E_INTERNAL, "the training graph's hash set has no room for a recomputed tensor");
        if (gb->grads) gb->grads[pos] = nullptr;
        if (gb->grad_accs) gb->grad_accs[pos] = nullptr;
    }
    std::copy(r.order.begin(), r.order.end(), gb->nodes);
    gb->n_nodes = (int) r.order.size();
    // every tensor's readers counted again (backends fuse only nodes whose result one node reads)
    for (size_t i = 0; i < gb->visited_hash_set.size; i++) {
        if (ggml_bitset_get(gb->visited_hash_set.used, i)) gb->use_counts[i] = 0;
    }
    for (int i = 0; i < gb->n_nodes; i++) {
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            const ggml_tensor * src = gb->nodes[i]->src[s];
            if (!src) continue;
            const size_t pos = ggml_hash_find(&gb->visited_hash_set, src);
            if (pos != GGML_HASHSET_FULL && ggml_bitset_get(gb->visited_hash_set.used, pos)) gb->use_counts[pos]++;
        }
    }
    return n_clones;
}

} // namespace hone
