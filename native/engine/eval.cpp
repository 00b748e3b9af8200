// Logits from the training graph's forward pass, and the same through llama.cpp inference,
// so the two can be compared (forward equivalence, adapter export round trip).
#include "backend_registry.h"
#include "error.h"
#include "graph.h"
#include "lora.h"
#include "model.h"

#include "llama.h"

#include <cstring>
#include <vector>

using namespace hone;

extern "C" {

hone_status hone_forward_logits(hone_model * m, hone_adapter * ad, const int32_t * tokens, int32_t n, float * logits, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(m && tokens && logits && n > 0, "model, tokens and output are required");
        HONE_CHECK_ARG(!ad || ad->model == m, "the adapter belongs to another model");
        const size_t gsize = training_graph_size(m->hp, n); // a forward graph needs less: ample
        ggml_context * ctx = ggml_init({ ggml_tensor_overhead() * gsize + ggml_graph_overhead_custom(gsize, false), nullptr, true });
        ggml_backend_sched_t sched = nullptr;
        struct Cleanup { ggml_context * c; ggml_backend_sched_t * s; ~Cleanup() { if (*s) ggml_backend_sched_free(*s); ggml_free(c); } } cleanup{ ctx, &sched };

        ForwardInputs in = make_forward_inputs(ctx, m->hp, n, 1);
        in.n_ctx = (int) GGML_PAD(n, 256); // the context llama.cpp makes for n tokens (check-forward's reference)
        ggml_tensor * out = build_forward(ctx, *m, ad, in, n, 1);
        ggml_set_output(out);
        ggml_cgraph * gf = ggml_new_graph_custom(ctx, gsize, false);
        ggml_build_forward_expand(gf, out);

        std::vector<ggml_backend_t> list = m->backends.list();
        sched = ggml_backend_sched_new(list.data(), nullptr, (int) list.size(), gsize, false, true);
        if (!ggml_backend_sched_alloc_graph(sched, gf)) fail(HONE_E_MEMORY, "not enough memory for a forward pass of %d tokens", n);
        std::vector<int32_t> pos(n);
        for (int i = 0; i < n; i++) pos[i] = i;
        ggml_backend_tensor_set(in.tokens, tokens, 0, n * sizeof(int32_t));
        set_positions(in, pos);
        set_causal_mask(in, m->hp, n);
        if (ggml_backend_sched_graph_compute(sched, gf) != GGML_STATUS_SUCCESS) fail(HONE_E_INTERNAL, "forward pass failed");
        ggml_backend_tensor_get(out, logits, 0, ggml_nbytes(out));
    });
}

hone_status hone_reference_logits(const char * model_path, const char * adapter_path, const int32_t * tokens, int32_t n,
                                  int n_threads, float * logits, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(model_path && tokens && logits && n > 0, "model, tokens and output are required");
        quiet_logs();
        llama_model_params mp = llama_model_default_params();
        mp.n_gpu_layers = 0;
        mp.use_extra_bufts = false; // the same CPU kernels as the training graph
        ensure_backends();
        llama_model * model = llama_model_load_from_file(model_path, mp);
        if (!model) fail(HONE_E_FORMAT, "%s: llama.cpp could not load this model", model_path);
        llama_adapter_lora * lora = nullptr;
        llama_context * lctx = nullptr;
        struct Cleanup {
            llama_model * m; llama_adapter_lora ** a; llama_context ** c;
            ~Cleanup() { if (*c) llama_free(*c); if (*a) llama_adapter_lora_free(*a); llama_model_free(m); }
        } cleanup{ model, &lora, &lctx };

        llama_context_params cp = llama_context_default_params();
        cp.n_ctx = n;
        cp.n_batch = n;
        cp.n_ubatch = n;
        cp.n_threads = cp.n_threads_batch = n_threads;
        cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
        cp.type_k = GGML_TYPE_F32;
        cp.type_v = GGML_TYPE_F32;
        cp.no_perf = true;
        lctx = llama_init_from_model(model, cp);
        if (!lctx) fail(HONE_E_INTERNAL, "llama.cpp could not create an inference context");
        if (adapter_path) {
            lora = llama_adapter_lora_init(model, adapter_path);
            if (!lora) fail(HONE_E_FORMAT, "%s: llama.cpp's adapter loader rejected this adapter", adapter_path);
            float scale = 1.0f;
            if (llama_set_adapters_lora(lctx, &lora, 1, &scale) != 0) fail(HONE_E_INTERNAL, "llama.cpp could not apply the adapter");
        }
        llama_batch batch = llama_batch_init(n, 0, 1);
        for (int i = 0; i < n; i++) {
            batch.token[i] = tokens[i];
            batch.pos[i] = i;
            batch.n_seq_id[i] = 1;
            batch.seq_id[i][0] = 0;
            batch.logits[i] = 1;
        }
        batch.n_tokens = n;
        const int rc = llama_decode(lctx, batch);
        if (rc != 0) { llama_batch_free(batch); fail(HONE_E_INTERNAL, "llama_decode failed (%d)", rc); }
        const int V = llama_vocab_n_tokens(llama_model_get_vocab(model));
        for (int i = 0; i < n; i++) memcpy(logits + (size_t) i * V, llama_get_logits_ith(lctx, i), V * sizeof(float));
        llama_batch_free(batch);
    });
}

} // extern "C"
