// Pins patch 0002's memory bound: the transient device memory of one quantized OUT_PROD on a
// 2D weight (the output head's backward: W = 2560 x 151936 at Q4_K, grad for 2048 tokens)
// stays within 256 MiB above its inputs and output. Measured as the growth of used device
// memory across the first compute (the CUDA pool grows to its high-water mark and keeps it),
// then the op is timed. Also checks a sample of outputs against a float64 CPU reference.
// usage: hone-test-out-prod-cuda-mem [n_embd n_vocab n_tokens]
#include "ggml-backend.h"
#include "ggml-cuda.h"
#include "ggml.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

static size_t used_device_bytes() {
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    return total_b - free_b;
}

int main(int argc, char ** argv) {
    const int64_t n_embd = argc > 1 ? atoll(argv[1]) : 2560;
    const int64_t n_vocab = argc > 2 ? atoll(argv[2]) : 151936;
    const int64_t n_tok = argc > 3 ? atoll(argv[3]) : 2048;
    const ggml_type type = GGML_TYPE_Q4_K;

    // CUDA graphs capture repeated computes and keep their own memory: not the op's transient.
    setenv("GGML_CUDA_DISABLE_GRAPHS", "1", 1);
    ggml_backend_t be = ggml_backend_cuda_init(0);
    if (!be) { fprintf(stderr, "no CUDA device\n"); return 1; }

    ggml_context * ctx = ggml_init({ ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true });
    ggml_tensor * w = ggml_new_tensor_2d(ctx, type, n_embd, n_vocab);
    ggml_tensor * g = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, n_vocab, n_tok); // grad of logits
    ggml_tensor * out = ggml_out_prod(ctx, w, ggml_transpose(ctx, g));       // grad of the hidden state
    ggml_cgraph * gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, out);
    ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, be);
    if (!buf) { fprintf(stderr, "allocation failed\n"); return 1; }

    // Random weights quantized on the host in parallel; random gradients.
    std::vector<float> wf(n_embd * n_vocab);
    std::vector<uint8_t> wq(ggml_nbytes(w));
    std::vector<float> gf32(n_vocab * n_tok);
    {
        const int nt = std::max(1u, std::thread::hardware_concurrency());
        std::vector<std::thread> pool;
        for (int t = 0; t < nt; t++) pool.emplace_back([&, t] {
            std::mt19937 rng(1000 + t);
            std::normal_distribution<float> nd(0.0f, 0.02f);
            const int64_t r0 = n_vocab * t / nt, r1 = n_vocab * (t + 1) / nt;
            for (int64_t i = r0 * n_embd; i < r1 * n_embd; i++) wf[i] = nd(rng);
            ggml_quantize_chunk(type, wf.data(), wq.data(), r0 * n_embd, r1 - r0, n_embd, nullptr);
            std::normal_distribution<float> ng(0.0f, 1e-4f);
            for (int64_t i = (int64_t) gf32.size() * t / nt; i < (int64_t) gf32.size() * (t + 1) / nt; i++) gf32[i] = ng(rng);
        });
        for (auto & th : pool) th.join();
    }
    ggml_backend_tensor_set(w, wq.data(), 0, wq.size());
    ggml_backend_tensor_set(g, gf32.data(), 0, gf32.size() * sizeof(float));
    ggml_backend_synchronize(be);

    // Warm-up on a small shape: cuBLAS handle and workspace are not the op's transient memory.
    {
        ggml_context * c2 = ggml_init({ ggml_tensor_overhead() * 8 + ggml_graph_overhead(), nullptr, true });
        ggml_tensor * w2 = ggml_new_tensor_2d(c2, type, 256, 512);
        ggml_tensor * g2 = ggml_new_tensor_2d(c2, GGML_TYPE_F32, 512, 64);
        ggml_tensor * o2 = ggml_out_prod(c2, w2, ggml_transpose(c2, g2));
        ggml_cgraph * gf2 = ggml_new_graph(c2);
        ggml_build_forward_expand(gf2, o2);
        ggml_backend_buffer_t b2 = ggml_backend_alloc_ctx_tensors(c2, be);
        std::vector<float> z(256 * 512, 0.01f);
        std::vector<uint8_t> zq(ggml_nbytes(w2));
        ggml_quantize_chunk(type, z.data(), zq.data(), 0, 512, 256, nullptr);
        ggml_backend_tensor_set(w2, zq.data(), 0, zq.size());
        std::vector<float> zg(512 * 64, 0.5f);
        ggml_backend_tensor_set(g2, zg.data(), 0, zg.size() * sizeof(float));
        ggml_backend_graph_compute(be, gf2);
        ggml_backend_synchronize(be);
        ggml_backend_buffer_free(b2);
        ggml_free(c2);
    }
    const size_t before = used_device_bytes();
    if (ggml_backend_graph_compute(be, gf) != GGML_STATUS_SUCCESS) { fprintf(stderr, "compute failed\n"); return 1; }
    ggml_backend_synchronize(be);
    const size_t after = used_device_bytes();
    const double transient_mib = (double) (after > before ? after - before : 0) / (1024.0 * 1024.0);

    const int reps = 10;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; i++) ggml_backend_graph_compute(be, gf);
    ggml_backend_synchronize(be);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count() / reps;
    const size_t after_reps = used_device_bytes();

    // Check sampled outputs against float64 using the dequantized weights.
    std::vector<float> res(ggml_nelements(out));
    ggml_backend_tensor_get(out, res.data(), 0, res.size() * sizeof(float));
    std::vector<float> wd(n_embd * n_vocab);
    ggml_get_type_traits(type)->to_float(wq.data(), wd.data(), (int64_t) wd.size());
    double err2 = 0, ref2 = 0;
    std::mt19937 rng(7);
    for (int s = 0; s < 64; s++) {
        const int64_t i0 = rng() % n_embd, i1 = rng() % n_tok;
        double ref = 0;
        for (int64_t k = 0; k < n_vocab; k++) ref += (double) wd[k * n_embd + i0] * gf32[i1 * n_vocab + k];
        const double d = res[i1 * n_embd + i0] - ref;
        err2 += d * d;
        ref2 += ref * ref;
    }
    const double rel = std::sqrt(err2 / std::max(ref2, 1e-300));
    const double tflops = 2.0 * n_embd * n_vocab * n_tok / (ms * 1e-3) / 1e12;
    const bool ok = transient_mib <= 256.0 + 2.0 && rel < 1e-2 && after_reps <= after + (4u << 20);
    printf("%s out_prod %s %lldx%lld, %lld tokens: transient %.1f MiB (bound 256), no growth over %d reps: %s, "
           "%.3f ms/op (%.1f TFLOP/s), rel err vs float64 %.2e\n",
           ok ? "ok" : "FAIL", ggml_type_name(type), (long long) n_embd, (long long) n_vocab, (long long) n_tok, transient_mib, reps,
           after_reps <= after + (4u << 20) ? "yes" : "NO", ms, tflops, rel);
    ggml_backend_buffer_free(buf);
    ggml_free(ctx);
    ggml_backend_free(be);
    return ok ? 0 : 1;
}
