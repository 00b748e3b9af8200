// `hone-train chat --model M [--adapter A --scale S] --prompt "..." [--system "..."]
// [--max-tokens N] [--greedy | --temperature T --top-p P --seed S] [--json]`: one reply through
// llama.cpp with the adapter applied (hone_chat), printed as it streams. Ctrl-C stops the reply.
// With --json: one {"type":"piece","text"} line per piece, then {"type":"done", ...}.
#include "args.h"
#include "commands.h"
#include "hone_json.h"
#include "stop_signals.h"

#include "hone.h"

#include <cstdio>
#include <string>

namespace {

struct Stream {
    bool json;
    int64_t stop_after; // tests: stop after this many pieces (< 0: never)
    int64_t pieces = 0;
};

bool on_piece(const char * text, size_t len, void * ud) {
    Stream & s = *static_cast<Stream *>(ud);
    if (s.json) printf("%s\n", JsonObject().str("type", "piece").str("text", std::string(text, len)).dump().c_str());
    else fwrite(text, 1, len, stdout);
    fflush(stdout);
    s.pieces++;
    if (s.stop_after >= 0 && s.pieces >= s.stop_after) return false;
    return stop_request() == HONE_TRAIN_CONTINUE;
}

} // namespace

int cmd_chat(int argc, char ** argv) {
    Args a(argc, argv, 2, { "model", "adapter", "scale", "prompt", "system", "max-tokens", "temperature", "top-p", "seed", "backend", "threads",
                            "ctx", "test-stop-after" }, { "greedy", "json" });
    const bool json = a.flag("json");
    const std::string model = a.required("model"), adapter = a.str("adapter"), prompt = a.required("prompt"), backend = a.str("backend", "cpu");
    const bool sampled = a.has("temperature") || a.has("top-p") || a.has("seed");
    if (sampled && a.flag("greedy")) throw UsageError("--greedy cannot be combined with --temperature, --top-p or --seed");
    if (a.has("scale") && adapter.empty()) throw UsageError("--scale needs --adapter");

    hone_chat_params p = hone_chat_default_params();
    p.model_path = model.c_str();
    p.adapter_path = adapter.empty() ? nullptr : adapter.c_str();
    p.backend = backend.c_str();
    p.n_threads = (int) a.integer("threads", 0);
    p.n_ctx = (int32_t) a.integer("ctx", 0);
    hone_chat_sampling s = hone_chat_default_sampling();
    s.max_tokens = (int32_t) a.integer("max-tokens", s.max_tokens);
    s.adapter_scale = (float) a.number("scale", 1.0);
    s.greedy = !sampled;
    s.temperature = (float) a.number("temperature", s.temperature);
    s.top_p = (float) a.number("top-p", s.top_p);
    const int64_t seed = a.integer("seed", s.seed);
    if (seed < 0 || seed > 0xFFFFFFFFll) throw UsageError("--seed must be 0..4294967295");
    s.seed = (uint32_t) seed;

    std::string messages = "[";
    if (a.has("system")) messages += JsonObject().str("role", "system").str("content", a.str("system")).dump() + ",";
    messages += JsonObject().str("role", "user").str("content", prompt).dump() + "]";

    hone_error err{};
    hone_chat * chat = nullptr;
    if (hone_chat_init(&p, &chat, &err) != HONE_OK) return report_error(json, hone_status_name(err.code), err.message);
    hone_chat_info info;
    hone_chat_get_info(chat, &info);
    install_stop_signals();
    Stream stream{ json, a.integer("test-stop-after", -1) };
    hone_chat_result r{};
    const hone_status st = hone_chat_generate(chat, messages.data(), messages.size(), &s, on_piece, &stream, &r, &err);
    hone_chat_free(chat);
    if (st != HONE_OK) return report_error(json, hone_status_name(err.code), err.message);
    if (json) {
        printf("%s\n", JsonObject().str("type", "done").integer("prompt_tokens", r.prompt_tokens).integer("reply_tokens", r.reply_tokens)
            .str("stop", r.stop).str("template", r.template_source).str("backend", info.backend).boolean("adapter", info.has_adapter)
            .num("scale", info.has_adapter ? s.adapter_scale : 0.0).dump().c_str());
    } else {
        printf("\n");
        fprintf(stderr, "(%d prompt tokens, %d reply tokens, stop: %s; %s chat template; %s%s)\n", r.prompt_tokens, r.reply_tokens, r.stop,
                r.template_source, info.backend, info.has_adapter ? "; with the adapter" : "");
    }
    return 0;
}
