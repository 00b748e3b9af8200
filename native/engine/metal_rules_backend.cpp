#include "metal_rules_backend.h"

#include "error.h"
#include "metal_switch.h"
#include "refusing_backend.h"

#include "ggml-metal/ggml-metal-supports.h"

#include <cctype>

namespace hone {

namespace {

struct MetalFamily {
    const char * name;
    const char * gpus;
    bool has_simdgroup_reduction, has_simdgroup_mm, has_bfloat;
};

// As ggml_metal_device_init sets them from MTLGPUFamily (ggml-metal-device.m).
constexpr MetalFamily FAMILIES[] = {
    { "apple7", "Apple7 and later: M1 and later, A14 and later", true, true, true },
    { "metal3", "Metal 3 GPUs before Apple7: Intel and AMD Macs", true, false, true },
    { "apple6", "Apple6: A13", false, false, true },
};

} // namespace

ggml_backend_t metal_rules_backend_init(const std::string & family, int n_threads) {
    for (const MetalFamily & f : FAMILIES) {
        if (family != f.name) continue;
        const ggml_metal_op_features features = { f.has_simdgroup_reduction, f.has_simdgroup_mm, f.has_bfloat, metal_out_prod_enabled() };
        std::string name = "MTL-RULES-";
        for (char c : family) name += (char) std::toupper((unsigned char) c);
        return filtering_backend_init(name, std::string("CPU backend that accepts what Metal would on ") + f.gpus + " (tests only)",
                                      [features](const ggml_tensor * op) { return ggml_metal_supports_op(&features, op); }, n_threads);
    }
    std::string known;
    for (const MetalFamily & f : FAMILIES) known += std::string(known.empty() ? "" : ", ") + f.name;
    fail(HONE_E_INVALID_ARG, "unknown Metal GPU family '%s' (known: %s)", family.c_str(), known.c_str());
}

} // namespace hone
