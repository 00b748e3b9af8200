// The sequences hone-train trains and evaluates on, from a data file:
//   - plain text (one document) or JSONL {"text": ...} (one document a line): tokenized with
//     BOS and EOS and cut into sequences of ctx + 1 tokens overlapping by one, so every
//     token after the first is predicted once and nothing is truncated;
//   - JSONL {"tokens": [ids], "loss_mask": [0|1, ...]} (already tokenized; loss_mask is
//     optional, its entry i says whether token i is a target): one sequence a line, used as
//     is; longer than ctx + 1 tokens is truncated by the engine (counted in `truncated`).
#pragma once

#include "hone.h"

#include <cstdint>
#include <string>
#include <vector>

struct TrainData {
    std::vector<std::vector<int32_t>> tokens;
    std::vector<std::vector<uint8_t>> masks; // per sequence; empty: every token after the first is a target
    std::string format;                      // "plain-text", "jsonl-text" or "jsonl-tokens"
    int64_t truncated = 0;                   // sequences longer than ctx + 1 tokens
    std::vector<hone_sequence> view() const; // pointers into this object
};

// Throws std::runtime_error naming the file (and line) of any problem.
TrainData load_train_data(hone_model * model, const std::string & path, int ctx);

// Moves a seeded random `fraction` of data's sequences (at least one, never all) into a
// held-out set, keeping both in their original order.
TrainData split_off_eval(TrainData & data, double fraction, uint64_t seed);
