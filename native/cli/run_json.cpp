#include "run_json.h"

#include <cctype>

namespace {

std::string camel(const std::string & k) {
    std::string out;
    for (size_t i = 0; i < k.size(); i++) {
        if (k[i] == '_' && i + 1 < k.size()) out += (char) toupper((unsigned char) k[++i]);
        else out += k[i];
    }
    return out;
}

Config paths(const std::string & p) { return p.empty() ? Config::array() : Config::array({ p }); }

Config or_null(const std::string & s) { return s.empty() ? Config(nullptr) : Config(s); }

} // namespace

Config contract_config(const Config & cfg, const hone_train_params & tp) {
    Config config = Config::object();
    for (const auto & [k, v] : cfg.items()) config[camel(k)] = v;
    // the contract's types: lists of paths, a byte count
    config["data"] = paths(cfg["data"]);
    config["evalData"] = paths(cfg["eval_data"]);
    config["memoryLimit"] = tp.memory_limit;
    config["beta1"] = tp.beta1;
    config["beta2"] = tp.beta2;
    config["eps"] = tp.eps;
    config["flashAttn"] = false;
    return config;
}

std::string run_json(const Config & cfg, const hone_train_params & tp, const hone_model_info & info, int64_t adapter_params,
                     const Config & memory, const RunOutcome & r) {
    Config config = contract_config(cfg, tp);
    if (r.last.n_steps) config["steps"] = r.last.n_steps; // the steps actually planned
    Config doc = Config::object();
    doc["schema"] = "hone.run/1";
    doc["writer"] = "hone-train";
    doc["status"] = r.stopped ? "stopped" : "completed";
    doc["config"] = config;
    doc["resumedFrom"] = or_null(r.resumed_from);
    doc["model"] = { { "path", cfg["model"] }, { "arch", info.arch }, { "name", info.name }, { "backend", info.backend },
                     { "gpuPrecision", info.gpu_precision }, { "nLayer", info.n_layer }, { "nEmbd", info.n_embd }, { "nFf", info.n_ff }, { "nHead", info.n_head },
                     { "nHeadKv", info.n_head_kv }, { "headDim", info.head_dim }, { "tiedOutput", info.tied_output }, { "nVocab", info.n_vocab },
                     { "nCtxTrain", info.n_ctx_train }, { "nParams", info.n_params }, { "weightBytes", info.weight_bytes } };
    doc["adapter"] = { { "path", r.adapter_path }, { "nParams", adapter_params } };
    doc["data"] = { { "format", r.data_format }, { "sequences", r.sequences }, { "evalSequences", r.eval_sequences } };
    doc["metrics"] = { { "finalLoss", r.last.loss }, { "evalLoss", r.has_eval ? Config(r.eval_loss) : Config(nullptr) }, { "steps", r.steps },
                       { "tokens", r.last.tokens }, { "positions", r.last.positions }, { "elapsedS", r.last.elapsed_s },
                       { "tokensPerS", r.last.elapsed_s > 0 ? r.last.tokens / r.last.elapsed_s : 0.0 },
                       { "rowFill", r.last.positions > 0 ? (double) r.last.tokens / (double) r.last.positions : 0.0 }, { "peakRssMib", r.peak_rss_mib } };
    doc["lastCheckpoint"] = or_null(r.last_checkpoint);
    doc["memory"] = memory;
    return doc.dump(2);
}
