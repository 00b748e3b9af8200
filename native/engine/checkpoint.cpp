#include "checkpoint.h"
#include "hone_tools.h"

#include "error.h"
#include "lora.h"
#include "model.h"
#include "optimizer.h"
#include "schedule.h"

#include "gguf.h"
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#ifndef _WIN32
#include <fcntl.h>
#include <unistd.h>
#endif

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

namespace hone {

static const int FORMAT_VERSION = 1;

// Flushes a file or folder to disk so a rename that follows cannot outlive its contents
// across a power cut. (A killed process needs only the rename; Windows: best effort.)
static void sync_path(const fs::path & p) {
#ifndef _WIN32
    const int fd = open(p.c_str(), O_RDONLY);
    if (fd >= 0) { fsync(fd); close(fd); }
#else
    (void) p;
#endif
}

static std::string checkpoint_name(const RunPosition & pos) {
    return pos.micro ? strfmt("%lld-%d", (long long) pos.step, pos.micro) : std::to_string(pos.step);
}

// "12" -> (12, 0), "12-3" -> (12, 3); false for anything else.
static bool parse_name(const std::string & s, int64_t & step, int & micro) {
    if (s.empty() || s.find_first_not_of("0123456789-") != std::string::npos || s[0] == '-') return false;
    const size_t dash = s.find('-');
    step = std::stoll(s.substr(0, dash));
    micro = 0;
    if (dash == std::string::npos) return true;
    const std::string m = s.substr(dash + 1);
    if (m.empty() || m.find('-') != std::string::npos) return false;
    micro = std::stoi(m);
    return true;
}

// What identifies the base model a checkpoint was trained on (gguf_fingerprint).
static json model_identity(const hone_model & m) {
    const FileFingerprint fp = gguf_fingerprint(m.path, m.gguf);
    return json{ { "path", m.path }, { "size", fp.size }, { "fingerprint", hex64(fp.hash) } };
}

static json params_json(const hone_train_params & p) {
    return json{ { "n_ctx", p.n_ctx }, { "n_batch", p.n_batch }, { "n_ubatch", p.n_ubatch }, { "n_steps", p.n_steps },
                 { "n_epochs", p.n_epochs }, { "lr", p.lr }, { "lr_schedule", hone_lr_schedule_name(p.lr_schedule) },
                 { "warmup_steps", p.warmup_steps }, { "lr_min", p.lr_min }, { "weight_decay", p.weight_decay },
                 { "beta1", p.beta1 }, { "beta2", p.beta2 }, { "eps", p.eps }, { "max_grad_norm", p.max_grad_norm },
                 { "seed", p.seed }, { "pack", p.pack }, { "n_batch_tokens", p.n_batch_tokens } };
}

// Sequences drawn: unpacked, a micro-batch is n_ubatch of them; packed or with a token budget, a
// step's count is known only from the plan, so the cursor stands at the step's start.
static int64_t data_cursor(const hone_train_params & p, const RunPosition & pos) {
    if (p.n_batch_tokens > 0) return pos.cursor;
    return (pos.step - pos.segment_start) * p.n_batch + (p.pack ? 0 : (int64_t) pos.micro * p.n_ubatch);
}

json encode_state(const hone_train_params & p, const RunPosition & pos, int64_t updates, const DataIdentity & d, const json & model, const json & adapter,
                  const json & config) {
    return json{
        { "format", "hone-checkpoint" }, { "version", FORMAT_VERSION },
        { "step", pos.step }, { "micro_batch", pos.micro }, { "n_steps", d.n_steps },
        { "segment", { { "index", pos.segment }, { "start_step", pos.segment_start } } },
        { "model", model },
        { "optimizer", { { "type", "adamw" }, { "updates", updates }, { "file", "optimizer.gguf" } } },
        { "schedule", { { "type", hone_lr_schedule_name(p.lr_schedule) }, { "lr", p.lr }, { "warmup_steps", p.warmup_steps },
                        { "lr_min", p.lr_min }, { "next_lr", pos.step < d.n_steps ? segment_lr(p, pos.step, pos.segment_start, d.n_steps) : 0.0f } } },
        { "data", { { "seed", p.seed }, { "cursor", data_cursor(p, pos) },
                    { "n_train", d.n_train }, { "train_fingerprint", hex64(d.train_fp) },
                    { "n_eval", d.n_eval }, { "eval_fingerprint", hex64(d.eval_fp) } } },
        // Training draws no random numbers besides the data order, a pure function of
        // (seed, epoch): the cursor above is the whole RNG state.
        { "rng", { { "data_order", "splitmix64 Fisher-Yates shuffle per epoch" }, { "seed", p.seed },
                   { "epoch", d.n_train > 0 ? data_cursor(p, pos) / d.n_train : 0 } } },
        { "partial_step", { { "micro_batches", pos.micro }, { "loss_sum", pos.loss_sum } } },
        { "tokens", pos.tokens }, { "positions", pos.positions }, { "elapsed_s", pos.elapsed_s },
        { "train_params", params_json(p) },
        { "adapter", adapter },
        { "config", config },
    };
}

static json state_json(const CheckpointState & st) {
    char targets[256];
    hone_format_targets(st.adapter.params.targets, targets, sizeof(targets));
    json config = json::parse(st.run_config, nullptr, false);
    if (config.is_discarded()) config = st.run_config; // not JSON: kept as a string
    const json adapter = { { "rank", st.adapter.params.rank }, { "alpha", st.adapter.params.alpha }, { "targets", targets }, { "file", "adapter.gguf" } };
    return encode_state(st.params, st.pos, st.opt.updates, st.data, model_identity(st.model), adapter, config);
}

static void write_optimizer(const CheckpointState & st, const fs::path & path) {
    const bool with_grads = st.pos.micro > 0;
    size_t bytes = 0, n = 0;
    for (const AdamW::Slot & s : st.opt.slots()) { bytes += ggml_nbytes(s.param) * (with_grads ? 3 : 2); n += with_grads ? 3 : 2; }
    ggml_context * host = ggml_init({ bytes + ggml_tensor_overhead() * (n + 1), nullptr, false });
    gguf_context * g = gguf_init_empty();
    gguf_set_val_str(g, "general.type", "hone-optimizer-state");
    gguf_set_val_u64(g, "hone.optimizer.updates", (uint64_t) st.opt.updates);
    gguf_set_val_u64(g, "hone.step", (uint64_t) st.pos.step);
    gguf_set_val_u32(g, "hone.micro_batch", (uint32_t) st.pos.micro);
    for (const AdamW::Slot & s : st.opt.slots()) {
        std::vector<ggml_tensor *> ts = { s.m, s.v };
        if (with_grads) ts.push_back(s.grad);
        for (ggml_tensor * t : ts) {
            ggml_tensor * c = ggml_new_tensor(host, GGML_TYPE_F32, GGML_MAX_DIMS, t->ne);
            ggml_set_name(c, t->name);
            ggml_backend_tensor_get(t, c->data, 0, ggml_nbytes(t));
            gguf_add_tensor(g, c);
        }
    }
    const bool ok = gguf_write_to_file(g, utf8_string(path).c_str(), false);
    gguf_free(g);
    ggml_free(host);
    if (!ok) fail(HONE_E_IO, "%s: cannot write the optimizer state (disk full or no permission?)", utf8_string(path).c_str());
}

static void write_text(const fs::path & path, const std::string & text) {
    std::ofstream f(path, std::ios::binary);
    f << text;
    f.flush();
    if (!f) fail(HONE_E_IO, "%s: cannot write (disk full or no permission?)", utf8_string(path).c_str());
}

std::string save_checkpoint(const CheckpointState & st, const std::string & root_s) {
    const fs::path root = utf8_path(root_s), final_dir = root / checkpoint_name(st.pos);
    fs::path tmp = final_dir;
    tmp += ".tmp";
    std::error_code ec;
    fs::create_directories(root, ec);
    if (ec) fail(HONE_E_IO, "%s: cannot create the checkpoint folder: %s", root_s.c_str(), ec.message().c_str());
    fs::remove_all(tmp, ec);
    if (!fs::create_directory(tmp, ec)) fail(HONE_E_IO, "%s: cannot create: %s", utf8_string(tmp).c_str(), ec ? ec.message().c_str() : "it exists");

    try {
        hone_error err{};
        const std::string adapter = utf8_string(tmp / "adapter.gguf");
        if (hone_adapter_save(&st.adapter, adapter.c_str(), &err) != HONE_OK) fail((hone_status) err.code, "%s", err.message);
        write_optimizer(st, tmp / "optimizer.gguf");
        write_text(tmp / "state.json", state_json(st).dump(2) + "\n");
        for (const char * f : { "adapter.gguf", "optimizer.gguf", "state.json" }) sync_path(tmp / f);
        sync_path(tmp);
    } catch (...) {
        fs::remove_all(tmp, ec); // a full disk leaves no partial checkpoint behind
        throw;
    }

    // Replacing an existing checkpoint of the same position (a resumed run passing it again):
    // move the old one aside first, since a folder cannot be renamed over a non-empty one. A
    // process killed between the two renames leaves the old one whole as <name>.replaced, which
    // prune_checkpoints puts back.
    fs::path old = final_dir;
    old += ".replaced";
    const bool replace = fs::exists(final_dir);
    if (replace) { fs::remove_all(old, ec); fs::rename(final_dir, old, ec); }
    fs::rename(tmp, final_dir, ec);
    if (ec) fail(HONE_E_IO, "%s: cannot move the checkpoint into place: %s", utf8_string(final_dir).c_str(), ec.message().c_str());
    sync_path(root);
    if (replace) fs::remove_all(old, ec);
    return utf8_string(final_dir);
}

void prune_checkpoints(const std::string & root_s, int keep) {
    std::error_code ec;
    std::vector<std::tuple<int64_t, int, fs::path>> found;
    std::vector<fs::path> stale;
    for (const auto & e : fs::directory_iterator(utf8_path(root_s), ec)) {
        if (!e.is_directory(ec)) continue;
        const std::string name = utf8_string(e.path().filename());
        int64_t step;
        int micro;
        const auto ends = [&](const std::string & suffix) { return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0; };
        if (parse_name(name, step, micro)) found.emplace_back(step, micro, e.path());
        else if (ends(".tmp") || ends(".old")) stale.push_back(e.path());
        else if (ends(".replaced")) {
            // a replacement cut short: the old checkpoint comes back unless the new one made it
            const fs::path back = e.path().parent_path() / utf8_path(name.substr(0, name.size() - 9));
            if (parse_name(utf8_string(back.filename()), step, micro) && !fs::exists(back, ec)) {
                fs::rename(e.path(), back, ec);
                if (!ec) found.emplace_back(step, micro, back);
            } else stale.push_back(e.path());
        }
    }
    for (const fs::path & s : stale) fs::remove_all(s, ec);
    if (keep <= 0 || (int) found.size() <= keep) return;
    std::sort(found.begin(), found.end());
    for (size_t i = 0; i + keep < found.size(); i++) {
        // Renamed first, so a half-deleted folder never looks like a checkpoint.
        fs::path gone = std::get<2>(found[i]);
        gone += ".old";
        fs::rename(std::get<2>(found[i]), gone, ec);
        if (!ec) fs::remove_all(gone, ec);
    }
}

void check_same_data(const DataIdentity & saved, const DataIdentity & now) {
    std::string problems;
    if (saved.n_train != now.n_train || saved.train_fp != now.train_fp) {
        problems += strfmt("\n  training data: %d sequences (fingerprint %s) now, %d (%s) in the checkpoint", now.n_train,
                           hex64(now.train_fp).c_str(), saved.n_train, hex64(saved.train_fp).c_str());
    }
    if (saved.n_eval != now.n_eval || saved.eval_fp != now.eval_fp) {
        problems += strfmt("\n  held-out data: %d sequences (fingerprint %s) now, %d (%s) in the checkpoint", now.n_eval,
                           hex64(now.eval_fp).c_str(), saved.n_eval, hex64(saved.eval_fp).c_str());
    }
    if (saved.n_steps != now.n_steps) {
        problems += strfmt("\n  planned steps: %lld now, %lld in the checkpoint", (long long) now.n_steps, (long long) saved.n_steps);
    }
    if (!problems.empty()) fail(HONE_E_INVALID_ARG, "the run cannot continue from its checkpoint on different data:%s", problems.c_str());
}

// ---- loading ----------------------------------------------------------------------------

json read_state(const std::string & dir_s) {
    const fs::path dir = utf8_path(dir_s);
    const fs::path p = dir / "state.json";
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) fail(HONE_E_IO, "%s: checkpoint folder not found", utf8_string(dir).c_str());
    std::ifstream f(p, std::ios::binary);
    if (!f) fail(HONE_E_FORMAT, "%s: not a Hone checkpoint (state.json is missing)", utf8_string(dir).c_str());
    std::stringstream ss;
    ss << f.rdbuf();
    json s = json::parse(ss.str(), nullptr, false);
    if (s.is_discarded() || !s.is_object()) fail(HONE_E_FORMAT, "%s: not valid JSON", utf8_string(p).c_str());
    if (s.value("format", "") != "hone-checkpoint") fail(HONE_E_FORMAT, "%s: not a Hone checkpoint state file", utf8_string(p).c_str());
    if (s.value("version", 0) != FORMAT_VERSION) {
        fail(HONE_E_FORMAT, "%s: checkpoint format version %d is not supported (this build reads %d)", utf8_string(p).c_str(), s.value("version", 0), FORMAT_VERSION);
    }
    return s;
}

// Fails, naming both, when the base model is not the one the checkpoint was trained on (a
// checkpoint from before fingerprints were kept has no "model": nothing to compare).
static void check_same_model(const json & s, const CheckpointState & st, const std::string & dir) {
    if (!s.contains("model")) return;
    const json & saved = s.at("model");
    const json now = model_identity(st.model);
    if (saved.at("size") == now.at("size") && saved.at("fingerprint") == now.at("fingerprint")) return;
    fail(HONE_E_INVALID_ARG, "%s: the base model changed since this checkpoint: %s now (%s bytes, fingerprint %s), %s (%s bytes, %s) when it was written",
         dir.c_str(), now.at("path").get<std::string>().c_str(), now.at("size").dump().c_str(), now.at("fingerprint").get<std::string>().c_str(),
         saved.at("path").get<std::string>().c_str(), saved.at("size").dump().c_str(), saved.at("fingerprint").get<std::string>().c_str());
}

// The adapter params a checkpoint was written with, against the trainer's (tensor shapes).
static std::string compare_adapter(const json & s, const CheckpointState & st) {
    std::string problems;
    const json & ad = s.at("adapter");
    char targets[256];
    hone_format_targets(st.adapter.params.targets, targets, sizeof(targets));
    if (ad.at("rank").get<int>() != st.adapter.params.rank) problems += strfmt("\n  LoRA rank: %d now, %d in the checkpoint", st.adapter.params.rank, ad.at("rank").get<int>());
    if (ad.at("alpha").get<float>() != st.adapter.params.alpha) problems += strfmt("\n  LoRA alpha: %g now, %g in the checkpoint", st.adapter.params.alpha, ad.at("alpha").get<float>());
    if (ad.at("targets").get<std::string>() != targets) problems += strfmt("\n  LoRA targets: %s now, %s in the checkpoint", targets, ad.at("targets").get<std::string>().c_str());
    return problems;
}

// Mismatches between the checkpoint's train/adapter params and the trainer's.
static std::string compare_params(const json & s, const CheckpointState & st) {
    std::string problems;
    const json now = params_json(st.params), & saved = s.at("train_params");
    for (auto it = now.begin(); it != now.end(); ++it) {
        // checkpoints from before packing existed trained one sequence per row
        const json a = saved.contains(it.key()) ? saved.at(it.key()) : it.key() == "pack" ? json(false) : it.key() == "n_batch_tokens" ? json(0) : json();
        if (a.is_null()) { problems += strfmt("\n  %s: missing in the checkpoint", it.key().c_str()); continue; }
        const json & b = it.value();
        const bool same = a.is_number() && b.is_number() ? (float) a.get<double>() == (float) b.get<double>() : a == b;
        if (!same) problems += strfmt("\n  %s: %s now, %s in the checkpoint", it.key().c_str(), b.dump().c_str(), a.dump().c_str());
    }
    return problems + compare_adapter(s, st);
}

// Copies the named F32 tensors of a GGUF file into `dst` (name -> tensor), checking shapes.
static void load_tensors(const fs::path & path, const std::vector<ggml_tensor *> & dst) {
    ggml_context * data = nullptr;
    std::error_code ec;
    if (!fs::exists(path, ec)) fail(HONE_E_FORMAT, "%s: missing: the checkpoint is incomplete", utf8_string(path).c_str());
    gguf_context * g = gguf_init_from_file(utf8_string(path).c_str(), { false, &data });
    if (!g) fail(HONE_E_FORMAT, "%s: not a readable GGUF file (truncated or corrupt)", utf8_string(path).c_str());
    struct Closer { gguf_context * g; ggml_context * c; ~Closer() { gguf_free(g); ggml_free(c); } } closer{ g, data };
    std::string problems;
    for (ggml_tensor * t : dst) {
        ggml_tensor * src = ggml_get_tensor(data, t->name);
        if (!src) { problems += strfmt("\n  '%s' is missing", t->name); continue; }
        if (src->type != GGML_TYPE_F32 || ggml_nelements(src) != ggml_nelements(t) || src->ne[0] != t->ne[0]) {
            problems += strfmt("\n  '%s' has type %s and %lld elements (F32 and %lld expected)", t->name, ggml_type_name(src->type),
                               (long long) ggml_nelements(src), (long long) ggml_nelements(t));
            continue;
        }
        ggml_backend_tensor_set(t, src->data, 0, ggml_nbytes(t));
    }
    if (!problems.empty()) fail(HONE_E_FORMAT, "%s does not match this trainer:%s", utf8_string(path).c_str(), problems.c_str());
}

static uint64_t parse_hex64(const std::string & s) { return std::stoull(s, nullptr, 16); }

RunPosition decode_position(const json & s) {
    RunPosition pos;
    pos.step = s.at("step").get<int64_t>();
    pos.micro = s.at("micro_batch").get<int32_t>();
    pos.loss_sum = s.at("partial_step").at("loss_sum").get<double>();
    pos.tokens = s.at("tokens").get<int64_t>();
    // checkpoints before real-token counts held positions in "tokens" and no "positions"
    pos.positions = s.contains("positions") ? s.at("positions").get<int64_t>() : pos.tokens;
    pos.elapsed_s = s.at("elapsed_s").get<double>();
    if (s.contains("segment")) {
        pos.segment = s.at("segment").at("index").get<int32_t>();
        pos.segment_start = s.at("segment").at("start_step").get<int64_t>();
    }
    return pos;
}

int64_t decode_updates(const json & s) { return s.at("optimizer").at("updates").get<int64_t>(); }

DataIdentity decode_data(const json & s) {
    const json & d = s.at("data");
    DataIdentity id;
    id.known = true;
    id.n_steps = s.at("n_steps").get<int64_t>();
    id.n_train = d.at("n_train").get<int32_t>();
    id.n_eval = d.at("n_eval").get<int32_t>();
    id.train_fp = parse_hex64(d.at("train_fingerprint").get<std::string>());
    id.eval_fp = parse_hex64(d.at("eval_fingerprint").get<std::string>());
    return id;
}

// The adapter and AdamW's moments (and, mid-step, the partial gradient) into the trainer.
static void load_state_tensors(const CheckpointState & st, const fs::path & dir, bool with_grads) {
    std::vector<ggml_tensor *> adapter, opt;
    for (auto & p : st.adapter.pairs) { adapter.push_back(p.a); adapter.push_back(p.b); }
    for (const AdamW::Slot & s : st.opt.slots()) {
        opt.push_back(s.m);
        opt.push_back(s.v);
        if (with_grads) opt.push_back(s.grad);
    }
    load_tensors(dir / "adapter.gguf", adapter);
    load_tensors(dir / "optimizer.gguf", opt);
}

void load_checkpoint(const CheckpointState & st, const std::string & dir_s) {
    const fs::path dir = utf8_path(dir_s);
    const json s = read_state(dir_s);
    try {
        check_same_model(s, st, dir_s);
        const std::string problems = compare_params(s, st);
        if (!problems.empty()) {
            fail(HONE_E_INVALID_ARG, "%s: this checkpoint was written with other settings (a resumed run keeps them):%s", dir_s.c_str(), problems.c_str());
        }
        const RunPosition pos = decode_position(s);
        // the most micro-batches a step can have: packed rows are at most its sequences; a token
        // budget's step has as many rows as sequences fit
        const hone_train_params & tp = st.params;
        const int n_micro = tp.n_batch_tokens > 0 ? INT32_MAX : (tp.n_batch + tp.n_ubatch - 1) / tp.n_ubatch;
        if (pos.step < 0 || pos.micro < 0 || pos.micro >= n_micro) fail(HONE_E_FORMAT, "%s: position step %lld, micro-batch %d is invalid", dir_s.c_str(), (long long) pos.step, pos.micro);
        const DataIdentity id = decode_data(s);
        const int64_t updates = decode_updates(s);
        load_state_tensors(st, dir, pos.micro > 0);
        st.pos = pos;
        st.opt.updates = updates;
        st.data = id;
    } catch (const json::exception & e) {
        fail(HONE_E_FORMAT, "%s: state.json is missing a field or has a wrong type (%s)", utf8_string(dir / "state.json").c_str(), e.what());
    }
}

void continue_from_checkpoint(const CheckpointState & st, const std::string & dir_s) {
    const fs::path dir = utf8_path(dir_s);
    const json s = read_state(dir_s);
    try {
        check_same_model(s, st, dir_s);
        const std::string problems = compare_adapter(s, st);
        if (!problems.empty()) fail(HONE_E_INVALID_ARG, "%s: a continued run keeps its adapter's shape:%s", dir_s.c_str(), problems.c_str());
        const RunPosition saved = decode_position(s);
        if (saved.micro != 0) {
            fail(HONE_E_INVALID_ARG, "%s: paused in the middle of a step: resume it to finish the step before continuing", dir_s.c_str());
        }
        const int64_t updates = decode_updates(s);
        load_state_tensors(st, dir, false);
        RunPosition pos;
        pos.step = pos.segment_start = saved.step;
        pos.segment = saved.segment + 1;
        pos.tokens = saved.tokens;
        pos.positions = saved.positions;
        pos.elapsed_s = saved.elapsed_s;
        st.pos = pos;
        st.opt.updates = updates; // AdamW's bias correction goes on
        st.data = DataIdentity{}; // a new segment may train on other data
    } catch (const json::exception & e) {
        fail(HONE_E_FORMAT, "%s: state.json is missing a field or has a wrong type (%s)", utf8_string(dir / "state.json").c_str(), e.what());
    }
}

} // namespace hone
