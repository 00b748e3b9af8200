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

bool give_attention_lse(ggml_backend_t backend, ggml_tensor * kqv, ggml_tensor * lse) {
    static const bool allowed = env_switch_on("HONE_ATTENTION_LSE");
    // the CPU's backward recomputes its own: there the output would only cost time
    if (!allowed || ggml_backend_dev_type(ggml_backend_get_device(backend)) != GGML_BACKEND_DEVICE_TYPE_GPU) return false;
    ggml_flash_attn_ext_set_lse(kqv, lse);
    if (ggml_backend_supports_op(backend, kqv)) return true;
    ggml_flash_attn_ext_set_lse(kqv, nullptr);
    return false;
}

} // namespace hone
