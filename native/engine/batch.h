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

// The factor that turns a micro-batch's loss, the cross-entropy summed over its loss tokens
// and divided by all its T * B positions, into its share of the mean over the `n_loss_tokens`
// loss tokens of the whole step (or evaluation): T * B / n_loss_tokens; 0 when none carries loss.
float loss_scale(int T, int B, int64_t n_loss_tokens);

// Packing: the rows of a step, each a list of indices into `lengths` (the sequences' real
// input positions, each <= T) whose lengths sum to at most T. First-fit decreasing (longest
// first, ties in the given order; each into the first row with room): deterministic, and within
// 11/9 of the fewest rows. Rows come in the order they were opened, each row's sequences in
// the order they were placed.
std::vector<std::vector<int32_t>> pack_rows(const std::vector<int32_t> & lengths, int T);

// A 64-bit FNV-1a hash of the prepared sequences (inputs, targets, masks, in order): a
// resumed run checks that it is given the data its checkpoint was trained on.
uint64_t fingerprint(const std::vector<PreparedSeq> & seqs);

// The data order: an endless stream of sequence indices, each epoch a fresh seeded shuffle.
// Our own Fisher-Yates over SplitMix64 (not std::shuffle, whose algorithm differs between
// standard libraries), so a checkpoint's (seed, cursor) means the same order everywhere.
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

// The sequences each step takes, in data order: n_batch a step, or with a token budget
// (batch_tokens > 0) as many as fit in that many real tokens (`lengths`: each sequence's, at least
// one sequence a step), never drawing past `limit` sequences (0: no limit; an epoch-counted run
// draws epochs * n). A function of the seed and the lengths: a resumed run takes the same steps.
class StepPlan {
  public:
    StepPlan(std::vector<int32_t> lengths, int32_t n_batch, int64_t batch_tokens, uint64_t seed, int64_t limit);
    int64_t start(int64_t s);            // the data-order cursor where step s starts
    std::vector<int32_t> take(int64_t s); // its sequences (indices into lengths)
    int64_t steps_to_limit();            // the steps that draw `limit` sequences
  private:
    void extend(int64_t s); // plans steps up to s
    std::vector<int32_t> lengths_;
    int32_t n_batch_;
    int64_t budget_, limit_;
    DataOrder order_;
    std::vector<int64_t> starts_; // budget steps: where each planned step starts, and the end
};

// The micro-batch sizes the automatic choice tries, largest first. Unpacked steps of n_batch
// sequences (`divisors`): the divisors of n_batch, so every micro-batch is full. Otherwise, for
// steps of at most `rows` rows: ceil(rows / k) for k = 1, 2, ..., the sizes that split such a
// step into k micro-batches with the fewest empty rows.
std::vector<int32_t> micro_batch_candidates(int32_t rows, int32_t n_batch, bool divisors);

// SplitMix64: a small, fully specified generator.
uint64_t splitmix64(uint64_t & state);

} // namespace hone
