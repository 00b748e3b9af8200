#include "hone_tools.h"

#include "backend_registry.h"

#include "model.h"

#include "ggml.h"
#include "llama.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <vector>
#include <set>

namespace hone {

// Ops ggml_compute_backward (ggml/src/ggml.c, this release) differentiates; GLU and UNARY
// count only for the sub-ops it handles. test/native/backward-ops.test.ts reads ggml's switch in
// the patched source and fails when this list and it disagree (a patch adding a backward).
static const std::set<std::string> & ops_with_backward() {
    static const std::set<std::string> s = {
        "NONE", "DUP", "ADD", "ADD1", "ACC", "SUB", "MUL", "DIV", "SQR", "SQRT", "LOG", "SIN", "COS", "SUM", "SUM_ROWS",
        "MEAN", "REPEAT", "REPEAT_BACK", "RMS_NORM", "NORM" /* Hone patch 0006 */, "MUL_MAT", "SCALE", "SET", "CPY", "CONT", "RESHAPE", "VIEW", "PERMUTE",
        "TRANSPOSE", "GET_ROWS", "DIAG_MASK_INF", "DIAG_MASK_ZERO", "SOFT_MAX", "ROPE", "IM2COL", "POOL_2D", "WIN_PART",
        "WIN_UNPART", "CROSS_ENTROPY_LOSS", "FLASH_ATTN_EXT" /* Hone patch 0007 */, "MUL_MAT_ID", "CLAMP" /* Hone patch 0010 */,
        // UNARY sub-ops (GELU and TANH: Hone patch 0005)
        "ABS", "SGN", "NEG", "STEP", "RELU", "SILU", "EXP", "EXPM1", "SOFTPLUS", "GELU", "TANH",
        // GLU sub-ops, split form (GEGLU: Hone patch 0005)
        "SWIGLU", "GEGLU",
    };
    return s;
}

// Every node of llama.cpp's graph with its sources, so the scan can keep only the ops on the
// path to the logits: K/V-cache writes (SET_ROWS, CPY, OpenELM's PAD of narrower V rows) feed
// the cache, which attention reads as a leaf, and the training graph has no cache.
struct Collector {
    // integer: an I32 result (top-k's expert ids), which ggml never differentiates
    struct Node { std::string op; bool integer = false; std::vector<const ggml_tensor *> srcs; };
    std::map<const ggml_tensor *, Node> nodes; // pointers are identities only, never read after the decode
    const ggml_tensor * logits = nullptr, * last_mul_mat = nullptr;
    static bool cb(ggml_tensor * t, bool ask, void * ud) {
        if (!ask) return false;
        auto * c = static_cast<Collector *>(ud);
        Node & n = c->nodes[t];
        n.op = ggml_op_desc(t);
        n.integer = t->type == GGML_TYPE_I32;
        for (ggml_tensor * s : t->src) if (s) n.srcs.push_back(s);
        if (!strcmp(t->name, "result_output")) c->logits = t;
        if (t->op == GGML_OP_MUL_MAT) c->last_mul_mat = t; // the head, where a graph leaves its logits unnamed (PLaMo 3)
        return false; // nothing to observe: asking is enough to see every node
    }
    // The ops of the logits' ancestors.
    std::set<std::string> training_path_ops() const {
        std::set<std::string> ops;
        if (!logits && !last_mul_mat) {
            for (auto & [t, n] : nodes) ops.insert(n.op);
            return ops;
        }
        std::set<const ggml_tensor *> seen;
        std::vector<const ggml_tensor *> todo = { logits ? logits : last_mul_mat };
        while (!todo.empty()) {
            const ggml_tensor * t = todo.back();
            todo.pop_back();
            if (!seen.insert(t).second) continue;
            auto it = nodes.find(t);
            if (it == nodes.end()) continue; // a leaf: weights, inputs, the cache
            if (it->second.integer) continue; // indices (ARGSORT, TOP_K): no gradient flows through them
            ops.insert(it->second.op);
            for (const ggml_tensor * s : it->second.srcs) todo.push_back(s);
        }
        return ops;
    }
};

static ArchScan scan_in_process(const std::string & path) {
    ArchScan r;
    quiet_logs();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    mp.use_extra_bufts = false;
    ensure_backends();
    llama_model * model = llama_model_load_from_file(path.c_str(), mp);
    if (!model) {
        r.error = "llama.cpp could not load the model";
        return r;
    }
    char arch[64] = {0};
    llama_model_meta_val_str(model, "general.architecture", arch, sizeof(arch));
    r.arch = arch;
    Collector col;
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 16;
    cp.n_batch = cp.n_ubatch = 16;
    cp.n_threads = cp.n_threads_batch = 2;
    cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    cp.cb_eval = Collector::cb;
    cp.cb_eval_user_data = &col;
    cp.no_perf = true;
    llama_context * ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        r.error = "llama.cpp could not create a context for the model";
        llama_model_free(model);
        return r;
    }
    const llama_vocab * vocab = llama_model_get_vocab(model);
    llama_token toks[2] = { std::max(0, llama_vocab_bos(vocab)), 1 };
    const int rc = llama_decode(ctx, llama_batch_get_one(toks, 2));
    llama_free(ctx);
    llama_model_free(model);
    if (rc != 0) {
        r.error = "llama.cpp could not run the model's graph";
        return r;
    }
    r.graph_built = true;
    for (const std::string & op : col.training_path_ops()) {
        r.ops.push_back(op);
        if (!ops_with_backward().count(op)) r.no_backward.push_back(op);
    }
    return r;
}

// llama.cpp loads and runs any model here, and aborts or crashes on some malformed ones (an
// expert count of 0, an optional tensor its graph then reads): the scan runs in a child process.
ArchScan scan_architecture(const std::string & path) {
    using nlohmann::json;
    const IsolatedResult run = run_isolated([&] {
        const ArchScan s = scan_in_process(path);
        return json{ { "arch", s.arch }, { "graph_built", s.graph_built }, { "error", s.error }, { "ops", s.ops }, { "no_backward", s.no_backward } }.dump();
    });
    ArchScan r;
    if (run.crashed) {
        r.error = "llama.cpp crashed while loading the model or building its graph (" + run.how + ")";
        return r;
    }
    const json j = json::parse(run.output, nullptr, false);
    if (j.is_discarded()) {
        r.error = "the scan gave no result";
        return r;
    }
    r.arch = j.at("arch").get<std::string>();
    r.graph_built = j.at("graph_built").get<bool>();
    r.error = j.at("error").get<std::string>();
    r.ops = j.at("ops").get<std::vector<std::string>>();
    r.no_backward = j.at("no_backward").get<std::vector<std::string>>();
    return r;
}

std::string describe_scan(const ArchScan & s) {
    if (!s.graph_built) return "its graph could not be scanned (" + s.error + ")";
    if (s.no_backward.empty()) return "every op of its graph has a backward, but Hone's training graph does not implement this architecture yet";
    std::string ops;
    for (const auto & o : s.no_backward) ops += (ops.empty() ? "" : ", ") + o;
    return "op" + std::string(s.no_backward.size() > 1 ? "s " : " ") + ops + (s.no_backward.size() > 1 ? " have" : " has") + " no backward in ggml";
}

} // namespace hone
