// `hone-train check-forward`: the training graph's forward pass against llama.cpp inference
// (llama_decode with the adapter loaded by llama.cpp's own loader), on the same tokens.
#include "args.h"
#include "commands.h"
#include "hone_json.h"
#include "model_loader.h"

#include "hone.h"
#include "hone_test.h"

#include <cmath>
#include <filesystem>
#include <cstdio>
#include <string>
#ifndef _WIN32
#include <unistd.h>
#else
#include <process.h>
#define getpid _getpid
#endif
#include <cstdio>
#include <memory>
#include <vector>

int cmd_check_forward(int argc, char ** argv) {
    Args a(argc, argv, 2, { "model", "adapter", "text", "threads", "perturb-b", "backend", "gpu-precision" }, { "json" });
    const bool json = a.flag("json");
    const std::string model_path = a.required("model"), adapter_path = a.str("adapter"), text = a.required("text");
    hone_error err{};
    LoadedModel lm;
    if (!load_model_and_adapter(a, json, lm)) return 1;
    hone_model * model = lm.model.get();
    hone_adapter * ad = lm.adapter.release();
    // --perturb-b: a fresh adapter on every target with a non-zero B (B = 0 would test
    // nothing), saved to a temporary file so llama.cpp loads exactly the same tensors.
    std::string tmp_adapter;
    if (!ad && a.has("perturb-b")) {
        hone_adapter_params ap = hone_adapter_default_params();
        ap.rank = 4;
        ap.alpha = 8.0f;
        if (hone_adapter_init(model, &ap, &ad, &err) != HONE_OK) return report_error(json, "invalid_argument", err.message);
        hone_adapter_perturb_b(ad, (float) a.number("perturb-b", 0.05), 7);
        tmp_adapter = (std::filesystem::temp_directory_path() / ("hone-check-forward-" + std::to_string((long long) getpid()) + ".gguf")).string();
        if (hone_adapter_save(ad, tmp_adapter.c_str(), &err) != HONE_OK) return report_error(json, "io_error", err.message);
    }
    struct RemoveTmp { std::string p; ~RemoveTmp() { if (!p.empty()) std::remove(p.c_str()); } } remove_tmp{ tmp_adapter };
    const std::string ref_adapter = tmp_adapter.empty() ? adapter_path : tmp_adapter;
    std::unique_ptr<hone_adapter, void (*)(hone_adapter *)> ag(ad, hone_adapter_free);

    std::vector<int32_t> toks(text.size() + 8);
    const int32_t n = hone_model_tokenize(model, text.data(), text.size(), true, toks.data(), (int32_t) toks.size());
    if (n <= 0) return report_error(json, "bad_text", "the text produced no tokens");
    toks.resize(n);
    hone_model_info info;
    hone_model_get_info(model, &info);
    std::vector<float> mine((size_t) n * info.n_vocab), ref((size_t) n * info.n_vocab);
    if (hone_forward_logits(model, ad, toks.data(), n, mine.data(), &err) != HONE_OK) return report_error(json, "forward_failed", err.message);
    if (hone_reference_logits(model_path.c_str(), ad ? ref_adapter.c_str() : nullptr, toks.data(), n, a.integer("threads", 0) > 0 ? (int) a.integer("threads", 0) : 4,
                              ref.data(), &err) != HONE_OK) {
        return report_error(json, "reference_failed", err.message);
    }
    double max_abs = 0.0, max_ref = 0.0;
    for (size_t i = 0; i < mine.size(); i++) {
        max_abs = std::max(max_abs, (double) std::fabs(mine[i] - ref[i]));
        max_ref = std::max(max_ref, (double) std::fabs(ref[i]));
    }
    const double rel = max_ref > 0 ? max_abs / max_ref : max_abs;
    if (json) {
        printf("%s\n", JsonObject().str("type", "check-forward").integer("tokens", n).integer("n_vocab", info.n_vocab)
            .num("max_abs_diff", max_abs).num("max_abs_logit", max_ref).num("max_rel_diff", rel).dump().c_str());
    } else {
        printf("tokens %d  max |diff| %.3e  max |logit| %.3e  relative %.3e\n", n, max_abs, max_ref, rel);
    }
    return 0;
}
