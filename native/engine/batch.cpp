#include "batch.h"

#include <algorithm>
#include <numeric>
#include <random>

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

void DataOrder::fill_epoch(int64_t e) {
    perm_.resize(n_);
    std::iota(perm_.begin(), perm_.end(), 0);
    std::mt19937_64 rng(seed_ * 1000003ULL + (uint64_t) e);
    std::shuffle(perm_.begin(), perm_.end(), rng);
    epoch_ = e;
}

int32_t DataOrder::at(int64_t i) {
    const int64_t e = i / n_;
    if (e != epoch_) fill_epoch(e);
    return perm_[i % n_];
}

} // namespace hone
