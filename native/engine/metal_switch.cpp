#include "metal_switch.h"

#include "error.h"

#include <cstdlib>
#include <cstring>

namespace hone {

bool metal_out_prod_enabled(const char * value) {
    if (!value || !*value || std::strcmp(value, "1") == 0) return true;
    if (std::strcmp(value, "0") == 0) return false;
    fail(HONE_E_INVALID_ARG, "HONE_METAL_OUT_PROD is '%s': use 0 (OUT_PROD on the CPU) or 1 (on the Metal GPU, the default)", value);
}

bool metal_out_prod_enabled() {
    static const bool on = metal_out_prod_enabled(std::getenv("HONE_METAL_OUT_PROD"));
    return on;
}

void apply_metal_switches() {
#if defined(_WIN32)
    // no Metal on Windows
#else
    if (!metal_out_prod_enabled()) setenv("GGML_METAL_NO_OUT_PROD", "1", 1);
#endif
}

} // namespace hone
