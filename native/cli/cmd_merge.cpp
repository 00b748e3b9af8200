// `hone-train merge --model M --adapter A --out O [--type q4_k_m|q5_k_m|q8_0|f16] [--scale S]`:
// the LoRA merged into its base as a new GGUF (hone_merge). Ctrl-C cancels: nothing is left
// under O. With --json: one {"type":"merge-progress"} line per tensor, {"type":"note"} lines,
// then {"type":"merged"} (or {"type":"error"}).
#include "args.h"
#include "commands.h"
#include "hone_json.h"
#include "stop_signals.h"

#include "hone.h"

#include <cstdio>
#include <string>

namespace {

struct MergeEvents {
    bool json;
    int32_t cancel_after; // --test-cancel-after: answer "cancel" after this many tensors (< 0: never)
};

bool on_progress(const hone_merge_progress * p, void * ud) {
    const MergeEvents & ev = *static_cast<MergeEvents *>(ud);
    const bool json = ev.json;
    if (json) {
        printf("%s\n", JsonObject().str("type", "merge-progress").integer("done", p->done).integer("total", p->total)
            .str("tensor", p->tensor).boolean("merged", p->merged).dump().c_str());
        fflush(stdout);
    } else if (p->merged || p->done == p->total) {
        fprintf(stderr, "\r%d/%d tensors%s", p->done, p->total, p->done == p->total ? "\n" : "");
    }
    if (ev.cancel_after >= 0 && p->done >= ev.cancel_after && p->done < p->total) return false;
    return stop_request() == HONE_TRAIN_CONTINUE;
}

void on_note(const char * message, void * ud) {
    if (static_cast<MergeEvents *>(ud)->json) {
        printf("%s\n", JsonObject().str("type", "note").str("message", message).dump().c_str());
        fflush(stdout);
    } else {
        fprintf(stderr, "note: %s\n", message);
    }
}

} // namespace

int cmd_merge(int argc, char ** argv) {
    Args a(argc, argv, 2, { "model", "adapter", "out", "type", "scale", "threads", "test-cancel-after" }, { "json" });
    const bool json = a.flag("json");
    const std::string model = a.required("model"), adapter = a.required("adapter"), out = a.required("out"), type = a.str("type");
    hone_merge_params p = hone_merge_default_params();
    p.model_path = model.c_str();
    p.adapter_path = adapter.c_str();
    p.out_path = out.c_str();
    p.type = type.empty() ? nullptr : type.c_str();
    p.scale = (float) a.number("scale", 1.0);
    p.n_threads = (int) a.integer("threads", 0);
    MergeEvents ev{ json, (int32_t) a.integer("test-cancel-after", -1) };
    hone_merge_callbacks cb{ on_progress, on_note, &ev };
    hone_merge_result r{};
    hone_error err{};
    install_stop_signals();
    if (hone_merge(&p, &cb, &r, &err) != HONE_OK) return report_error(json, hone_status_name(err.code), err.message);
    if (json) {
        printf("%s\n", JsonObject().str("type", "merged").str("path", out).integer("bytes", r.bytes).integer("merged", r.merged)
            .integer("copied", r.copied).integer("fallbacks", r.fallbacks).num("peak_rss_mib", peak_rss_mib()).dump().c_str());
    } else {
        fprintf(stderr, "wrote %s (%lld bytes: %d tensors merged, %d copied)\n", out.c_str(), (long long) r.bytes, r.merged, r.copied);
    }
    return 0;
}
