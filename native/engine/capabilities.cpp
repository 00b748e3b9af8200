// hone_capabilities_json: what this build can do, for every front end (docs/capabilities.md).
// The defaults of every training option live here and in the params structs' defaults
// functions, so the app, `hone` and `hone-train` cannot disagree.
#include "hone.h"

#include "backend_registry.h"
#include "model.h"
#include "hone_json.h"
#include "process_memory.h"

#include "ggml-backend.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

// The shortest decimal that reads back as the same float (1e-4, not 9.99999975e-05).
std::string f32(float v) {
    char b[32];
    for (int digits = 6; digits <= 9; digits++) {
        snprintf(b, sizeof(b), "%.*g", digits, v);
        if (strtof(b, nullptr) == v) break;
    }
    return b;
}

std::string backends_json() {
    hone::ensure_backends();
    std::string out;
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        const auto type = ggml_backend_dev_type(dev);
        if (type != GGML_BACKEND_DEVICE_TYPE_GPU && type != GGML_BACKEND_DEVICE_TYPE_CPU) continue;
        size_t free = 0, total = 0;
        ggml_backend_dev_memory(dev, &free, &total);
        // the CPU's pool is system memory: what the system can give without swapping
        if (type == GGML_BACKEND_DEVICE_TYPE_CPU) free = (size_t) hone::system_available_bytes();
        const std::string reg = ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev));
        const char * request = type == GGML_BACKEND_DEVICE_TYPE_CPU ? "cpu" : reg == "CUDA" ? "cuda" : (reg == "Metal" || reg == "MTL") ? "metal" : "";
        out += (out.empty() ? "" : ",") + JsonObject()
            .str("name", ggml_backend_dev_name(dev))
            .str("kind", type == GGML_BACKEND_DEVICE_TYPE_CPU ? "cpu" : "gpu")
            .str("request", request)
            .str("description", ggml_backend_dev_description(dev))
            .integer("free_bytes", (long long) free)
            .integer("total_bytes", (long long) total)
            .dump();
    }
    return "[" + out + "]";
}

std::string defaults_json() {
    const hone_train_params tp = hone_train_default_params();
    const hone_adapter_params ap = hone_adapter_default_params();
    const hone_render_params rp = hone_render_default_params();
    char targets[256];
    hone_format_targets(ap.targets, targets, sizeof(targets));
    return JsonObject()
        .integer("rank", ap.rank)
        .num("alpha", 0) // 0: 2 * rank
        .str("targets", targets)
        .raw("lr", f32(tp.lr))
        .str("schedule", hone_lr_schedule_name(tp.lr_schedule))
        .integer("warmup", tp.warmup_steps)
        .raw("lr_min", f32(tp.lr_min))
        .raw("weight_decay", f32(tp.weight_decay))
        .raw("max_grad_norm", f32(tp.max_grad_norm))
        .integer("steps", tp.n_steps)
        .integer("epochs", tp.n_epochs)
        .integer("ctx", tp.n_ctx)
        .integer("batch", tp.n_batch)
        .integer("batch_tokens", tp.n_batch_tokens)
        .integer("ubatch", 0) // 0: automatic (the most rows a step fills whose plan fits)
        .integer("seed", (long long) tp.seed)
        .str("backend", "auto")
        .str("gpu_precision", "bf16")
        .integer("threads", 0) // 0: all hardware threads
        .num("eval_split", 0)
        .integer("eval_every", tp.eval_every)
        .integer("checkpoint_every", tp.checkpoint_every)
        .integer("keep_checkpoints", tp.keep_checkpoints)
        .integer("memory_limit", (long long) tp.memory_limit)
        .boolean("recompute", tp.recompute)
        .boolean("pack", tp.pack)
        .str("loss", rp.loss == HONE_LOSS_ALL ? "all" : "assistant")
        .boolean("ignore_weights", rp.ignore_weights)
        .str("truncate", "right") // keep the first ctx + 1 tokens, as the trainer does
        .dump();
}

} // namespace

extern "C" char * hone_capabilities_json(void) {
    const std::string s = JsonObject()
        .raw("backends", backends_json())
        .raw("trainable_architectures", json_string_array(hone::trainable_architectures()))
        .raw("defaults", defaults_json())
        .dump();
    char * out = (char *) malloc(s.size() + 1);
    if (out) memcpy(out, s.c_str(), s.size() + 1);
    return out;
}
