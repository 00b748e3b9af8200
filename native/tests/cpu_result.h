// Kernel tests' shared step: compute one result tensor on the CPU and copy it out.
#pragma once

#include "ggml-cpu.h"
#include "ggml.h"

#include <cstring>
#include <vector>

// Computes `out` (in ctx, which owns its data) with `threads` threads, frees ctx, returns the values.
inline std::vector<float> compute_and_free(ggml_context * ctx, ggml_tensor * out, int threads) {
    ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    ggml_graph_compute_with_ctx(ctx, gf, threads);
    std::vector<float> r(ggml_nelements(out));
    memcpy(r.data(), out->data, r.size() * sizeof(float));
    ggml_free(ctx);
    return r;
}
