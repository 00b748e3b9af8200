// Pins patch 0010: CPU MUL_MAT_ID_BACK (MUL_MAT_ID's backward to its input through frozen,
// possibly quantized experts). For each type and shape it checks the kernel against a float64
// reference over the dequantized experts, and that 1 and 3 threads give bit-identical results.
// Exit code 0 when every case passes; one line per case either way.
#include "cpu_result.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

// K: input width, N: expert rows, T: tokens; bcast: one input row per token (b->ne[1] == 1)
struct Case { ggml_type type; int n_as, n_used, K, N, T; bool bcast; };

struct Inputs {
    std::vector<float> as, d;
    std::vector<int32_t> ids; // [n_used, T], distinct experts per token (as top-k gives them)
};

static std::vector<float> run(const Case & c, const Inputs & in, int threads, std::vector<float> * as_deq) {
    ggml_init_params ip = { (size_t) 256 << 20, nullptr, false };
    ggml_context * ctx = ggml_init(ip);
    ggml_tensor * as = ggml_new_tensor_3d(ctx, c.type, c.K, c.N, c.n_as);
    if (c.type == GGML_TYPE_F32) {
        memcpy(as->data, in.as.data(), in.as.size() * sizeof(float));
    } else {
        ggml_quantize_chunk(c.type, in.as.data(), as->data, 0, (int64_t) c.N * c.n_as, c.K, nullptr);
    }
    if (as_deq) {
        as_deq->resize(in.as.size());
        if (c.type == GGML_TYPE_F32) {
            *as_deq = in.as;
        } else {
            ggml_get_type_traits(c.type)->to_float(as->data, as_deq->data(), (int64_t) in.as.size());
        }
    }
    ggml_tensor * d = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, c.N, c.n_used, c.T);
    memcpy(d->data, in.d.data(), in.d.size() * sizeof(float));
    ggml_tensor * ids = ggml_new_tensor_2d(ctx, GGML_TYPE_I32, c.n_used, c.T);
    memcpy(ids->data, in.ids.data(), in.ids.size() * sizeof(int32_t));
    ggml_tensor * b = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, c.K, c.bcast ? 1 : c.n_used, c.T);
    return compute_and_free(ctx, ggml_mul_mat_id_back(ctx, as, d, ids, b), threads);
}

int main() {
    const Case cases[] = {
        { GGML_TYPE_F32, 4, 2, 64, 24, 9, false },  { GGML_TYPE_F16, 4, 2, 64, 24, 9, true },
        { GGML_TYPE_Q8_0, 8, 2, 256, 40, 17, true }, { GGML_TYPE_Q4_K, 8, 3, 256, 40, 17, false },
        { GGML_TYPE_Q6_K, 16, 4, 512, 33, 31, true }, { GGML_TYPE_Q4_0, 6, 6, 128, 20, 5, false },
        { GGML_TYPE_Q5_K, 16, 8, 256, 64, 40, true },
    };
    int failed = 0;
    std::mt19937 rng(4321);
    std::normal_distribution<float> nd(0.0f, 1.0f);
    for (const Case & c : cases) {
        Inputs in;
        in.as.resize((size_t) c.K * c.N * c.n_as);
        in.d.resize((size_t) c.N * c.n_used * c.T);
        for (auto & x : in.as) x = nd(rng);
        for (auto & x : in.d) x = nd(rng);
        std::vector<int32_t> perm(c.n_as);
        for (int i = 0; i < c.n_as; i++) perm[i] = i;
        for (int t = 0; t < c.T; t++) {
            std::shuffle(perm.begin(), perm.end(), rng);
            for (int s = 0; s < c.n_used; s++) in.ids.push_back(perm[s]);
        }
        std::vector<float> as_deq;
        const std::vector<float> r1 = run(c, in, 1, &as_deq);
        const std::vector<float> r3 = run(c, in, 3, nullptr);
        const int ne1 = c.bcast ? 1 : c.n_used;
        std::vector<double> ref((size_t) c.K * ne1 * c.T, 0.0), mag(ref.size(), 0.0);
        for (int t = 0; t < c.T; t++) {
            for (int s = 0; s < c.n_used; s++) {
                const int e = in.ids[(size_t) t * c.n_used + s];
                for (int n = 0; n < c.N; n++) {
                    const double g = in.d[((size_t) t * c.n_used + s) * c.N + n];
                    for (int k = 0; k < c.K; k++) {
                        const double p = (double) as_deq[((size_t) e * c.N + n) * c.K + k] * g;
                        const size_t o = ((size_t) t * ne1 + s % ne1) * c.K + k;
                        ref[o] += p;
                        mag[o] += std::fabs(p);
                    }
                }
            }
        }
        double max_rel = 0.0;
        for (size_t i = 0; i < ref.size(); i++) max_rel = std::max(max_rel, std::fabs(r1[i] - ref[i]) / (mag[i] + 1e-30));
        const bool same = memcmp(r1.data(), r3.data(), r1.size() * sizeof(float)) == 0;
        const bool ok = max_rel < 1e-5 && same && r1.size() == ref.size();
        failed += !ok;
        printf("%s mul_mat_id_back %s n_as=%d n_used=%d K=%d N=%d T=%d bcast=%d: max rel err %.2e vs float64, 1 vs 3 threads %s\n",
               ok ? "ok" : "FAIL", ggml_type_name(c.type), c.n_as, c.n_used, c.K, c.N, c.T, c.bcast, max_rel, same ? "identical" : "DIFFER");
    }
    return failed ? 1 : 0;
}
