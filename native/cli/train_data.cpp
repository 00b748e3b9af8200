#include "train_data.h"

#include "text_data.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>

namespace {

using json = nlohmann::json;

// Tokenizes each document (BOS first, EOS last) and cuts it into the engine's text windows
// (hone_text_windows: ctx + 1 tokens overlapping by one).
void chunk_documents(hone_model * model, const std::vector<std::string> & docs, int ctx, TrainData & out) {
    const int32_t eos = hone_model_token_eos(model);
    for (const std::string & d : docs) {
        std::vector<int32_t> toks(d.size() + 8);
        int32_t n = hone_model_tokenize(model, d.data(), d.size(), true, toks.data(), (int32_t) toks.size());
        if (n < 0) { toks.resize(-n); n = hone_model_tokenize(model, d.data(), d.size(), true, toks.data(), (int32_t) toks.size()); }
        toks.resize(n);
        if (eos >= 0) toks.push_back(eos);
        std::vector<int32_t> starts(hone_text_windows((int32_t) toks.size(), ctx, nullptr, 0));
        hone_text_windows((int32_t) toks.size(), ctx, starts.data(), (int32_t) starts.size());
        for (const int32_t s : starts) {
            const size_t e = std::min(toks.size(), (size_t) s + ctx + 1);
            out.tokens.emplace_back(toks.begin() + s, toks.begin() + e);
            out.masks.emplace_back();
        }
    }
}

void read_tokens_jsonl(const std::string & path, int ctx, int32_t n_vocab, TrainData & out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open for reading");
    std::string line;
    int n = 0;
    auto bad = [&](const std::string & what) { throw std::runtime_error(path + ":" + std::to_string(n) + ": " + what); };
    while (std::getline(f, line)) {
        n++;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        json j = json::parse(line, nullptr, false);
        if (j.is_discarded() || !j.is_object()) bad("invalid JSON");
        if (!j.contains("tokens") || !j["tokens"].is_array()) bad("missing array field 'tokens'");
        std::vector<int32_t> toks;
        for (const json & t : j["tokens"]) {
            if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= n_vocab) {
                bad("token " + t.dump() + " is not an id of this model's vocabulary (0.." + std::to_string(n_vocab - 1) + ")");
            }
            toks.push_back(t.get<int32_t>());
        }
        if (toks.size() < 2) bad("a sequence needs at least 2 tokens (got " + std::to_string(toks.size()) + ")");
        std::vector<uint8_t> mask;
        if (j.contains("loss_mask")) {
            const json & m = j["loss_mask"];
            if (!m.is_array() || m.size() != toks.size()) bad("'loss_mask' must be an array as long as 'tokens' (" + std::to_string(toks.size()) + ")");
            for (const json & x : m) {
                if (!(x == 0 || x == 1 || x.is_boolean())) bad("'loss_mask' entries must be 0 or 1 (got " + x.dump() + ")");
                mask.push_back(x.is_boolean() ? (uint8_t) x.get<bool>() : (uint8_t) x.get<int>());
            }
        }
        if ((int64_t) toks.size() > ctx + 1) out.truncated++;
        out.tokens.push_back(std::move(toks));
        out.masks.push_back(std::move(mask));
    }
}

} // namespace

std::vector<hone_sequence> TrainData::view() const {
    std::vector<hone_sequence> v;
    for (size_t i = 0; i < tokens.size(); i++) {
        v.push_back({ tokens[i].data(), masks[i].empty() ? nullptr : masks[i].data(), (int32_t) tokens[i].size() });
    }
    return v;
}

TrainData load_train_data(hone_model * model, const std::string & path, int ctx) {
    TrainData d;
    hone_model_info info;
    hone_model_get_info(model, &info);
    const DataKind kind = sniff_train_data(path);
    d.format = data_kind_name(kind);
    if (kind == DataKind::JSONL_TOKENS) {
        read_tokens_jsonl(path, ctx, info.n_vocab, d);
    } else {
        chunk_documents(model, read_text_docs(path, kind).docs, ctx, d);
    }
    if (d.tokens.empty()) throw std::runtime_error(path + ": the dataset is empty after tokenization");
    return d;
}

TrainData split_off_eval(TrainData & data, double fraction, uint64_t seed) {
    const size_t n = data.tokens.size();
    if (n < 2) throw std::runtime_error("--eval-split needs at least 2 sequences to hold one out (the data has " + std::to_string(n) + ")");
    const size_t k = std::min(n - 1, std::max<size_t>(1, (size_t) std::llround(fraction * (double) n)));
    // Fisher-Yates over SplitMix64 (the same on every standard library), seeded apart from the data order.
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), 0);
    uint64_t state = seed ^ 0x5EED0FE7A15EEDULL;
    for (size_t i = n - 1; i > 0; i--) {
        uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        z ^= z >> 31;
        std::swap(idx[i], idx[z % (i + 1)]);
    }
    std::vector<bool> held(n, false);
    for (size_t i = 0; i < k; i++) held[idx[i]] = true;
    TrainData eval, rest;
    eval.format = rest.format = data.format;
    for (size_t i = 0; i < n; i++) {
        TrainData & to = held[i] ? eval : rest;
        to.tokens.push_back(std::move(data.tokens[i]));
        to.masks.push_back(std::move(data.masks[i]));
    }
    rest.truncated = data.truncated;
    data = std::move(rest);
    return eval;
}
