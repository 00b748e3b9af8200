// `hone-train --model M --data D --out DIR ...`: train a LoRA and write DIR/adapter.gguf and
// DIR/run.json. Everything is validated before DIR is touched, and outputs are written to
// temporary files and renamed, so a failed run leaves nothing behind.
#include "args.h"
#include "commands.h"
#include "json.h"
#include "text_data.h"

#include "hone.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sys/stat.h>
#include <thread>
#include <vector>
#ifndef _WIN32
#include <sys/resource.h>
#else
#include <direct.h>
#endif

namespace {

const char * status_code(int s) {
    switch (s) {
        case HONE_E_INVALID_ARG: return "invalid_argument";
        case HONE_E_IO: return "io_error";
        case HONE_E_FORMAT: return "bad_format";
        case HONE_E_UNSUPPORTED: return "unsupported";
        case HONE_E_MEMORY: return "out_of_memory";
        case HONE_E_CANCELLED: return "cancelled";
        default: return "internal";
    }
}

double peak_rss_mib() {
#ifndef _WIN32
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
#ifdef __APPLE__
    return ru.ru_maxrss / (1024.0 * 1024.0);
#else
    return ru.ru_maxrss / 1024.0;
#endif
#else
    return 0.0;
#endif
}

struct StepState {
    bool json;
    hone_step_event last{};
};

bool on_step(const hone_step_event * e, void * ud) {
    auto * st = static_cast<StepState *>(ud);
    st->last = *e;
    if (st->json) {
        printf("%s\n", JsonObject().str("type", "step").integer("step", e->step).integer("n_steps", e->n_steps)
            .num("loss", e->loss).num("lr", e->lr).integer("tokens", e->tokens).integer("loss_tokens", e->loss_tokens)
            .num("tokens_per_s", e->tokens_per_s).num("elapsed_s", e->elapsed_s).dump().c_str());
        fflush(stdout);
    } else {
        fprintf(stderr, "step %5d/%d  loss %.4f  lr %.2e  %.0f tok/s\n", e->step, e->n_steps, e->loss, e->lr, e->tokens_per_s);
    }
    return true;
}

// Tokenizes each document (BOS first, EOS last) and cuts it into sequences of ctx+1 tokens
// that overlap by one, so every token after the first is predicted exactly once.
std::vector<std::vector<int32_t>> chunk_documents(hone_model * model, const std::vector<std::string> & docs, int ctx) {
    std::vector<std::vector<int32_t>> out;
    const int32_t eos = hone_model_token_eos(model);
    for (const std::string & d : docs) {
        std::vector<int32_t> toks(d.size() + 8);
        int32_t n = hone_model_tokenize(model, d.data(), d.size(), true, toks.data(), (int32_t) toks.size());
        if (n < 0) { toks.resize(-n); n = hone_model_tokenize(model, d.data(), d.size(), true, toks.data(), (int32_t) toks.size()); }
        toks.resize(n);
        if (eos >= 0) toks.push_back(eos);
        for (size_t s = 0; s + 1 < toks.size(); s += ctx) {
            const size_t e = std::min(toks.size(), s + ctx + 1);
            out.emplace_back(toks.begin() + s, toks.begin() + e);
        }
    }
    return out;
}

// Creates dir and its missing parents.
bool make_dirs(const std::string & dir) {
    for (size_t i = 1; i <= dir.size(); i++) {
        if (i < dir.size() && dir[i] != '/' && dir[i] != '\\') continue;
        const std::string part = dir.substr(0, i);
#ifdef _WIN32
        if (_mkdir(part.c_str()) != 0 && errno != EEXIST) return false;
#else
        if (mkdir(part.c_str(), 0755) != 0 && errno != EEXIST) return false;
#endif
    }
    return true;
}

bool write_atomic(const std::string & path, const std::string & content) {
    const std::string tmp = path + ".tmp";
    FILE * f = fopen(tmp.c_str(), "wb");
    if (!f) return false;
    const bool ok = fwrite(content.data(), 1, content.size(), f) == content.size() && fflush(f) == 0;
    if (fclose(f) != 0 || !ok || rename(tmp.c_str(), path.c_str()) != 0) { remove(tmp.c_str()); return false; }
    return true;
}

} // namespace

int cmd_train(int argc, char ** argv) {
    Args a(argc, argv, 1,
           { "model", "data", "out", "rank", "alpha", "targets", "lr", "steps", "epochs", "ctx", "batch", "ubatch",
             "seed", "backend", "threads", "weight-decay" },
           { "json" });
    const bool json = a.flag("json");
    const std::string model_path = a.required("model"), data_path = a.required("data"), out_dir = a.required("out");
    hone_error err{};

    hone_adapter_params ap = hone_adapter_default_params();
    ap.rank = (int32_t) a.integer("rank", ap.rank);
    ap.alpha = (float) a.number("alpha", 2.0 * ap.rank);
    ap.seed = (uint64_t) a.integer("seed", 42);
    if (a.has("targets") && hone_parse_targets(a.str("targets").c_str(), &ap.targets, &err) != HONE_OK) {
        return report_error(json, status_code(err.code), err.message);
    }
    hone_train_params tp = hone_train_default_params();
    tp.n_ctx = (int32_t) a.integer("ctx", tp.n_ctx);
    tp.n_batch = (int32_t) a.integer("batch", tp.n_batch);
    tp.n_ubatch = (int32_t) a.integer("ubatch", std::min<int64_t>(tp.n_batch, a.integer("batch", tp.n_batch)));
    tp.n_steps = (int32_t) a.integer("steps", 0);
    tp.n_epochs = (int32_t) a.integer("epochs", tp.n_steps > 0 ? 0 : 1);
    tp.lr = (float) a.number("lr", tp.lr);
    tp.weight_decay = (float) a.number("weight-decay", tp.weight_decay);
    tp.seed = ap.seed;
    if (ap.rank < 1) return report_error(json, "invalid_argument", "LoRA rank must be at least 1 (got " + std::to_string(ap.rank) + ")");

    TextDocs docs;
    try {
        docs = read_text_docs(data_path);
    } catch (const std::exception & e) {
        return report_error(json, "bad_dataset", e.what());
    }

    hone_model_params mp = hone_model_default_params();
    mp.path = model_path.c_str();
    const std::string backend = a.str("backend", "auto");
    mp.backend = backend.c_str();
    mp.n_threads = (int) a.integer("threads", 0);
    hone_model * model = nullptr;
    if (hone_model_load(&mp, &model, &err) != HONE_OK) return report_error(json, status_code(err.code), err.message);
    std::unique_ptr<hone_model, void (*)(hone_model *)> model_guard(model, hone_model_free);

    hone_adapter * adapter = nullptr;
    if (hone_adapter_init(model, &ap, &adapter, &err) != HONE_OK) return report_error(json, status_code(err.code), err.message);
    std::unique_ptr<hone_adapter, void (*)(hone_adapter *)> adapter_guard(adapter, hone_adapter_free);

    auto seqs_tok = chunk_documents(model, docs.docs, tp.n_ctx);
    std::vector<hone_sequence> seqs;
    for (auto & s : seqs_tok) seqs.push_back({ s.data(), nullptr, (int32_t) s.size() });
    if (seqs.empty()) return report_error(json, "bad_dataset", data_path + ": the dataset is empty after tokenization");

    hone_trainer * trainer = nullptr;
    if (hone_trainer_init(model, adapter, &tp, &trainer, &err) != HONE_OK) return report_error(json, status_code(err.code), err.message);
    std::unique_ptr<hone_trainer, void (*)(hone_trainer *)> trainer_guard(trainer, hone_trainer_free);

    hone_model_info info;
    hone_model_get_info(model, &info);
    char targets[256];
    hone_format_targets(ap.targets, targets, sizeof(targets));
    if (json) {
        printf("%s\n", JsonObject().str("type", "start").str("model", model_path).str("arch", info.arch).str("backend", info.backend)
            .integer("sequences", (long long) seqs.size()).integer("adapter_params", hone_adapter_n_params(adapter))
            .str("note", "flash attention is off for training: ggml has no backward for it").dump().c_str());
        fflush(stdout);
    } else {
        fprintf(stderr, "model %s (%s, %d layers) on %s; %zu sequences of up to %d tokens; LoRA r=%d alpha=%g on %s (%lld params)\n"
                        "note: flash attention is off for training (ggml has no backward for it)\n",
                model_path.c_str(), info.arch, info.n_layer, info.backend, seqs.size(), tp.n_ctx, ap.rank, ap.alpha, targets,
                (long long) hone_adapter_n_params(adapter));
    }

    StepState st{ json };
    if (hone_trainer_train(trainer, seqs.data(), (int32_t) seqs.size(), on_step, &st, &err) != HONE_OK) {
        return report_error(json, status_code(err.code), err.message);
    }

    if (!make_dirs(out_dir)) return report_error(json, "io_error", out_dir + ": cannot create the output folder: " + strerror(errno));
    const std::string adapter_path = out_dir + "/adapter.gguf";
    if (hone_adapter_save(adapter, adapter_path.c_str(), &err) != HONE_OK) return report_error(json, status_code(err.code), err.message);

    const std::string run = JsonObject()
        .raw("config", JsonObject().str("model", model_path).str("data", data_path).str("data_format", docs.format)
             .str("backend", info.backend).integer("threads", mp.n_threads > 0 ? mp.n_threads : (long long) std::thread::hardware_concurrency())
             .integer("rank", ap.rank).num("alpha", ap.alpha).str("targets", targets)
             .num("lr", tp.lr).num("weight_decay", tp.weight_decay).num("beta1", tp.beta1).num("beta2", tp.beta2).num("eps", tp.eps)
             .integer("steps", st.last.n_steps).integer("epochs", tp.n_epochs).integer("ctx", tp.n_ctx).integer("batch", tp.n_batch)
             .integer("ubatch", tp.n_ubatch).integer("seed", (long long) tp.seed).boolean("flash_attn", false).dump())
        .raw("metrics", JsonObject().num("final_loss", st.last.loss).integer("steps", st.last.step).integer("tokens", st.last.tokens)
             .num("elapsed_s", st.last.elapsed_s).num("tokens_per_s", st.last.elapsed_s > 0 ? st.last.tokens / st.last.elapsed_s : 0)
             .num("peak_rss_mib", peak_rss_mib()).dump())
        .dump();
    if (!write_atomic(out_dir + "/run.json", run + "\n")) return report_error(json, "io_error", out_dir + "/run.json: cannot write");
    char * ops = nullptr;
    if (hone_trainer_op_report(trainer, &ops, &err) != HONE_OK) return report_error(json, status_code(err.code), err.message);
    const bool ops_ok = write_atomic(out_dir + "/ops.json", std::string(ops) + "\n");
    hone_string_free(ops);
    if (!ops_ok) return report_error(json, "io_error", out_dir + "/ops.json: cannot write");
    if (json) {
        printf("%s\n", JsonObject().str("type", "done").str("adapter", adapter_path).num("final_loss", st.last.loss).dump().c_str());
    } else {
        fprintf(stderr, "wrote %s and %s/run.json\n", adapter_path.c_str(), out_dir.c_str());
    }
    return 0;
}
