#include "gpu_precision.h"

#include "error.h"

#include <cstdlib>

namespace hone {

// A quantized weight times more columns than this takes the dequantized BF16 copy: a
// training micro-batch (hundreds to thousands of tokens) does, a generation step never does.
static const char * k_mmq_max_batch = "256";

static void set_env(const char * key, const char * value) {
#ifdef _WIN32
    _putenv_s(key, value);
#else
    setenv(key, value, 1);
#endif
}

void apply_gpu_precision(const std::string & precision, bool cuda) {
    if (precision != "bf16" && precision != "f32") {
        fail(HONE_E_INVALID_ARG, "unknown GPU precision '%s' (expected bf16 or f32)", precision.c_str());
    }
    if (!cuda) return;
    set_env("GGML_CUDA_MMQ_MAX_BATCH", precision == "bf16" ? k_mmq_max_batch : "-1");
    set_env("GGML_CUDA_FA_BACK_BF16", precision == "bf16" ? "1" : "0"); // patch 0008's products
}

} // namespace hone
