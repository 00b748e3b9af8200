// Pins patch 0001: CPU OUT_PROD with a quantized src0 (the backward of MUL_MAT through a
// frozen quantized weight). For each type and shape it checks the kernel against a float64
// dequantize-then-accumulate reference, and that 1 and 3 threads give bit-identical results
// (the row blocks each thread walks must not change any element's summation). The shapes of
// patch 0011's test-backend-ops cases (Metal) are here too, so they are proven on the CPU:
// every src0 type a training base uses (BF16 through patch 0011), batches, broadcast over dim 2
// (F32 src0), rank-4/8/24 operands.
// Exit code 0 when every case passes; one line per case either way.
#include "cpu_result.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

// a = [m, k, batch] of `type`, b = [n, k, batch * nr] (src1 batch z reads src0 batch z / nr)
struct Case { ggml_type type; int m, n, k, batch; bool trans_b; int nr = 1; };

static std::vector<float> run(const Case & c, const std::vector<float> & a_f32, const std::vector<float> & b, int threads,
                              std::vector<float> * a_deq) {
    ggml_init_params ip = { (size_t) 64 << 20, nullptr, false };
    ggml_context * ctx = ggml_init(ip);
    ggml_tensor * a = ggml_new_tensor_3d(ctx, c.type, c.m, c.k, c.batch);
    if (c.type == GGML_TYPE_F32) memcpy(a->data, a_f32.data(), a_f32.size() * sizeof(float));
    else ggml_quantize_chunk(c.type, a_f32.data(), a->data, 0, (int64_t) c.k * c.batch, c.m, nullptr);
    if (a_deq) {
        a_deq->resize(a_f32.size());
        if (c.type == GGML_TYPE_F32) *a_deq = a_f32;
        else ggml_get_type_traits(c.type)->to_float(a->data, a_deq->data(), (int64_t) a_f32.size());
    }
    const int zb = c.batch * c.nr;
    ggml_tensor * bt;
    if (c.trans_b) {
        ggml_tensor * raw = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, c.k, c.n, zb);
        float * d = (float *) raw->data;
        for (int z = 0; z < zb; z++) for (int j = 0; j < c.n; j++) for (int l = 0; l < c.k; l++)
            d[((size_t) z * c.n + j) * c.k + l] = b[((size_t) z * c.k + l) * c.n + j];
        bt = ggml_transpose(ctx, raw);
    } else {
        bt = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, c.n, c.k, zb);
        memcpy(bt->data, b.data(), b.size() * sizeof(float));
    }
    return compute_and_free(ctx, ggml_out_prod(ctx, a, bt), threads);
}

int main() {
    std::vector<Case> cases = {
        { GGML_TYPE_Q4_0, 256, 150, 32, 1, false }, { GGML_TYPE_Q8_0, 256, 150, 32, 1, false },
        { GGML_TYPE_Q4_K, 256, 150, 32, 1, false }, { GGML_TYPE_Q6_K, 256, 150, 32, 1, false },
        { GGML_TYPE_Q8_0, 256, 150, 32, 1, true },  { GGML_TYPE_Q4_K, 256, 70, 16, 3, false },
        { GGML_TYPE_Q8_0, 64, 1, 7, 1, false },     { GGML_TYPE_Q6_K, 512, 129, 40, 2, true },
    };
    // patch 0011's shapes (as its test-backend-ops cases)
    for (ggml_type t : { GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_BF16, GGML_TYPE_Q4_0, GGML_TYPE_Q4_1, GGML_TYPE_Q5_0, GGML_TYPE_Q5_1,
                         GGML_TYPE_Q8_0, GGML_TYPE_Q2_K, GGML_TYPE_Q3_K, GGML_TYPE_Q4_K, GGML_TYPE_Q5_K, GGML_TYPE_Q6_K }) {
        for (bool trans_b : { false, true }) {
            cases.push_back({ t, 256, 33, 100, 1, trans_b });
            cases.push_back({ t, 512, 40, 64, 2, trans_b, t == GGML_TYPE_F32 ? 3 : 1 }); // the CPU broadcasts an F32 src0 only
        }
    }
    for (int r : { 4, 8, 24 }) {
        for (bool trans_b : { false, true }) {
            cases.push_back({ GGML_TYPE_F32, r, 130, 300, 1, trans_b });
            cases.push_back({ GGML_TYPE_F32, 300, r, 130, 1, trans_b });
        }
    }
    int failed = 0;
    std::mt19937 rng(1234);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (const Case & c : cases) {
        std::vector<float> a((size_t) c.m * c.k * c.batch), b((size_t) c.n * c.k * c.batch * c.nr), a_deq;
        for (auto & x : a) x = nd(rng);
        for (auto & x : b) x = nd(rng);
        const std::vector<float> r1 = run(c, a, b, 1, &a_deq);
        const std::vector<float> r3 = run(c, a, b, 3, nullptr);
        double max_rel = 0.0;
        for (int z = 0; z < c.batch * c.nr; z++) {
            for (int j = 0; j < c.n; j++) {
                for (int i = 0; i < c.m; i++) {
                    double ref = 0.0, mag = 0.0;
                    for (int l = 0; l < c.k; l++) {
                        const double p = (double) a_deq[((size_t) (z / c.nr) * c.k + l) * c.m + i] * b[((size_t) z * c.k + l) * c.n + j];
                        ref += p;
                        mag += std::fabs(p);
                    }
                    const double got = r1[((size_t) z * c.n + j) * c.m + i];
                    max_rel = std::max(max_rel, std::fabs(got - ref) / (mag + 1e-30));
                }
            }
        }
        const bool same = memcmp(r1.data(), r3.data(), r1.size() * sizeof(float)) == 0;
        const bool ok = max_rel < 1e-5 && same;
        failed += !ok;
        printf("%s out_prod %s m=%d n=%d k=%d batch=%d broadcast=%d trans_b=%d: max rel err %.2e vs float64, 1 vs 3 threads %s\n",
               ok ? "ok" : "FAIL", ggml_type_name(c.type), c.m, c.n, c.k, c.batch, c.nr, c.trans_b, max_rel, same ? "identical" : "DIFFER");
    }
    return failed ? 1 : 0;
}
