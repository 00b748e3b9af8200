// `hone-train score --model M [--adapter A] --data D --ctx N`: the cross-entropy of every
// sequence of a data file, computed in double precision on the CPU from the forward pass's
// logits (hone_forward_logits: one sequence at a time, exact length, no padding), over the
// tokens that carry loss. An independent reference for the trainer's loss and eval loss.
// `--logits-out FILE` also writes every sequence's logits, raw little-endian F32, sequence after
// sequence, each [n_in rows × n_vocab] (n_in = its tokens - 1, in the score events): what
// another runtime's logits are compared with (native/scripts/peft-check.py).
#include "args.h"
#include "commands.h"
#include "hone_json.h"
#include "model_loader.h"
#include "train_data.h"

#include "hone.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

int cmd_score(int argc, char ** argv) {
    Args a(argc, argv, 2, { "model", "adapter", "data", "ctx", "threads", "logits-out" }, { "json" });
    const bool json = a.flag("json");
    const std::string data_path = a.required("data");
    const int ctx = (int) a.integer("ctx", hone_train_default_params().n_ctx);
    LoadedModel lm;
    if (!load_model_and_adapter(a, json, lm)) return 1;
    hone_model * model = lm.model.get();
    hone_adapter * ad = lm.adapter.get();
    hone_error err{};
    TrainData data;
    try {
        data = load_train_data(model, data_path, ctx);
    } catch (const std::exception & e) {
        return report_error(json, "bad_dataset", e.what());
    }
    hone_model_info info;
    hone_model_get_info(model, &info);
    const int V = info.n_vocab;
    std::unique_ptr<FILE, int (*)(FILE *)> logits_out(nullptr, fclose);
    if (a.has("logits-out")) {
        logits_out.reset(fopen(a.str("logits-out").c_str(), "wb"));
        if (!logits_out) return report_error(json, "io_error", (a.str("logits-out") + ": cannot be written").c_str());
    }
    double total_nll = 0.0;
    long long total_tokens = 0;
    for (size_t s = 0; s < data.tokens.size(); s++) {
        const std::vector<int32_t> & toks = data.tokens[s];
        const int n = (int) std::min<size_t>(toks.size(), (size_t) ctx + 1); // the trainer's truncation
        const int n_in = n - 1;
        std::vector<float> logits((size_t) n_in * V);
        if (hone_forward_logits(model, ad, toks.data(), n_in, logits.data(), &err) != HONE_OK) return report_error(json, "forward_failed", err.message);
        if (logits_out && fwrite(logits.data(), sizeof(float), logits.size(), logits_out.get()) != logits.size()) {
            return report_error(json, "io_error", (a.str("logits-out") + ": cannot be written").c_str());
        }
        double nll = 0.0;
        long long count = 0;
        for (int i = 0; i < n_in; i++) {
            if (!data.masks[s].empty() && !data.masks[s][i + 1]) continue;
            const float * row = logits.data() + (size_t) i * V;
            double mx = row[0];
            for (int v = 1; v < V; v++) mx = std::max(mx, (double) row[v]);
            double z = 0.0;
            for (int v = 0; v < V; v++) z += std::exp((double) row[v] - mx);
            nll += mx + std::log(z) - (double) row[toks[i + 1]];
            count++;
        }
        total_nll += nll;
        total_tokens += count;
        if (json) {
            printf("%s\n", JsonObject().str("type", "score").integer("index", (long long) s).integer("tokens", n)
                .integer("loss_tokens", count).num("nll", nll).dump().c_str());
        }
    }
    const double mean = total_tokens ? total_nll / total_tokens : 0.0;
    if (json) {
        printf("%s\n", JsonObject().str("type", "score-total").integer("sequences", (long long) data.tokens.size())
            .integer("loss_tokens", total_tokens).num("nll", total_nll).num("mean", mean).dump().c_str());
    } else {
        printf("%zu sequences, %lld loss tokens, mean cross-entropy %.6f\n", data.tokens.size(), total_tokens, mean);
    }
    return 0;
}
