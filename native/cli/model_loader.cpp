#include "model_loader.h"

#include "commands.h"

bool load_model_and_adapter(const Args & a, bool json, LoadedModel & out) {
    const std::string model_path = a.required("model"), backend = a.str("backend", "cpu");
    hone_error err{};
    hone_model_params mp = hone_model_default_params();
    mp.path = model_path.c_str();
    mp.backend = backend.c_str();
    const std::string gpu_precision = a.str("gpu-precision", "bf16");
    mp.gpu_precision = gpu_precision.c_str();
    mp.n_threads = (int) a.integer("threads", 0);
    hone_model * model = nullptr;
    if (hone_model_load(&mp, &model, &err) != HONE_OK) {
        report_error(json, "load_failed", err.message);
        return false;
    }
    out.model.reset(model);
    if (a.has("adapter")) {
        hone_adapter * ad = nullptr;
        if (hone_adapter_load(model, a.str("adapter").c_str(), &ad, &err) != HONE_OK) {
            report_error(json, "bad_adapter", err.message);
            return false;
        }
        out.adapter.reset(ad);
    }
    return true;
}
