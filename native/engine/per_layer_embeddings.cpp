#include "per_layer_embeddings.h"

#include "graph.h"
#include "model.h"

#include <cmath>

namespace hone {

ggml_tensor * per_layer_table_rows(ggml_context * ctx, const hone_model & m, ggml_tensor * tokens) {
    ggml_tensor * rows = ggml_get_rows(ctx, m.pl_tok_embd, tokens);
    return tag(ggml_scale(ctx, rows, std::sqrt((float) m.hp.n_embd_per_layer)), "inp_per_layer_selected", -1);
}

ggml_tensor * per_layer_input(ggml_context * ctx, const hone_model & m, ggml_tensor * rows, ggml_tensor * embd, int il) {
    const Hparams & hp = m.hp;
    const int64_t E = hp.n_embd_per_layer, N = embd->ne[1];
    // rows il*E .. (il+1)*E of the projection: whole rows, so a view of any weight type
    ggml_tensor * w = ggml_view_2d(ctx, m.pl_model_proj, m.pl_model_proj->ne[0], E, m.pl_model_proj->nb[1], (size_t) il * E * m.pl_model_proj->nb[1]);
    ggml_tensor * proj = ggml_scale(ctx, ggml_mul_mat(ctx, w, embd), 1.0f / std::sqrt((float) hp.n_embd));
    proj = ggml_mul(ctx, ggml_rms_norm(ctx, proj, hp.norm_eps), m.pl_proj_norm);
    ggml_tensor * table = ggml_view_2d(ctx, rows, E, N, rows->nb[1], (size_t) il * E * rows->nb[0]);
    return tag(ggml_scale(ctx, ggml_add(ctx, proj, table), 1.0f / std::sqrt(2.0f)), "inp_per_layer", il);
}

ggml_tensor * add_per_layer_embedding(ggml_context * ctx, const hone_model & m, const LayerWeights & L, ggml_tensor * x,
                                      ggml_tensor * input, bool smooth_gelu) {
    ggml_tensor * g = ggml_mul(ctx, gelu(ctx, ggml_mul_mat(ctx, L.pl_gate, x), smooth_gelu), input);
    ggml_tensor * p = ggml_mul(ctx, ggml_rms_norm(ctx, ggml_mul_mat(ctx, L.pl_proj, g), m.hp.norm_eps), L.pl_post_norm);
    return ggml_add(ctx, x, p);
}

} // namespace hone
