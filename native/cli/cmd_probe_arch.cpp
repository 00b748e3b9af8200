// `hone-train probe-arch --arch NAME --vocab-from V.gguf --out M.gguf [--json]`: makes a tiny
// model of any architecture llama.cpp loads, without knowing its layout, by asking the loader:
// write a model, load it, and answer the loader's complaint ("key not found", "wrong type",
// "missing tensor", "wrong shape; expected ...") until it loads; then scan llama.cpp's graph
// for it (the ops without a backward), and say whether Hone's architecture descriptions know
// it. docs/architectures.md is built from these results for every architecture of the pinned
// release (native/scripts/scan-architectures.mjs).
#include "args.h"
#include "commands.h"
#include "hone_json.h"

#include "hone_arch.h"
#include "hone_tools.h"

#include "ggml.h"
#include "gguf.h"
#include "llama.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

namespace {

// A metadata value as the loader wants it; numbers are kept as double and written in `type`.
struct Value {
    gguf_type type = GGUF_TYPE_UINT32;
    double num = 0;
    int arr_n = 0; // > 0: an INT32 array of arr_n copies of num
    std::vector<int32_t> given; // --kv name=a:b:c: this INT32 array
};

struct ProbeModel {
    std::string arch;
    std::map<std::string, Value> kv;                       // keys under the architecture
    std::vector<std::pair<std::string, std::vector<int64_t>>> tensors;
};

// Tiny dimensions every architecture accepts in the usual keys.
Value guess(const std::string & key) {
    auto has = [&](const char * s) { return key.find(s) != std::string::npos; };
    auto f = [](double v) { return Value{ GGUF_TYPE_FLOAT32, v, 0 }; };
    auto u = [](double v) { return Value{ GGUF_TYPE_UINT32, v, 0 }; };
    if (has("epsilon")) return f(1e-5);
    if (has("freq_base")) return f(10000);
    if (has("softcap")) return f(30);
    if (has("scale") || has("factor") || has("multiplier")) return f(1);
    if (has("head_count_kv")) return u(2);
    if (has("head_count")) return u(4);
    if (has("embedding_length")) return u(64);
    if (has("feed_forward_length")) return u(128);
    if (has("block_count")) return u(2);
    if (has("context_length")) return u(256);
    if (has("expert_used_count")) return u(2);
    if (has("expert_count")) return u(4);
    if (has("moe_layer_step")) return u(1); // every layer MoE, so the scan sees the MoE ops
    return u(16);
}

gguf_type type_from_name(const std::string & n) {
    for (int t = 0; t < GGUF_TYPE_COUNT; t++) {
        if (n == gguf_type_name((gguf_type) t)) return (gguf_type) t;
    }
    return GGUF_TYPE_COUNT;
}

void set_value(gguf_context * g, const std::string & key, const Value & v) {
    const char * k = key.c_str();
    if (!v.given.empty()) {
        gguf_set_arr_data(g, k, GGUF_TYPE_INT32, v.given.data(), v.given.size());
        return;
    }
    if (v.arr_n > 0) {
        std::vector<int32_t> a(v.arr_n, (int32_t) v.num);
        gguf_set_arr_data(g, k, GGUF_TYPE_INT32, a.data(), a.size());
        return;
    }
    switch (v.type) {
        case GGUF_TYPE_FLOAT32: gguf_set_val_f32(g, k, (float) v.num); break;
        case GGUF_TYPE_FLOAT64: gguf_set_val_f64(g, k, v.num); break;
        case GGUF_TYPE_BOOL: gguf_set_val_bool(g, k, v.num != 0); break;
        case GGUF_TYPE_INT32: gguf_set_val_i32(g, k, (int32_t) v.num); break;
        case GGUF_TYPE_UINT64: gguf_set_val_u64(g, k, (uint64_t) v.num); break;
        case GGUF_TYPE_INT64: gguf_set_val_i64(g, k, (int64_t) v.num); break;
        case GGUF_TYPE_UINT16: gguf_set_val_u16(g, k, (uint16_t) v.num); break;
        case GGUF_TYPE_INT16: gguf_set_val_i16(g, k, (int16_t) v.num); break;
        case GGUF_TYPE_UINT8: gguf_set_val_u8(g, k, (uint8_t) v.num); break;
        case GGUF_TYPE_INT8: gguf_set_val_i8(g, k, (int8_t) v.num); break;
        case GGUF_TYPE_STRING: gguf_set_val_str(g, k, ""); break;
        default: gguf_set_val_u32(g, k, (uint32_t) v.num); break;
    }
}

// Writes the model: the vocab's tokenizer, the keys, and every tensor as F32 (norm weights 1,
// the rest small uniform noise).
bool write_model(const ProbeModel & m, const gguf_context * vocab, const std::string & path) {
    gguf_context * g = gguf_init_empty();
    gguf_set_kv(g, vocab);
    for (int64_t i = gguf_get_n_kv(g) - 1; i >= 0; i--) {
        const std::string k = gguf_get_key(g, i);
        if (k.rfind("tokenizer.", 0) != 0) gguf_remove_key(g, k.c_str());
    }
    gguf_set_val_str(g, "general.architecture", m.arch.c_str());
    gguf_set_val_str(g, "general.name", ("hone-probe-" + m.arch).c_str());
    for (const auto & [k, v] : m.kv) set_value(g, k, v);
    size_t bytes = ggml_tensor_overhead() * (m.tensors.size() + 1);
    for (const auto & t : m.tensors) {
        int64_t n = 1;
        for (int64_t d : t.second) n *= d;
        bytes += (size_t) n * sizeof(float) + 64;
    }
    ggml_context * ctx = ggml_init({ bytes, nullptr, false });
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-0.05f, 0.05f);
    for (const auto & [name, ne] : m.tensors) {
        ggml_tensor * t = ggml_new_tensor(ctx, GGML_TYPE_F32, (int) ne.size(), ne.data());
        ggml_set_name(t, name.c_str());
        float * d = (float *) t->data;
        const bool norm = name.find("norm") != std::string::npos;
        for (int64_t i = 0; i < ggml_nelements(t); i++) d[i] = norm ? 1.0f : u(rng);
        gguf_add_tensor(g, t);
    }
    const bool ok = gguf_write_to_file(g, path.c_str(), false);
    gguf_free(g);
    ggml_free(ctx);
    return ok;
}

std::string g_load_error;

void capture_log(ggml_log_level level, const char * text, void *) {
    if (level != GGML_LOG_LEVEL_ERROR) return;
    const char * p = strstr(text, "error loading model: ");
    if (p) {
        g_load_error = p + strlen("error loading model: ");
        while (!g_load_error.empty() && (g_load_error.back() == '\n' || g_load_error.back() == ' ')) g_load_error.pop_back();
    }
}

// One load attempt: "" when llama.cpp loads the model, else its complaint. Some loaders abort
// or divide by zero instead of complaining (an expert count of 0): the load runs in a child
// process, and its crash is the complaint.
std::string try_load(const std::string & path) {
    hone::ensure_backends();
    const hone::IsolatedResult r = hone::run_isolated([&] {
        g_load_error = "";
        llama_model_params mp = llama_model_default_params();
        mp.n_gpu_layers = 0;
        mp.use_extra_bufts = false;
        llama_model * model = llama_model_load_from_file(path.c_str(), mp);
        if (model) {
            llama_model_free(model);
            return std::string();
        }
        return g_load_error.empty() ? std::string("llama.cpp could not load the model (no reason given)") : g_load_error;
    });
    return r.crashed ? "llama.cpp's loader crashed (" + r.how + ")" : r.output;
}

// A graph that crashed although the model loaded: the loader took a tensor as optional that
// the graph reads. The commonest is a fused Q/K/V projection (Phi-3 reads attn_qkv or q/k/v,
// and the loader asks for neither): give every layer one and load again.
bool answer_scan(ProbeModel & m, const hone::ArchScan & s) {
    if (s.error.find("crashed") == std::string::npos) return false;
    for (const auto & t : m.tensors) if (t.first.find(".attn_qkv.weight") != std::string::npos) return false;
    for (int il = 0; il < (int) m.kv[m.arch + ".block_count"].num; il++) m.tensors.push_back({ "blk." + std::to_string(il) + ".attn_qkv.weight", { 1 } });
    return true;
}

// Mixture-of-experts architectures read their expert counts as optional keys and complain
// later (or size tensors by them): four experts, two used per token.
bool add_experts(ProbeModel & m) {
    const std::string A = m.arch + ".";
    if (m.kv.count(A + "expert_count")) return false;
    m.kv[A + "expert_count"] = Value{ GGUF_TYPE_UINT32, 4, 0 };
    m.kv[A + "expert_used_count"] = Value{ GGUF_TYPE_UINT32, 2, 0 };
    m.kv[A + "expert_feed_forward_length"] = Value{ GGUF_TYPE_UINT32, 64, 0 };
    m.kv[A + "expert_shared_count"] = Value{ GGUF_TYPE_UINT32, 1, 0 };
    m.kv[A + "leading_dense_block_count"] = Value{ GGUF_TYPE_UINT32, 0, 0 }; // every layer MoE: the scan must see it
    m.kv[A + "expert_gating_func"] = Value{ GGUF_TYPE_UINT32, 1, 0 };        // softmax
    m.tensors.clear(); // the layout changes (dense layers become MoE layers): ask again
    return true;
}

// Answers one complaint by changing the model; false when it is not one we can answer.
bool answer(ProbeModel & m, const std::string & err) {
    static const std::regex missing_key("(?:array )?key not found in model: (\\S+)");
    static const std::regex wrong_type("key (\\S+) has wrong type (\\S+) but expected type (\\S+)");
    static const std::regex missing_tensor("missing tensor '([^']+)'|tensor '([^']+)' not found");
    static const std::regex wrong_shape("tensor '([^']+)' has wrong shape; expected ([0-9, -]+), got");
    std::smatch r;
    if (std::regex_search(err, r, wrong_shape)) {
        std::vector<int64_t> ne;
        const std::string dims = r[2];
        for (size_t i = 0; i < dims.size();) {
            while (i < dims.size() && (dims[i] == ' ' || dims[i] == ',')) i++;
            if (i >= dims.size()) break;
            size_t used = 0;
            ne.push_back(std::stoll(dims.substr(i), &used));
            i += used;
        }
        // A zero dimension is almost always an expert count the file does not set: give the
        // model experts (a dense architecture never asks for a zero-sized tensor).
        const bool zero = std::find(ne.begin(), ne.end(), 0) != ne.end();
        if (zero) return add_experts(m);
        for (auto & t : m.tensors) {
            if (t.first == r[1].str()) {
                if (t.second == ne) return false;
                t.second = ne;
                return true;
            }
        }
        return false;
    }
    if (std::regex_search(err, r, missing_tensor)) {
        const std::string name = r[1].matched ? r[1].str() : r[2].str();
        for (auto & t : m.tensors) if (t.first == name) return false;
        m.tensors.push_back({ name, { 1 } });
        return true;
    }
    if (std::regex_search(err, r, wrong_type)) {
        const gguf_type want = type_from_name(r[3].str());
        auto it = m.kv.find(r[1].str());
        if (want == GGUF_TYPE_COUNT || it == m.kv.end()) return false;
        if (want == GGUF_TYPE_ARRAY) {
            if (it->second.arr_n > 0) return false;
            it->second.arr_n = 4;
            return true;
        }
        if (it->second.type == want && it->second.arr_n == 0) return false;
        it->second.type = want;
        it->second.arr_n = 0;
        return true;
    }
    if (std::regex_search(err, r, missing_key)) {
        const std::string key = r[1];
        const bool array = err.find("array key not found") != std::string::npos;
        auto it = m.kv.find(key);
        if (it != m.kv.end()) {
            if (!array || it->second.arr_n > 0) return false;
            it->second.arr_n = 4;
            return true;
        }
        Value v = guess(key);
        if (array) v.arr_n = 4;
        if (key.find("sections") != std::string::npos) v.num = 2; // RoPE sections must fit in half a head
        m.kv[key] = v;
        return true;
    }
    if (err.find("expert") != std::string::npos) return add_experts(m);
    // a loader that divides by its expert count crashes on a model without one
    if (err.find("floating-point exception") != std::string::npos) return add_experts(m);
    return false;
}

// "a:b:c" as integers; an empty element (or a non-digit) is the usage error `why`.
std::vector<int32_t> colon_ints(const std::string & list, const std::string & why) {
    std::vector<int32_t> out;
    for (size_t i = 0; i <= list.size();) {
        const size_t j = std::min(list.find(':', i), list.size());
        if (j == i || list.substr(i, j - i).find_first_not_of("0123456789") != std::string::npos) throw UsageError(why);
        out.push_back((int32_t) std::stol(list.substr(i, j - i)));
        i = j + 1;
    }
    return out;
}

} // namespace

int cmd_probe_arch(int argc, char ** argv) {
    Args a(argc, argv, 2, { "arch", "vocab-from", "out", "max-tries", "kv", "layer-tensors" }, { "json", "experts" });
    const bool json = a.flag("json");
    ProbeModel m;
    m.arch = a.required("arch");
    const std::string vocab_path = a.required("vocab-from"), out = a.required("out");
    const int max_tries = (int) a.integer("max-tries", 400);
    gguf_context * vocab = gguf_init_from_file(vocab_path.c_str(), { true, nullptr });
    if (!vocab) return report_error(json, "bad_vocab", vocab_path + ": not a readable GGUF vocab file");

    const std::string A = m.arch + ".";
    for (const char * k : { "block_count", "context_length", "embedding_length", "feed_forward_length", "attention.head_count",
                            "attention.head_count_kv", "attention.key_length", "attention.value_length", "rope.dimension_count",
                            "attention.layer_norm_rms_epsilon", "attention.layer_norm_epsilon", "rope.freq_base" }) {
        m.kv[A + k] = guess(k);
    }
    if (a.flag("experts")) add_experts(m); // for loaders that abort rather than complain without experts
    // --kv name=N[,name=1.5][,name=a:b:...]: keys under the architecture set before the first
    // load (a partial rotary dimension, per-layer head counts, a soft cap), kept unless the
    // loader rejects them.
    for (const KvItem & kv : split_kv_list(a.str("kv", ""))) {
        const std::string & vals = kv.value;
        if (!kv.name.empty() && (vals == "true" || vals == "false")) { // a bool key (expert_weights_norm)
            Value v;
            v.type = GGUF_TYPE_BOOL;
            v.num = vals == "true";
            m.kv[A + kv.name] = v;
            continue;
        }
        if (kv.name.empty() || vals.empty() || vals.find_first_not_of("0123456789:.") != std::string::npos ||
            (vals.find('.') != std::string::npos && vals.find(':') != std::string::npos)) {
            throw UsageError("--kv takes name=unsigned, name=decimal (with a '.'), name=true|false or name=a:b:... (an integer array), got '" + kv.item + "'");
        }
        Value v;
        if (vals.find('.') != std::string::npos) {
            v.type = GGUF_TYPE_FLOAT32;
            v.num = std::stod(vals);
        } else if (vals.find(':') == std::string::npos) {
            v.num = std::stod(vals);
        } else {
            v.type = GGUF_TYPE_INT32;
            for (int32_t x : colon_ints(vals, "--kv: empty array element in '" + kv.item + "'")) v.given.push_back(x);
        }
        m.kv[A + kv.name] = v;
    }
    // --layer-tensors a.weight[@0:1:2],b.weight: tensors every layer (or the listed ones) gets from
    // the start, for loaders that read them as optional (no complaint when absent) while the
    // graph needs them (Qwen3.5's delta-net projections attn_qkv and attn_gate in its linear
    // layers); a placeholder shape the loader's first complaint corrects.
    for (const KvItem & t : split_kv_list(a.str("layer-tensors", ""))) {
        const size_t at = t.item.find('@');
        const std::string name = t.item.substr(0, at);
        std::vector<int32_t> layers;
        if (at == std::string::npos) {
            for (int il = 0; il < (int) m.kv[A + "block_count"].num; il++) layers.push_back(il);
        } else {
            layers = colon_ints(t.item.substr(at + 1), "--layer-tensors takes name[@layer:layer...],..., got '" + t.item + "'");
        }
        for (int il : layers) m.tensors.push_back({ "blk." + std::to_string(il) + "." + name, { 1 } });
    }
    llama_log_set(capture_log, nullptr);
    ggml_log_set(capture_log, nullptr);

    std::string err;
    hone::ArchScan s, crashed;
    std::optional<ProbeModel> guessed_qkv; // the model before answer_scan's guess, while it is tried
    int tries = 0;
    for (; tries < max_tries; tries++) {
        if (!write_model(m, vocab, out)) {
            gguf_free(vocab);
            return report_error(json, "io_error", out + ": cannot write the model");
        }
        err = try_load(out);
        if (!err.empty()) {
            if (answer(m, err)) continue;
            // the fused Q/K/V given for a crashed graph was not the answer: back to that model and its crash
            if (guessed_qkv) {
                m = std::move(*guessed_qkv);
                s = crashed;
                err = "";
                if (!write_model(m, vocab, out)) err = out + ": cannot write the model";
            }
            break;
        }
        s = hone::scan_architecture(out);
        if (s.graph_built || guessed_qkv) break;
        ProbeModel before = m;
        if (!answer_scan(m, s)) break;
        guessed_qkv = std::move(before);
        crashed = s;
    }
    gguf_free(vocab);
    const bool loaded = err.empty();
    if (loaded && !s.graph_built) {
        s.error += "; its graph needs keys or tensors the loader did not ask for: set them with --kv or --layer-tensors";
    }
    const std::string status = !loaded ? "not_loaded" : !s.graph_built ? "not_scanned" : s.no_backward.empty() ? "differentiable" : "blocked";
    if (json) {
        printf("%s\n", JsonObject().str("type", "probe").str("arch", m.arch).str("status", status)
            .boolean("trainable", hone::arch::find(m.arch) != nullptr).integer("tries", tries + 1)
            .integer("tensors", (long long) m.tensors.size()).str("error", loaded ? s.error : err)
            .raw("ops", json_string_array(s.ops)).raw("no_backward", json_string_array(s.no_backward)).dump().c_str());
    } else {
        printf("%s: %s after %d loads (%zu tensors)%s%s\n", m.arch.c_str(), status.c_str(), tries + 1, m.tensors.size(),
               loaded ? "" : ": ", loaded ? "" : err.c_str());
        if (loaded) printf("  %s\n", s.graph_built && s.no_backward.empty() ? "every op has a backward" : hone::describe_scan(s).c_str());
        printf("  %s\n", hone::arch::find(m.arch) ? "Hone trains this architecture (hone-train architectures)" : "Hone's graph has no description of this architecture");
    }
    return loaded && s.graph_built ? 0 : 1;
}
