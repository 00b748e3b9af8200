// Turning sequences into micro-batch inputs: inputs are tokens[0..T), targets tokens[1..T+1),
// right-padded (causal attention keeps real tokens from seeing the padding, and padding
// carries no loss). Longer sequences are truncated on the right.
#pragma once

#include "hone.h"

#include <cstdint>
#include <vector>

namespace hone {

struct PreparedSeq {
    std::vector<int32_t> input;  // T tokens
    std::vector<int32_t> target; // T tokens (valid where mask)
    std::vector<uint8_t> mask;   // T flags: position carries loss
    int64_t n_loss = 0;
    int32_t n_real = 0;          // positions holding real input tokens
};

PreparedSeq prepare_sequence(const hone_sequence & s, int T, int32_t pad_token);

// The data order: an endless stream of sequence indices, each epoch a fresh seeded shuffle.
class DataOrder {
  public:
    DataOrder(int32_t n, uint64_t seed) : n_(n), seed_(seed) {}
    int32_t at(int64_t i);
  private:
    void fill_epoch(int64_t e);
    int32_t n_;
    uint64_t seed_;
    int64_t epoch_ = -1;
    std::vector<int32_t> perm_;
};

} // namespace hone
