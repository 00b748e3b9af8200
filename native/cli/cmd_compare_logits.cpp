// `hone-train compare-logits --model A [--adapter X] --model-b B [--adapter-b Y] --text "..."`:
// llama.cpp inference (hone_reference_logits) of two models, each with or without an adapter,
// on the same tokens, and how far their logits are apart. A merged model against its base
// with the adapter; a quantized model against its F32 original (its quantization error).
#include "args.h"
#include "commands.h"
#include "hone_json.h"

#include "hone.h"

#include <cmath>
#include <cstdio>
#include <memory>
#include <vector>

int cmd_compare_logits(int argc, char ** argv) {
    Args a(argc, argv, 2, { "model", "adapter", "model-b", "adapter-b", "text", "threads" }, { "json" });
    const bool json = a.flag("json");
    const std::string model = a.required("model"), model_b = a.required("model-b"), text = a.required("text");
    const std::string adapter = a.str("adapter"), adapter_b = a.str("adapter-b");
    const int threads = a.integer("threads", 0) > 0 ? (int) a.integer("threads", 0) : 4;
    hone_error err{};
    // the tokenizer of the first model (both must share one: same vocab size checked below)
    hone_model_params mp = hone_model_default_params();
    mp.path = model.c_str();
    mp.backend = "cpu";
    hone_model * m = nullptr;
    if (hone_model_load(&mp, &m, &err) != HONE_OK) return report_error(json, "load_failed", err.message);
    std::unique_ptr<hone_model, void (*)(hone_model *)> mg(m, hone_model_free);
    hone_model_info info;
    hone_model_get_info(m, &info);
    std::vector<int32_t> toks(text.size() + 8);
    const int32_t n = hone_model_tokenize(m, text.data(), text.size(), true, toks.data(), (int32_t) toks.size());
    if (n <= 0) return report_error(json, "bad_text", "the text produced no tokens");
    toks.resize(n);
    mg.reset();
    std::vector<float> la((size_t) n * info.n_vocab), lb((size_t) n * info.n_vocab);
    if (hone_reference_logits(model.c_str(), adapter.empty() ? nullptr : adapter.c_str(), toks.data(), n, threads, la.data(), &err) != HONE_OK) {
        return report_error(json, "reference_failed", err.message);
    }
    if (hone_reference_logits(model_b.c_str(), adapter_b.empty() ? nullptr : adapter_b.c_str(), toks.data(), n, threads, lb.data(), &err) != HONE_OK) {
        return report_error(json, "reference_failed", err.message);
    }
    double max_abs = 0.0, max_ref = 0.0, sq = 0.0;
    int argmax_same = 0;
    for (int i = 0; i < n; i++) {
        const float * ra = la.data() + (size_t) i * info.n_vocab, * rb = lb.data() + (size_t) i * info.n_vocab;
        int ia = 0, ib = 0;
        for (int v = 0; v < info.n_vocab; v++) {
            const double d = std::fabs((double) ra[v] - rb[v]);
            max_abs = std::max(max_abs, d);
            max_ref = std::max(max_ref, (double) std::fabs(ra[v]));
            sq += d * d;
            if (ra[v] > ra[ia]) ia = v;
            if (rb[v] > rb[ib]) ib = v;
        }
        argmax_same += ia == ib;
    }
    const double rel = max_ref > 0 ? max_abs / max_ref : max_abs, rms = std::sqrt(sq / (double) la.size());
    if (json) {
        printf("%s\n", JsonObject().str("type", "compare-logits").integer("tokens", n).integer("n_vocab", info.n_vocab).num("max_abs_diff", max_abs)
            .num("max_abs_logit", max_ref).num("max_rel_diff", rel).num("rms_diff", rms).integer("argmax_same", argmax_same).dump().c_str());
    } else {
        printf("tokens %d  max |diff| %.3e  max |logit| %.3e  relative %.3e  rms %.3e  same argmax %d/%d\n", n, max_abs, max_ref, rel, rms, argmax_same, n);
    }
    return 0;
}
