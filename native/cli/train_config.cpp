#include "train_config.h"
#include "hone_tools.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace {

enum Kind { INT, NUM, STR, PATH, BOOL };

struct Spec {
    const char * name;
    Kind kind;
    bool fixed; // changes the result: a resumed run must keep it
};

const Spec SPECS[] = {
    { "model", PATH, true },        { "data", PATH, true },        { "eval-data", PATH, true },  { "eval-split", NUM, true },
    { "rank", INT, true },          { "alpha", NUM, true },        { "targets", STR, true },     { "seed", INT, true },
    { "lr", NUM, true },            { "schedule", STR, true },     { "warmup", INT, true },      { "lr-min", NUM, true },
    { "weight-decay", NUM, true },  { "max-grad-norm", NUM, true }, { "steps", INT, true },     { "epochs", INT, true },
    { "ctx", INT, true },           { "batch", INT, true },        { "ubatch", INT, true },      { "pack", BOOL, true },
    { "batch-tokens", INT, true },
    { "out", PATH, false },         { "backend", STR, false },     { "threads", INT, false },    { "eval-every", INT, false },
    { "checkpoint-every", INT, false }, { "keep-checkpoints", INT, false }, { "memory-limit", STR, false },
    { "gpu-precision", STR, false },
};

std::string key_of(const char * option) {
    std::string k = option;
    for (char & c : k) if (c == '-') c = '_';
    return k;
}

Config value_of(const Args & a, const Spec & s) {
    if (std::string(s.name) == "ctx" && a.str(s.name) == "auto") return 0; // proposed from the data (cmd_train)
    if (std::string(s.name) == "ubatch" && a.str(s.name) == "auto") return 0; // the trainer's choice
    switch (s.kind) {
        case INT: return a.integer(s.name, 0);
        case NUM: return a.number(s.name, 0.0);
        case PATH: return hone::utf8_string(fs::absolute(hone::utf8_path(a.str(s.name))).lexically_normal());
        case BOOL: {
            const std::string v = a.str(s.name);
            if (v != "true" && v != "false") throw UsageError(std::string("--") + s.name + " takes true or false, got '" + v + "'");
            return v == "true";
        }
        default: return a.str(s.name);
    }
}

// Fills what the user did not set from the engine's defaults (hone_capabilities_json: the
// same values the app and `hone` use); some defaults depend on other settings.
void fill_defaults(Config & c) {
    const bool epochs_given = c.contains("epochs");
    char * caps = hone_capabilities_json();
    const Config defaults = Config::parse(caps)["defaults"];
    hone_string_free(caps);
    for (const Spec & s : SPECS) {
        const std::string k = key_of(s.name);
        if (c.contains(k) || !defaults.contains(k)) continue;
        const Config & v = defaults[k];
        c[k] = s.kind == STR && v.is_number() ? Config(std::to_string(v.get<int64_t>())) : v;
    }
    if (!c.contains("eval_data")) c["eval_data"] = "";
    if (c["alpha"].get<double>() == 0.0) c["alpha"] = 2.0 * c["rank"].get<double>(); // 0: 2 * rank
    if (!epochs_given && c["steps"].get<int64_t>() > 0) c["epochs"] = 0; // steps decide
}

Config read_checkpoint_state(const std::string & dir) {
    const fs::path p = hone::utf8_path(dir) / "state.json";
    std::ifstream f(p, std::ios::binary);
    if (!f) {
        throw std::runtime_error(dir + (fs::is_directory(dir) ? ": not a Hone checkpoint (state.json is missing)" : ": checkpoint folder not found"));
    }
    std::stringstream ss;
    ss << f.rdbuf();
    Config s = Config::parse(ss.str(), nullptr, false);
    if (s.is_discarded()) throw std::runtime_error(hone::utf8_string(p) + ": not valid JSON (truncated or corrupt)");
    if (!s.is_object() || !s.contains("config") || !s["config"].is_object()) {
        throw std::runtime_error(hone::utf8_string(p) + ": not a Hone checkpoint state file (no \"config\" object)");
    }
    return s;
}

} // namespace

const std::set<std::string> & train_option_names() {
    static const std::set<std::string> names = [] {
        std::set<std::string> n = { "resume" };
        for (const Spec & s : SPECS) n.insert(s.name);
        return n;
    }();
    return names;
}

Config resolve_config(const Args & a) {
    Config c;
    for (const Spec & s : SPECS) if (a.has(s.name)) c[key_of(s.name)] = value_of(a, s);
    fill_defaults(c);
    return c;
}

Config resolve_resumed_config(const Args & a, const std::string & dir) {
    const Config state = read_checkpoint_state(dir);
    Config saved = state["config"];
    if (!saved.contains("pack")) saved["pack"] = false; // trained before packing existed: one sequence per row
    Config c = saved;
    std::string problems;
    for (const Spec & s : SPECS) {
        if (!a.has(s.name)) continue;
        const std::string k = key_of(s.name);
        const Config given = value_of(a, s);
        const bool same = saved.contains(k) && (given.is_number() && saved[k].is_number()
            ? (float) given.get<double>() == (float) saved[k].get<double>() : given == saved[k]);
        if (s.fixed && !same) {
            problems += "\n  --" + std::string(s.name) + " " + (given.is_string() ? given.get<std::string>() : given.dump()) +
                        " (the checkpoint has " + (saved.contains(k) ? (saved[k].is_string() ? saved[k].get<std::string>() : saved[k].dump()) : "none") + ")";
        }
        c[k] = given;
    }
    if (!problems.empty()) {
        throw std::runtime_error(dir + ": a resumed run keeps the settings of its checkpoint; these differ:" + problems +
                                 "\n  (leave them out to use the checkpoint's)");
    }
    fill_defaults(c);
    // an automatic micro-batch resumes at the size the checkpoint was trained with, so the run goes on exactly
    const Config & tp = state.contains("train_params") ? state["train_params"] : Config::object();
    if (c["ubatch"].get<int64_t>() == 0 && tp.contains("n_ubatch") && tp["n_ubatch"].is_number_integer()) c["ubatch"] = tp["n_ubatch"];
    return c;
}

hone_adapter_params adapter_params(const Config & c, uint32_t targets) {
    hone_adapter_params ap = hone_adapter_default_params();
    ap.rank = c["rank"].get<int32_t>();
    ap.alpha = c["alpha"].get<float>();
    ap.targets = targets;
    ap.seed = c["seed"].get<uint64_t>();
    return ap;
}

hone_train_params train_params(const Config & c) {
    hone_train_params tp = hone_train_default_params();
    tp.n_ctx = c["ctx"].get<int32_t>();
    tp.n_batch = c["batch"].get<int32_t>();
    tp.n_batch_tokens = c["batch_tokens"].get<int32_t>();
    tp.n_ubatch = c["ubatch"].get<int32_t>();
    tp.n_steps = c["steps"].get<int32_t>();
    tp.n_epochs = c["epochs"].get<int32_t>();
    tp.lr = c["lr"].get<float>();
    tp.warmup_steps = c["warmup"].get<int32_t>();
    tp.lr_min = c["lr_min"].get<float>();
    tp.weight_decay = c["weight_decay"].get<float>();
    tp.max_grad_norm = c["max_grad_norm"].get<float>();
    tp.seed = c["seed"].get<uint64_t>();
    tp.pack = c["pack"].get<bool>();
    tp.eval_every = c["eval_every"].get<int32_t>();
    tp.checkpoint_every = c["checkpoint_every"].get<int32_t>();
    tp.keep_checkpoints = c["keep_checkpoints"].get<int32_t>();
    return tp;
}
