// `hone-train --model M --data D --out DIR ...`: train a LoRA and write DIR/adapter.gguf and
// DIR/run.json (checkpoints in DIR/checkpoints/<step>/ with --checkpoint-every); or
// `hone-train --resume DIR/checkpoints/<step>` to continue a run exactly where it stopped.
// Everything is validated before DIR is touched, and outputs are written to temporary
// files and renamed, so a failed run leaves nothing half-written behind.
#include "args.h"
#include "hone_tools.h"
#include "commands.h"
#include "hone_json.h"
#include "stop_signals.h"
#include "train_config.h"
#include "run_json.h"
#include "text_data.h"
#include "train_data.h"

#include "hone.h"
#include "hone_test.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <set>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace {

const char * status_code(int s) { return hone_status_name(s); }

struct Events {
    bool json;
    hone_step_event last{};
    hone_eval_event last_eval{};
    std::string last_checkpoint;
    std::string out_dir, config_json; // config.json, written at the first step
    int failed_checkpoints = 0;
    bool told_stop = false;
};

void emit(const JsonObject & o) {
    printf("%s\n", o.dump().c_str());
    fflush(stdout);
}

bool write_atomic(const std::string & path, const std::string & content);

bool on_step(const hone_step_event * e, void * ud) {
    auto * ev = static_cast<Events *>(ud);
    ev->last = *e;
    if (!ev->config_json.empty()) {
        std::error_code ec;
        fs::create_directories(ev->out_dir, ec);
        if (ec || !write_atomic(ev->out_dir + "/config.json", ev->config_json)) {
            fprintf(stderr, "warning: %s/config.json could not be written (disk full or no permission?); training goes on\n", ev->out_dir.c_str());
        }
        ev->config_json.clear();
    }
    if (ev->json) {
        emit(JsonObject().str("type", "step").integer("step", e->step).integer("n_steps", e->n_steps).num("loss", e->loss)
            .num("lr", e->lr).num("grad_norm", e->grad_norm).num("clip_scale", e->clip_scale).integer("tokens", e->tokens)
            .integer("positions", e->positions).integer("loss_tokens", e->loss_tokens).num("tokens_per_s", e->tokens_per_s)
            .num("row_fill", e->row_fill).num("elapsed_s", e->elapsed_s));
    } else {
        fprintf(stderr, "step %5d/%d  loss %.4f  lr %.2e  grad norm %.3g%s  %.0f tok/s (rows %.0f%% full)\n", e->step, e->n_steps, e->loss,
                e->lr, e->grad_norm, e->clip_scale < 1.0f ? " (clipped)" : "", e->tokens_per_s, 100.0 * e->row_fill);
    }
    return stop_request() == HONE_TRAIN_CONTINUE;
}

void on_eval(const hone_eval_event * e, void * ud) {
    auto * ev = static_cast<Events *>(ud);
    ev->last_eval = *e;
    if (ev->json) {
        emit(JsonObject().str("type", "eval").integer("step", e->step).num("eval_loss", e->eval_loss)
            .integer("loss_tokens", e->loss_tokens).integer("sequences", e->n_sequences));
    } else {
        fprintf(stderr, "eval  step %d  loss %.4f  (%d held-out sequences)\n", e->step, e->eval_loss, e->n_sequences);
    }
}

void on_checkpoint(const hone_checkpoint_event * e, void * ud) {
    auto * ev = static_cast<Events *>(ud);
    ev->last_checkpoint = e->path;
    if (ev->json) {
        emit(JsonObject().str("type", "checkpoint").integer("step", e->step).integer("micro_batch", e->micro_batch).str("path", e->path));
    } else {
        fprintf(stderr, "checkpoint %s\n", e->path);
    }
}

// The run goes on with its state in memory; the next checkpoint tries again.
void on_checkpoint_failed(const hone_checkpoint_failure * f, void * ud) {
    auto * ev = static_cast<Events *>(ud);
    ev->failed_checkpoints++;
    if (ev->json) {
        emit(JsonObject().str("type", "checkpoint_failed").integer("step", f->step).integer("micro_batch", f->micro_batch)
            .str("code", status_code(f->code)).str("message", f->message).str("last_good", ev->last_checkpoint));
    } else {
        fprintf(stderr, "warning: checkpoint at step %d not written: %s; training goes on and the next checkpoint tries again (last good: %s)\n",
                f->step, f->message, ev->last_checkpoint.empty() ? "none" : ev->last_checkpoint.c_str());
    }
}

int32_t poll(void * ud) {
    auto * ev = static_cast<Events *>(ud);
    const int32_t r = stop_request();
    if (r != HONE_TRAIN_CONTINUE && !ev->told_stop && !ev->json) {
        fprintf(stderr, "stopping after this step and writing a checkpoint (Ctrl-C again: stop after this micro-batch)\n");
        ev->told_stop = true;
    }
    return r;
}

bool write_atomic(const std::string & path, const std::string & content) {
    const std::string tmp = path + ".tmp";
    FILE * f = fopen(tmp.c_str(), "wb");
    if (!f) return false;
    const bool ok = fwrite(content.data(), 1, content.size(), f) == content.size() && fflush(f) == 0;
    if (fclose(f) != 0 || !ok || rename(tmp.c_str(), path.c_str()) != 0) { remove(tmp.c_str()); return false; }
    return true;
}

// "0", "123456", "512K", "640M", "8G" (powers of 1024) -> bytes; -1 when malformed.
int64_t parse_bytes(const std::string & s) {
    if (s.empty()) return -1;
    size_t used = 0;
    double v = 0;
    try { v = std::stod(s, &used); } catch (...) { return -1; }
    const std::string unit = s.substr(used);
    double mul = 1;
    if (unit == "K" || unit == "k" || unit == "KiB") mul = 1024.0;
    else if (unit == "M" || unit == "MiB") mul = 1024.0 * 1024.0;
    else if (unit == "G" || unit == "GiB") mul = 1024.0 * 1024.0 * 1024.0;
    else if (!unit.empty()) return -1;
    return v < 0 ? -1 : (int64_t) (v * mul);
}

std::string mib(long long bytes) {
    char b[64];
    snprintf(b, sizeof(b), "%.1f MiB", bytes / (1024.0 * 1024.0));
    return b;
}

// One line per memory pool of the plan: what training allocates there against what is free.
void print_plan(const Config & memory) {
    for (const auto & p : memory["backends"]) {
        std::string line = "memory plan: " + p["pool"].get<std::string>() + " " + mib(p["plan_bytes"].get<long long>()) + " to allocate";
        if (p["resident_bytes"].get<long long>() > 0) line += " + " + mib(p["resident_bytes"].get<long long>()) + " already resident";
        if (p["mapped_bytes"].get<long long>() > 0) line += " + " + mib(p["mapped_bytes"].get<long long>()) + " mapped weights";
        line += p["limit_bytes"].get<long long>() > 0 ? "; " + mib(p["limit_bytes"].get<long long>()) + " available" : "; free memory unknown";
        fprintf(stderr, "%s%s\n", line.c_str(), p["fits"].get<bool>() ? "" : "  DOES NOT FIT");
    }
    if (memory.contains("ubatch") && memory["ubatch_reason"] != "asked for") {
        fprintf(stderr, "micro-batch: %lld row(s) (%s)\n", memory["ubatch"].get<long long>(), memory["ubatch_reason"].get<std::string>().c_str());
    }
    if (memory.contains("mode") && memory["mode"] != "plain") {
        fprintf(stderr, "memory mode: %s (%s)\n", memory["mode"].get<std::string>() == "recompute" ? "every layer recomputed" : "selective recomputation",
                memory["mode_reason"].get<std::string>().c_str());
    }
}

Config memory_report(hone_trainer * trainer) {
    char * s = nullptr;
    hone_error err{};
    if (hone_trainer_memory_report(trainer, &s, &err) != HONE_OK) return Config::object();
    Config c = Config::parse(s);
    hone_string_free(s);
    return c;
}

} // namespace

// --dry-run: the graphs are built and scheduled and the memory planned; DIR/ops.json is
// written and the plan printed; exit 1 (out_of_memory) when a real run would be refused.
static int dry_run_report(bool json, hone_trainer * trainer, const std::string & out_dir) {
    hone_error err{};
    char * ops = nullptr;
    if (hone_trainer_op_report(trainer, &ops, &err) != HONE_OK) return report_error(json, status_code(err.code), err.message);
    const std::string ops_s = ops;
    hone_string_free(ops);
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) return report_error(json, "io_error", out_dir + ": cannot create the output folder: " + ec.message());
    if (!write_atomic(out_dir + "/ops.json", ops_s + "\n")) return report_error(json, "io_error", out_dir + "/ops.json: cannot write");
    const Config memory = memory_report(trainer);
    const hone_status fits = hone_trainer_check_memory(trainer, &err);
    if (json) {
        emit(JsonObject().str("type", "plan").str("ops", out_dir + "/ops.json").boolean("fits", fits == HONE_OK).raw("memory", memory.dump()));
    } else {
        print_plan(memory);
        fprintf(stderr, "dry run: wrote %s/ops.json\n", out_dir.c_str());
    }
    return fits == HONE_OK ? 0 : report_error(json, status_code(err.code), err.message);
}

// --ctx auto: hone_suggest_context over the data's sequences (token JSONL; text is cut into
// windows of any context, so it gets the engine's default), capped at the model's training context.
static int32_t auto_context(hone_model * model, const std::string & data_path) {
    const int32_t fallback = hone_train_default_params().n_ctx;
    if (sniff_train_data(data_path) != DataKind::JSONL_TOKENS) return fallback; // text: never tokenized twice
    const TrainData probe = load_train_data(model, data_path, fallback);
    std::vector<int32_t> lengths;
    for (const auto & s : probe.tokens) lengths.push_back((int32_t) s.size());
    hone_model_info info;
    hone_model_get_info(model, &info);
    return hone_suggest_context(lengths.data(), (int32_t) lengths.size(), info.n_ctx_train);
}

int cmd_train(int argc, char ** argv) {
    // --test-*: for tests only (docs/ops-json.md), never saved in a run's configuration.
    std::set<std::string> options = train_option_names();
    options.insert({ "test-refuse-ops", "test-frozen-param", "test-metal-rules", "test-head-chunk-rows" });
    Args a(argc, argv, 1, options, { "json", "dry-run", "profile", "recompute" });
    const bool json = a.flag("json");
    const bool dry_run = a.flag("dry-run");
    const std::string test_refuse_ops = a.str("test-refuse-ops"), test_frozen_param = a.str("test-frozen-param");
    const std::string test_metal_rules = a.str("test-metal-rules");
    const std::string resume = a.has("resume") ? hone::utf8_string(fs::absolute(hone::utf8_path(a.str("resume"))).lexically_normal()) : "";
    Config cfg;
    try {
        if (!resume.empty()) {
            cfg = resolve_resumed_config(a, resume);
            // By default a resumed run writes where its checkpoint came from: DIR/checkpoints/<step>.
            if (!a.has("out")) cfg["out"] = hone::utf8_string(hone::utf8_path(resume).parent_path().parent_path());
        } else {
            if (!a.has("model")) throw UsageError("missing required option '--model'");
            if (!a.has("data")) throw UsageError("missing required option '--data'");
            if (!a.has("out")) throw UsageError("missing required option '--out'");
            cfg = resolve_config(a);
        }
    } catch (const UsageError &) {
        throw;
    } catch (const std::exception & e) {
        return report_error(json, "invalid_argument", e.what());
    }
    const std::string model_path = cfg["model"], data_path = cfg["data"], out_dir = cfg["out"], eval_path = cfg["eval_data"];
    hone_error err{};

    uint32_t targets = 0;
    if (hone_parse_targets(cfg["targets"].get<std::string>().c_str(), &targets, &err) != HONE_OK) {
        return report_error(json, status_code(err.code), err.message);
    }
    hone_adapter_params ap = adapter_params(cfg, targets);
    hone_train_params tp = train_params(cfg);
    tp.lr_schedule = hone_lr_schedule_from_name(cfg["schedule"].get<std::string>().c_str());
    if (tp.lr_schedule < 0) {
        return report_error(json, "invalid_argument", "unknown learning-rate schedule '" + cfg["schedule"].get<std::string>() + "' (constant, linear or cosine)");
    }
    if (ap.rank < 1) return report_error(json, "invalid_argument", "LoRA rank must be at least 1 (got " + std::to_string(ap.rank) + ")");
    tp.dry_run = dry_run;
    tp.profile = a.flag("profile");
    tp.recompute = a.flag("recompute"); // same gradients: a resumed run may choose either way
    tp.memory_limit = parse_bytes(cfg["memory_limit"].get<std::string>());
    if (tp.memory_limit < 0) {
        return report_error(json, "invalid_argument", "--memory-limit must be a size in bytes, optionally with K, M or G (got '" +
                            cfg["memory_limit"].get<std::string>() + "')");
    }
    hone_train_test_hooks test_hooks{};
    if (a.has("test-refuse-ops")) test_hooks.refuse_ops = test_refuse_ops.c_str();
    if (a.has("test-frozen-param")) test_hooks.frozen_param = test_frozen_param.c_str();
    if (a.has("test-metal-rules")) test_hooks.metal_rules = test_metal_rules.c_str();
    if (a.has("test-head-chunk-rows")) test_hooks.head_chunk_rows = (int) a.integer("test-head-chunk-rows", 0);
    if (a.has("test-frozen-param") && !dry_run) return report_error(json, "invalid_argument", "--test-frozen-param needs --dry-run (a base weight is never trained)");
    const double eval_split = cfg["eval_split"];
    if (eval_split < 0.0 || eval_split >= 1.0) return report_error(json, "invalid_argument", "--eval-split must be in [0, 1) (got " + std::to_string(eval_split) + ")");
    if (eval_split > 0.0 && !eval_path.empty()) return report_error(json, "invalid_argument", "give --eval-data or --eval-split, not both");

    hone_model_params mp = hone_model_default_params();
    mp.path = model_path.c_str();
    const std::string backend = cfg["backend"];
    mp.backend = backend.c_str();
    const std::string gpu_precision = cfg["gpu_precision"];
    mp.gpu_precision = gpu_precision.c_str();
    mp.n_threads = cfg["threads"].get<int>();
    hone_model * model = nullptr;
    if (hone_model_load(&mp, &model, &err) != HONE_OK) return report_error(json, status_code(err.code), err.message);
    std::unique_ptr<hone_model, void (*)(hone_model *)> model_guard(model, hone_model_free);

    TrainData data, eval;
    try {
        if (tp.n_ctx == 0) { // --ctx auto: the context proposed for the token data (text: the default)
            tp.n_ctx = auto_context(model, data_path);
            cfg["ctx"] = tp.n_ctx;
            if (!json) fprintf(stderr, "context %d (auto)\n", tp.n_ctx);
        }
        data = load_train_data(model, data_path, tp.n_ctx);
        if (!eval_path.empty()) eval = load_train_data(model, eval_path, tp.n_ctx);
        else if (eval_split > 0.0) eval = split_off_eval(data, eval_split, ap.seed);
    } catch (const std::exception & e) {
        return report_error(json, "bad_dataset", e.what());
    }
    const int64_t truncated = data.truncated + eval.truncated;
    // packed where two sequences fit in a row: text windows fill theirs and keep exactly causal attention
    std::vector<int32_t> lengths;
    for (const auto & s : data.tokens) lengths.push_back((int32_t) s.size());
    tp.pack = tp.pack && hone_packing_helps(lengths.data(), (int32_t) lengths.size(), tp.n_ctx);
    if (tp.n_ubatch == 0) tp.n_step_rows = hone_step_rows(lengths.data(), (int32_t) lengths.size(), &tp); // the automatic micro-batch's bound

    hone_adapter * adapter = nullptr;
    if (hone_adapter_init(model, &ap, &adapter, &err) != HONE_OK) return report_error(json, status_code(err.code), err.message);
    std::unique_ptr<hone_adapter, void (*)(hone_adapter *)> adapter_guard(adapter, hone_adapter_free);

    Config run_config = cfg;
    run_config["data_format"] = data.format;
    if (!resume.empty()) run_config["resumed_from"] = resume;
    const std::string checkpoint_root = hone::utf8_string(hone::utf8_path(out_dir) / "checkpoints");
    const std::string run_config_str = run_config.dump();
    tp.checkpoint_dir = checkpoint_root.c_str();
    tp.run_config_json = run_config_str.c_str();

    hone_trainer * trainer = nullptr;
    if (hone_trainer_init_test(model, adapter, &tp, &test_hooks, &trainer, &err) != HONE_OK) return report_error(json, status_code(err.code), err.message);
    std::unique_ptr<hone_trainer, void (*)(hone_trainer *)> trainer_guard(trainer, hone_trainer_free);
    if (!resume.empty() && hone_trainer_resume(trainer, resume.c_str(), &err) != HONE_OK) {
        return report_error(json, status_code(err.code), err.message);
    }

    hone_model_info info;
    hone_model_get_info(model, &info);
    char targets_s[256];
    hone_format_targets(ap.targets, targets_s, sizeof(targets_s));
    if (dry_run) return dry_run_report(json, trainer, out_dir);
    if (json) {
        emit(JsonObject().str("type", "start").str("model", model_path).str("arch", info.arch).str("backend", info.backend)
            .str("gpu_precision", info.gpu_precision).integer("sequences", (long long) data.tokens.size()).integer("eval_sequences", (long long) eval.tokens.size())
            .integer("truncated", truncated).integer("adapter_params", hone_adapter_n_params(adapter))
            .integer("start_step", hone_trainer_step(trainer)).str("resumed_from", resume).boolean("packed", hone_trainer_packs(trainer))
            .raw("memory", memory_report(trainer).dump()));
    } else {
        fprintf(stderr, "model %s (%s, %d layers) on %s; %zu sequences of up to %d tokens (%zu held out); LoRA r=%d alpha=%g on %s (%lld params)\n",
                model_path.c_str(), info.arch, info.n_layer, info.backend, data.tokens.size(), tp.n_ctx, eval.tokens.size(), ap.rank,
                ap.alpha, targets_s, (long long) hone_adapter_n_params(adapter));
        if (truncated) fprintf(stderr, "note: %lld sequence(s) are longer than --ctx %d + 1 tokens and are truncated on the right\n", (long long) truncated, tp.n_ctx);
        if (tp.pack && !hone_trainer_packs(trainer)) fprintf(stderr, "note: sequences are not packed: %s carries state along the sequence\n", info.arch);
        else if (hone_trainer_packs(trainer)) fprintf(stderr, "sequences are packed into shared rows of %d positions\n", tp.n_ctx);
        if (!resume.empty()) fprintf(stderr, "resuming %s at step %d\n", resume.c_str(), hone_trainer_step(trainer));
        print_plan(memory_report(trainer));
    }

    Events ev{ json };
    // the run folder as the app's: config.json holds the options this run trains with, written
    // once the first step trained (a refused resume writes nothing)
    ev.out_dir = out_dir;
    ev.config_json = contract_config(cfg, tp).dump(2) + "\n";
    install_stop_signals();
    const std::vector<hone_sequence> train_seqs = data.view(), eval_seqs = eval.view();
    const hone_train_callbacks cbs = { on_step, on_eval, on_checkpoint, poll, &ev, on_checkpoint_failed };
    const hone_status st = hone_trainer_train(trainer, train_seqs.data(), (int32_t) train_seqs.size(), eval_seqs.data(),
                                              (int32_t) eval_seqs.size(), &cbs, &err);
    if (st != HONE_OK && st != HONE_E_CANCELLED) return report_error(json, status_code(err.code), err.message);
    const bool stopped = st == HONE_E_CANCELLED;

    // What cannot be written at the end (a full disk) leaves the run resumable from the last
    // checkpoint that was: say where.
    const std::string resumable = ev.last_checkpoint.empty()
        ? "; no checkpoint was written either, so nothing of this run is on disk"
        : "; the run stays resumable from its last good checkpoint: hone-train --resume " + ev.last_checkpoint;
    std::error_code ec;
    fs::create_directories(out_dir, ec);
    if (ec) return report_error(json, "io_error", out_dir + ": cannot create the output folder: " + ec.message() + resumable);
    const std::string adapter_path = out_dir + "/adapter.gguf";
    if (hone_adapter_save(adapter, adapter_path.c_str(), &err) != HONE_OK) return report_error(json, status_code(err.code), err.message + resumable);

    RunOutcome outcome;
    outcome.stopped = stopped;
    outcome.resumed_from = resume;
    outcome.last_checkpoint = ev.last_checkpoint;
    outcome.adapter_path = adapter_path;
    outcome.data_format = data.format;
    outcome.sequences = (int64_t) data.tokens.size();
    outcome.eval_sequences = (int64_t) eval.tokens.size();
    outcome.last = ev.last;
    outcome.has_eval = ev.last_eval.n_sequences > 0;
    outcome.eval_loss = ev.last_eval.eval_loss;
    outcome.steps = hone_trainer_step(trainer);
    outcome.peak_rss_mib = peak_rss_mib();
    const Config memory = memory_report(trainer);
    if (memory.contains("ubatch")) cfg["ubatch"] = memory["ubatch"]; // as it ran: the trainer's choice when automatic (as hone's run.json)
    const std::string run = run_json(cfg, tp, info, hone_adapter_n_params(adapter), memory, outcome);
    if (!write_atomic(out_dir + "/run.json", run + "\n")) return report_error(json, "io_error", out_dir + "/run.json: cannot write (disk full?)" + resumable);
    char * ops = nullptr;
    if (hone_trainer_op_report(trainer, &ops, &err) != HONE_OK) return report_error(json, status_code(err.code), err.message);
    const bool ops_ok = write_atomic(out_dir + "/ops.json", std::string(ops) + "\n");
    hone_string_free(ops);
    if (!ops_ok) return report_error(json, "io_error", out_dir + "/ops.json: cannot write (disk full?)" + resumable);
    if (json) {
        if (stopped) emit(JsonObject().str("type", "stopped").integer("step", hone_trainer_step(trainer)).str("checkpoint", ev.last_checkpoint).str("message", err.message));
        emit(JsonObject().str("type", "done").str("adapter", adapter_path).num("final_loss", ev.last.loss).boolean("stopped", stopped));
    } else {
        if (stopped) fprintf(stderr, "%s; checkpoint %s\n", err.message, ev.last_checkpoint.empty() ? "(none: no checkpoint folder)" : ev.last_checkpoint.c_str());
        fprintf(stderr, "wrote %s and %s/run.json\n", adapter_path.c_str(), out_dir.c_str());
    }
    return 0;
}
