#include "op_report.h"

#include "error.h"
#include "hone_json.h"
#include "metal_switch.h"
#include "model.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace hone {

static bool is_view_op(ggml_op op) {
    return op == GGML_OP_NONE || op == GGML_OP_VIEW || op == GGML_OP_RESHAPE || op == GGML_OP_PERMUTE || op == GGML_OP_TRANSPOSE;
}

static std::string shape_json(const ggml_tensor * t) {
    std::string s = "[";
    for (int i = 0; i < GGML_MAX_DIMS; i++) s += (i ? "," : "") + std::to_string(t->ne[i]);
    return s + "]";
}

// Multiply-adds x2 for the matrix ops, one per output element for the rest.
static double estimate_flops(const ggml_tensor * t) {
    if (is_view_op(t->op)) return 0.0;
    if (t->op == GGML_OP_MUL_MAT) return 2.0 * (double) ggml_nelements(t) * (double) t->src[0]->ne[0];
    if (t->op == GGML_OP_OUT_PROD) return 2.0 * (double) ggml_nelements(t) * (double) t->src[0]->ne[1];
    return (double) ggml_nelements(t);
}

// Forward tensors are named "<what>-<layer>" (graph.cpp); backward ones "grad for <name>".
static int layer_of_name(const char * name) {
    const char * dash = nullptr;
    for (const char * p = name; *p; p++) if (*p == '-') dash = p;
    if (!dash) return -1;
    char * end = nullptr;
    const long v = strtol(dash + 1, &end, 10);
    return (end != dash + 1 && (*end == '\0' || *end == ' ' || *end == ')')) ? (int) v : -1;
}

static const ggml_tensor * root(const ggml_tensor * t) {
    while (t->view_src) t = t->view_src;
    return t;
}

static const ggml_tensor * base_weight(const hone_model & m, const ggml_tensor * t) {
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (!t->src[i]) continue; // an empty slot may come before later sources
        const ggml_tensor * s = root(t->src[i]);
        if (s->buffer && s->buffer == m.buf_w) return s;
    }
    return nullptr;
}

static bool is_cpu_backend(ggml_backend_t b) {
    ggml_backend_dev_t dev = ggml_backend_get_device(b);
    return dev && ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU;
}

// Where a tensor is: the scheduler's assignment for computed nodes; for tensors with their
// own memory (weights, adapter, optimizer state) the backend that owns that memory.
static std::string buffer_backend(ggml_backend_sched_t sched, ggml_backend_buffer_t buf) {
    if (ggml_backend_buffer_is_host(buf)) return "CPU";
    ggml_backend_buffer_type_t buft = ggml_backend_buffer_get_type(buf);
    for (int i = 0; i < ggml_backend_sched_get_n_backends(sched); i++) {
        ggml_backend_t b = ggml_backend_sched_get_backend(sched, i);
        if (!is_cpu_backend(b) && ggml_backend_supports_buft(b, buft)) return ggml_backend_name(b);
    }
    return ggml_backend_buft_name(buft);
}

// Where a tensor's data lives: the backend of its buffer once allocated (weights, adapter,
// inputs and, after allocation, every compute tensor), else the scheduler's assignment.
// Several backends can compute in host memory (the CPU, a BLAS or test backend): there the
// scheduler's assignment says which one holds it.
static std::string backend_of(ggml_backend_sched_t sched, const ggml_tensor * t) {
    const ggml_tensor * r = root(t);
    ggml_backend_t b = ggml_backend_sched_get_tensor_backend(sched, const_cast<ggml_tensor *>(r));
    if (r->buffer) {
        if (b && ggml_backend_buffer_is_host(r->buffer) && ggml_backend_buft_is_host(ggml_backend_sched_get_buffer_type(sched, b))) {
            return ggml_backend_name(b);
        }
        return buffer_backend(sched, r->buffer);
    }
    return b ? ggml_backend_name(b) : "?";
}

static ggml_backend_t backend_named(ggml_backend_sched_t sched, const std::string & name) {
    for (int i = 0; i < ggml_backend_sched_get_n_backends(sched); i++) {
        ggml_backend_t b = ggml_backend_sched_get_backend(sched, i);
        if (name == ggml_backend_name(b)) return b;
    }
    return nullptr;
}

// Whether a node on `dst` must get a copy of `src` held by `src_backend`: not when dst can
// read src's memory where it is (both in host memory, say), as the scheduler decides.
static bool needs_copy(ggml_backend_sched_t sched, const ggml_tensor * src, const std::string & src_backend, const std::string & dst) {
    if (src_backend == dst) return false;
    ggml_backend_t d = backend_named(sched, dst), sb = backend_named(sched, src_backend);
    const ggml_tensor * r = root(src);
    ggml_backend_buffer_type_t buft = r->buffer ? ggml_backend_buffer_get_type(r->buffer)
                                                : sb ? ggml_backend_sched_get_buffer_type(sched, sb) : nullptr;
    return !(d && buft && ggml_backend_supports_buft(d, buft));
}

static std::string src_summary(const ggml_tensor * t) {
    std::string s;
    for (int i = 0; i < GGML_MAX_SRC; i++) {
        if (!t->src[i]) continue;
        s += strfmt("%ssrc%d %s %s", i ? ", " : " with ", i, ggml_type_name(t->src[i]->type), shape_json(t->src[i]).c_str());
    }
    return s;
}

// Why a node runs on the CPU although a GPU backend is present: the GPU backend's own
// supports_op first, then what the scheduler does with host-resident weights and inputs.
static std::string cpu_reason(ggml_backend_sched_t sched, const hone_model & m, const ggml_tensor * t) {
    std::string refused;
    for (int i = 0; i < ggml_backend_sched_get_n_backends(sched); i++) {
        ggml_backend_t b = ggml_backend_sched_get_backend(sched, i);
        if (is_cpu_backend(b)) continue;
        if (!ggml_backend_supports_op(b, t)) {
            refused += strfmt("%s%s: %s%s not supported", refused.empty() ? "" : "; ", ggml_backend_name(b), ggml_op_desc(t), src_summary(t).c_str());
            const bool metal = std::strncmp(ggml_backend_name(b), "MTL", 3) == 0;
            if (metal && t->op == GGML_OP_OUT_PROD && !metal_out_prod_enabled()) refused += " (turned off by HONE_METAL_OUT_PROD=0)";
        }
    }
    if (!refused.empty()) return refused;
    if (const ggml_tensor * w = base_weight(m, t)) {
        if (ggml_backend_buffer_is_host(w->buffer)) return strfmt("weight '%s' lives in a host buffer, so the scheduler runs its ops on the CPU", w->name);
    }
    return "the scheduler placed it on the CPU beside its inputs (every GPU backend supports it)";
}

// (1) walks the forward pass: does each tensor depend on a trainable one? (2) walks back from
// the trainable tensors' gradients and accumulators: every backward node not reached is work
// for nothing.
GradientWaste find_gradient_waste(ggml_cgraph * graph, int n_forward, const std::set<const ggml_tensor *> & trainable) {
    GradientWaste w;
    std::unordered_map<const ggml_tensor *, bool> depends;
    for (int i = 0; i < n_forward; i++) {
        const ggml_tensor * t = ggml_graph_node(graph, i);
        bool d = trainable.count(t) > 0;
        // every source slot: an op may leave one empty before later ones (flash attention's sinks)
        for (int s = 0; !d && s < GGML_MAX_SRC; s++) d = t->src[s] && (trainable.count(t->src[s]) || depends[t->src[s]]);
        depends[t] = d;
        if (ggml_graph_get_grad(graph, t) && !d) w.forward.push_back(i);
    }
    std::unordered_map<const ggml_tensor *, bool> useful;
    std::vector<const ggml_tensor *> todo;
    for (const ggml_tensor * p : trainable) {
        for (const ggml_tensor * g : { ggml_graph_get_grad(graph, p), ggml_graph_get_grad_acc(graph, p) }) if (g) todo.push_back(g);
    }
    while (!todo.empty()) {
        const ggml_tensor * t = todo.back();
        todo.pop_back();
        if (useful[t]) continue;
        useful[t] = true;
        for (int s = 0; s < GGML_MAX_SRC; s++) if (t->src[s]) todo.push_back(t->src[s]);
        if (t->view_src) todo.push_back(t->view_src);
    }
    for (int i = n_forward; i < ggml_graph_n_nodes(graph); i++) {
        const ggml_tensor * t = ggml_graph_node(graph, i);
        if (!useful[t] && !is_view_op(t->op)) w.backward.push_back(i);
    }
    return w;
}

std::string op_report_json(const OpReportInput & in) {
    const hone_model & m = *in.model;
    bool has_gpu = false;
    std::string backends = "[";
    for (int i = 0; i < ggml_backend_sched_get_n_backends(in.sched); i++) {
        ggml_backend_t b = ggml_backend_sched_get_backend(in.sched, i);
        has_gpu |= !is_cpu_backend(b);
        backends += std::string(i ? "," : "") + "\"" + json_escape(ggml_backend_name(b)) + "\"";
    }
    backends += "]";

    std::string nodes = "[";
    std::map<std::tuple<std::string, std::string, std::string>, int> by_op;
    std::map<std::string, std::pair<int64_t, double>> share;
    std::string transitions = "[", fallbacks = "[", copies = "[";
    int64_t n_compute = 0, copy_bytes = 0;
    std::string prev_backend;
    std::map<std::pair<const ggml_tensor *, std::string>, bool> copied;
    std::unordered_map<const ggml_tensor *, int> layer;
    std::map<std::pair<std::string, std::string>, std::pair<int64_t, double>> op_time; // (op, backend) -> runs, seconds

    auto add_node = [&](int i, const ggml_tensor * t, const char * pass, const std::string & be) {
        const bool compute = !is_view_op(t->op);
        int li = layer_of_name(t->name);
        for (int s = 0; li < 0 && s < GGML_MAX_SRC; s++) {
            if (!t->src[s]) continue;
            auto it = layer.find(t->src[s]);
            if (it != layer.end()) li = it->second;
        }
        layer[t] = li;
        const ggml_tensor * w = base_weight(m, t);
        const double flops = estimate_flops(t);
        JsonObject o;
        o.integer("i", i).str("pass", pass).str("op", ggml_op_desc(t)).str("name", t->name).str("backend", be)
         .str("type", ggml_type_name(t->type)).raw("shape", shape_json(t)).integer("layer", li)
         .raw("weight", w ? "\"" + json_escape(w->name) + "\"" : "null").num("flops", flops).boolean("compute", compute);
        std::string srcs = "[";
        for (int s = 0; s < GGML_MAX_SRC; s++) {
            if (!t->src[s]) continue;
            srcs += (srcs.size() > 1 ? "," : "") + JsonObject().str("name", t->src[s]->name).str("type", ggml_type_name(t->src[s]->type))
                .raw("shape", shape_json(t->src[s])).str("backend", backend_of(in.sched, t->src[s])).dump();
        }
        o.raw("src", srcs + "]");
        if (in.profile) { // the optimizer graph does not run through the scheduler: not timed
            auto it = std::string(pass) == "optimizer" ? in.profile->by_node.end() : in.profile->by_node.find(t);
            if (it != in.profile->by_node.end() && it->second.runs > 0) {
                o.num("time_ms", 1e3 * it->second.seconds / (double) it->second.runs).integer("runs", it->second.runs);
                auto & agg = op_time[{ ggml_op_desc(t), be }];
                agg.first += it->second.runs;
                agg.second += it->second.seconds;
            } else {
                o.raw("time_ms", "null").integer("runs", 0);
            }
        }
        if (compute) {
            n_compute++;
            by_op[{ ggml_op_desc(t), be, t->src[0] ? ggml_type_name(t->src[0]->type) : "-" }]++;
            share[be].first++;
            share[be].second += flops;
            if (!prev_backend.empty() && be != prev_backend) {
                transitions += (transitions.size() > 1 ? "," : "") + JsonObject().integer("at", i).str("from", prev_backend).str("to", be)
                    .str("op", ggml_op_desc(t)).str("name", t->name).dump();
            }
            prev_backend = be;
            for (int s = 0; s < GGML_MAX_SRC; s++) {
                if (!t->src[s]) continue;
                const std::string sb = backend_of(in.sched, t->src[s]);
                const ggml_tensor * r = root(t->src[s]);
                if (!needs_copy(in.sched, t->src[s], sb, be) || copied[{ r, be }]) continue;
                copied[{ r, be }] = true;
                copy_bytes += (int64_t) ggml_nbytes(r);
                copies += (copies.size() > 1 ? "," : "") + JsonObject().str("tensor", r->name).str("from", sb).str("to", be)
                    .integer("bytes", (long long) ggml_nbytes(r)).integer("first_use", i).dump();
            }
            if (has_gpu && be == "CPU") {
                const std::string why = std::string(pass) == "optimizer"
                    ? strfmt("the trainer runs the optimizer graph on the primary backend (%s), beside the adapter and its state", ggml_backend_name(in.opt_backend))
                    : cpu_reason(in.sched, m, t);
                o.str("cpu_reason", why);
                fallbacks += (fallbacks.size() > 1 ? "," : "") + JsonObject().integer("i", i).str("op", ggml_op_desc(t)).str("name", t->name)
                    .integer("layer", li).str("reason", why).dump();
            }
        }
        nodes += (nodes.size() > 1 ? "," : "") + o.dump();
    };

    const int n = ggml_graph_n_nodes(in.graph);
    for (int i = 0; i < n; i++) {
        ggml_tensor * t = ggml_graph_node(in.graph, i);
        ggml_backend_t b = ggml_backend_sched_get_tensor_backend(in.sched, t);
        add_node(i, t, i < in.n_forward_nodes ? "forward" : "backward", b ? ggml_backend_name(b) : backend_of(in.sched, t));
    }
    if (in.opt_graph) {
        for (int i = 0; i < ggml_graph_n_nodes(in.opt_graph); i++) {
            add_node(n + i, ggml_graph_node(in.opt_graph, i), "optimizer", ggml_backend_name(in.opt_backend));
        }
    }

    std::string waste = "[";
    for (int i : in.waste->forward) {
        const ggml_tensor * t = ggml_graph_node(in.graph, i);
        const ggml_tensor * g = ggml_graph_get_grad(in.graph, t);
        waste += (waste.size() > 1 ? "," : "") + JsonObject().str("tensor", t->name).str("grad", g->name).str("op", ggml_op_desc(g))
            .integer("bytes", (long long) ggml_nbytes(g)).num("flops", estimate_flops(g)).dump();
    }
    std::string wasted = "[";
    int64_t waste_nodes = 0;
    double waste_flops = 0.0;
    for (int i : in.waste->backward) {
        const ggml_tensor * t = ggml_graph_node(in.graph, i);
        waste_nodes++;
        waste_flops += estimate_flops(t);
        wasted += (wasted.size() > 1 ? "," : "") + JsonObject().integer("i", i).str("op", ggml_op_desc(t)).str("name", t->name)
            .integer("layer", layer.count(t) ? layer[t] : -1).integer("bytes", (long long) ggml_nbytes(t)).num("flops", estimate_flops(t)).dump();
    }

    std::string by_op_json = "[";
    for (auto & [k, c] : by_op) {
        by_op_json += (by_op_json.size() > 1 ? "," : "") + JsonObject().str("op", std::get<0>(k)).str("backend", std::get<1>(k))
            .str("src0_type", std::get<2>(k)).integer("count", c).dump();
    }
    double total_flops = 0;
    for (auto & [b, v] : share) total_flops += v.second;
    JsonObject share_json;
    for (auto & [b, v] : share) {
        share_json.raw(b.c_str(), JsonObject().integer("nodes", v.first).num("node_share", n_compute ? (double) v.first / n_compute : 0)
            .num("flops", v.second).num("flops_share", total_flops > 0 ? v.second / total_flops : 0).dump());
    }
    // Memory: the plan (static buffers as allocated, the scheduler's compute buffer sizes) with
    // what was measured, and the bytes of the graph's tensors by kind before the allocator
    // reuses memory between them.
    JsonObject compute;
    for (const MemoryItem & it : in.memory->items) if (it.what == "compute_buffer") compute.integer(it.backend.c_str(), (long long) it.bytes);
    std::map<std::string, int64_t> kinds;
    for (int i = 0; i < n; i++) {
        const ggml_tensor * t = ggml_graph_node(in.graph, i);
        if (t->view_src || is_view_op(t->op)) continue;
        if (t->buffer && ggml_backend_buffer_get_usage(t->buffer) != GGML_BACKEND_BUFFER_USAGE_COMPUTE) continue; // weights, adapter, accumulators
        const std::string name = t->name;
        const char * kind = name.find("kq") != std::string::npos ? "attention_scores"
            : (name.find("logits") != std::string::npos || name.find("labels") != std::string::npos) ? "logits_labels" : "activations_and_gradients";
        kinds[kind] += (int64_t) ggml_nbytes(t);
    }
    JsonObject kinds_json;
    for (auto & [k, v] : kinds) kinds_json.integer(k.c_str(), v);
    const std::string memory = JsonObject().raw("items", memory_items_json(*in.memory)).raw("backends", memory_backends_json(*in.memory))
        .integer("limit_bytes", (long long) in.memory->limit).integer("kv_cache_bytes", 0).str("mode", in.memory->mode)
        .str("mode_reason", in.memory->mode_reason).integer("ubatch", in.memory->ubatch).str("ubatch_reason", in.memory->ubatch_reason).raw("compute_buffer", compute.dump())
        .raw("graph_tensor_bytes_before_reuse", kinds_json.dump()).dump();

    std::string profile = "null";
    if (in.profile) {
        auto mean = [](const std::vector<double> & v) { double a = 0; for (double x : v) a += x; return v.empty() ? 0.0 : a / (double) v.size(); };
        const double sp = mean(in.profile->profiled_steps), su = mean(in.profile->plain_steps);
        std::string ops = "[";
        double node_s = 0.0;
        for (auto & [k, v] : op_time) {
            node_s += v.second;
            ops += (ops.size() > 1 ? "," : "") + JsonObject().str("op", k.first).str("backend", k.second).integer("runs", v.first)
                .num("total_ms", 1e3 * v.second).dump();
        }
        JsonObject pj;
        pj.integer("steps_profiled", (long long) in.profile->profiled_steps.size()).integer("steps_unprofiled", (long long) in.profile->plain_steps.size());
        if (sp > 0) pj.num("step_s_profiled", sp); else pj.raw("step_s_profiled", "null");
        if (su > 0) pj.num("step_s_unprofiled", su); else pj.raw("step_s_unprofiled", "null");
        if (sp > 0 && su > 0) pj.num("slowdown", sp / su); else pj.raw("slowdown", "null");
        pj.num("node_time_s", node_s).raw("by_op", ops + "]");
        profile = pj.dump();
    }

    const int n_opt = in.opt_graph ? ggml_graph_n_nodes(in.opt_graph) : 0;
    return JsonObject().str("schema", "hone.ops/1").boolean("dry_run", in.dry_run).raw("backends", backends).raw("memory", memory)
        .raw("graph", JsonObject().integer("forward_nodes", in.n_forward_nodes).integer("backward_nodes", n - in.n_forward_nodes)
             .integer("optimizer_nodes", n_opt).integer("trainable_tensors", (long long) in.trainable.size()).dump())
        .integer("n_nodes", n + n_opt).integer("n_compute_nodes", n_compute)
        .integer("n_splits", ggml_backend_sched_get_n_splits(in.sched)).integer("n_copies", ggml_backend_sched_get_n_copies(in.sched))
        .integer("copy_bytes", copy_bytes).raw("share", share_json.dump()).raw("by_op", by_op_json + "]")
        .raw("transitions", transitions + "]").raw("copies", copies + "]").raw("cpu_fallbacks", fallbacks + "]")
        .integer("gradient_waste_nodes", waste_nodes).num("gradient_waste_flops", waste_flops).raw("gradient_waste", waste + "]")
        .raw("gradient_waste_backward_nodes", wasted + "]").raw("profile", profile).raw("nodes", nodes + "]").dump();
}

} // namespace hone
