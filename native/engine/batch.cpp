#include "batch.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <numeric>

namespace hone {

PreparedSeq prepare_sequence(const hone_sequence & s, int T, int32_t pad_token) {
    PreparedSeq p;
    p.input.assign(T, pad_token);
    p.target.assign(T, 0);
    p.mask.assign(T, 0);
    const int n = std::min<int>(s.n_tokens, T + 1);
    p.n_real = std::max(0, std::min(n, T));
    for (int i = 0; i < p.n_real; i++) p.input[i] = s.tokens[i];
    for (int i = 0; i + 1 < n; i++) {
        p.target[i] = s.tokens[i + 1];
        p.mask[i] = s.loss_mask ? (s.loss_mask[i + 1] != 0) : 1;
        p.n_loss += p.mask[i];
    }
    return p;
}

float loss_scale(int T, int B, int64_t n_loss_tokens) {
    return n_loss_tokens > 0 ? (float) T * B / (float) n_loss_tokens : 0.0f;
}

uint64_t fingerprint(const std::vector<PreparedSeq> & seqs) {
    uint64_t h = 14695981039346656037ULL; // FNV-1a 64 offset basis
    auto mix = [&](const void * data, size_t n) {
        const uint8_t * b = static_cast<const uint8_t *>(data);
        for (size_t i = 0; i < n; i++) { h ^= b[i]; h *= 1099511628211ULL; }
    };
    for (const PreparedSeq & s : seqs) {
        mix(s.input.data(), s.input.size() * sizeof(int32_t));
        for (size_t i = 0; i < s.mask.size(); i++) {
            const int32_t t = s.mask[i] ? s.target[i] : -1;
            mix(&t, sizeof(t));
        }
    }
    return h;
}

std::vector<std::vector<int32_t>> pack_rows(const std::vector<int32_t> & lengths, int T) {
    std::vector<int32_t> order(lengths.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return lengths[a] > lengths[b]; });
    std::vector<std::vector<int32_t>> rows;
    std::vector<int32_t> room;
    for (int32_t i : order) {
        const int32_t n = std::max(0, std::min(lengths[i], T));
        size_t r = 0;
        while (r < rows.size() && room[r] < n) r++;
        if (r == rows.size()) {
            rows.emplace_back();
            room.push_back(T);
        }
        rows[r].push_back(i);
        room[r] -= n;
    }
    return rows;
}

std::vector<int32_t> micro_batch_candidates(int32_t rows, int32_t n_batch, bool divisors) {
    std::vector<int32_t> out;
    if (divisors) {
        for (int32_t b = std::max(1, n_batch); b >= 1; b--) if (n_batch % b == 0) out.push_back(b);
        return out;
    }
    rows = std::max(1, rows);
    for (int32_t k = 1; k <= rows; k++) {
        const int32_t b = (rows + k - 1) / k;
        if (out.empty() || b < out.back()) out.push_back(b);
    }
    return out;
}

uint64_t splitmix64(uint64_t & state) {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void DataOrder::fill_epoch(int64_t e) {
    perm_.resize(n_);
    std::iota(perm_.begin(), perm_.end(), 0);
    uint64_t state = seed_ ^ (0xD1B54A32D192ED03ULL * (uint64_t) (e + 1));
    for (int32_t i = n_ - 1; i > 0; i--) {
        const int32_t j = (int32_t) (splitmix64(state) % (uint64_t) (i + 1)); // modulo bias < 2^-32: irrelevant here
        std::swap(perm_[i], perm_[j]);
    }
    epoch_ = e;
}

int32_t DataOrder::at(int64_t i) {
    const int64_t e = i / n_;
    if (e != epoch_) fill_epoch(e);
    return perm_[i % n_];
}

StepPlan::StepPlan(std::vector<int32_t> lengths, int32_t n_batch, int64_t batch_tokens, uint64_t seed, int64_t limit)
    : lengths_(std::move(lengths)), n_batch_(n_batch), budget_(batch_tokens), limit_(limit), order_((int32_t) lengths_.size(), seed), starts_{ 0 } {}

void StepPlan::extend(int64_t s) {
    while ((int64_t) starts_.size() <= s + 1) {
        int64_t c = starts_.back(), tokens = 0;
        do {
            tokens += lengths_[order_.at(c)];
            c++;
        } while ((limit_ <= 0 || c < limit_) && tokens + lengths_[order_.at(c)] <= budget_);
        starts_.push_back(c);
    }
}

int64_t StepPlan::start(int64_t s) {
    if (budget_ <= 0) return s * n_batch_;
    extend(s);
    return starts_[s];
}

std::vector<int32_t> StepPlan::take(int64_t s) {
    const int64_t from = start(s), to = budget_ <= 0 ? from + n_batch_ : starts_[s + 1];
    std::vector<int32_t> out;
    for (int64_t c = from; c < to; c++) out.push_back(order_.at(c));
    return out;
}

int64_t StepPlan::steps_to_limit() {
    int64_t s = 0;
    while (start(s) < limit_) s++;
    return s;
}

} // namespace hone

extern "C" bool hone_packing_helps(const int32_t * lengths, int32_t n, int32_t n_ctx) {
    int32_t a = INT32_MAX, b = INT32_MAX; // the two shortest rows' worth
    for (int32_t i = 0; i < n; i++) {
        const int32_t len = std::max(0, std::min(lengths[i], n_ctx));
        if (len < a) { b = a; a = len; }
        else if (len < b) b = len;
    }
    return n >= 2 && (int64_t) a + b <= n_ctx;
}

extern "C" int32_t hone_step_rows(const int32_t * lengths, int32_t n, const hone_train_params * p) {
    if (!lengths || !p || n <= 0 || p->n_ctx < 1) return 0;
    std::vector<int32_t> real(n); // a row holds min(n, n_ctx) input positions of a sequence
    for (int32_t i = 0; i < n; i++) real[i] = std::max(0, std::min(lengths[i], p->n_ctx));
    hone::StepPlan plan(real, std::max(1, p->n_batch), p->n_batch_tokens, p->seed, 0);
    int32_t most = 0;
    for (int64_t s = 0; s < 256 && plan.start(s) < n; s++) {
        const std::vector<int32_t> seqs = plan.take(s);
        int32_t rows = (int32_t) seqs.size();
        if (p->pack) {
            std::vector<int32_t> step;
            for (int32_t i : seqs) step.push_back(real[i]);
            rows = (int32_t) hone::pack_rows(step, p->n_ctx).size();
        }
        most = std::max(most, rows);
    }
    return most;
}

extern "C" int32_t hone_suggest_context(const int32_t * lengths, int32_t n, int32_t cap) {
    if (n <= 0) return 0;
    std::vector<int32_t> sorted(lengths, lengths + n);
    std::sort(sorted.begin(), sorted.end());
    // the length at or below which 99% of the sequences lie (nearest rank)
    const int32_t longest = sorted[(size_t) std::max<int64_t>(0, (int64_t) std::ceil(0.99 * n) - 1)];
    const int32_t tile = 64;
    int32_t ctx = std::max(tile, (longest - 1 + tile - 1) / tile * tile); // inputs are n - 1 tokens
    if (cap > 0) ctx = std::min(ctx, cap);
    return ctx;
}
