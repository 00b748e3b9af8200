#include "fused_attention.h"

#include "env_switch.h"

namespace hone {

bool fused_attention_allowed() {
    static const bool allowed = env_switch_on("HONE_FUSED_ATTENTION");
    return allowed;
}

bool backend_runs_fused_attention(ggml_backend_t backend, ggml_tensor * kqv) {
    if (!ggml_backend_supports_op(backend, kqv)) return false;
    // the backward node, built in a scratch context only to be asked about
    ggml_init_params ip = { ggml_tensor_overhead() * 2, nullptr, true };
    ggml_context * probe = ggml_init(ip);
    ggml_tensor * d = ggml_new_tensor(probe, GGML_TYPE_F32, GGML_MAX_DIMS, kqv->ne);
    const bool ok = ggml_backend_supports_op(backend, ggml_flash_attn_ext_back(probe, kqv, d));
    ggml_free(probe);
    return ok;
}

} // namespace hone
