// Chat: llama.cpp inference on a base with an optional LoRA, for trying an adapter beside its
// base (hone.h "chat"). The conversation goes through the model's chat template as training
// rendered it (chat_render.h), the reply is sampled token by token and streamed as UTF-8 pieces.
#include "chat_render.h"
#include "error.h"
#include "model.h"

#include "chat.h"
#include "llama.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using json = common_json;
using namespace hone;

struct hone_chat {
    llama_model * model = nullptr;
    llama_adapter_lora * lora = nullptr;
    llama_context * ctx = nullptr;
    const llama_vocab * vocab = nullptr;
    std::unique_ptr<common_chat_template> tmpl;
    std::string template_source; // "model" or "fallback"
    std::string backend;         // "CPU", or the GPU device's name
    int32_t n_ctx = 0, n_batch = 0;

    ~hone_chat() {
        if (ctx) llama_free(ctx);
        if (lora) llama_adapter_lora_free(lora);
        if (model) llama_model_free(model);
    }
};

namespace {

const int32_t MAX_DEFAULT_CTX = 4096;

void must_read(const char * path, const char * what) {
    FILE * f = ggml_fopen(path, "rb"); // UTF-8 paths on every platform
    if (!f) fail(HONE_E_IO, "%s: the %s cannot be opened for reading", path, what);
    fclose(f);
}

// llama.cpp says why an adapter does not load only in its log: keep its error lines while loading.
struct ErrorLines {
    std::string text;
    static void sink(enum ggml_log_level level, const char * line, void * ud) {
        if (level == GGML_LOG_LEVEL_ERROR) static_cast<ErrorLines *>(ud)->text += line;
        if (level == GGML_LOG_LEVEL_ERROR && getenv("HONE_VERBOSE")) fputs(line, stderr);
    }
};

llama_adapter_lora * load_adapter(llama_model * model, const char * path) {
    ErrorLines lines;
    llama_log_set(ErrorLines::sink, &lines);
    llama_adapter_lora * lora = llama_adapter_lora_init(model, path);
    quiet_logs(); // back to the engine's sink
    if (lora) return lora;
    std::string why = lines.text;
    const size_t colon = why.find("failed to apply lora adapter: ");
    if (colon != std::string::npos) why = why.substr(colon + strlen("failed to apply lora adapter: "));
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    if (why.empty()) why = "llama.cpp's adapter loader rejected it";
    const bool mismatch = why.find("mismatch") != std::string::npos || why.find("wrong base model") != std::string::npos;
    fail(mismatch ? HONE_E_MISMATCH : HONE_E_FORMAT, "%s: the adapter does not load for this model: %s", path, why.c_str());
}

// The messages as the template gets them: roles system/user/assistant, string contents, ending
// with a user message. Errors name the message.
std::string checked_messages(const char * text, size_t len) {
    const json msgs = json::parse_no_throw(std::string(text, len));
    if (msgs.is_discarded() || !msgs.is_array()) fail(HONE_E_INVALID_ARG, "messages: expected a JSON array of {role, content}");
    if (msgs.size() == 0) fail(HONE_E_INVALID_ARG, "messages: the conversation is empty");
    json out = json::array();
    for (size_t i = 0; i < msgs.size(); i++) {
        const json & m = msgs.at(i);
        if (!m.is_object() || !m.contains("role") || !m.at("role").is_string()) fail(HONE_E_INVALID_ARG, "messages[%zu]: expected an object with a string role", i);
        const std::string role = m.at("role").get<std::string>();
        if (role != "system" && role != "user" && role != "assistant") {
            fail(HONE_E_INVALID_ARG, "messages[%zu].role: '%s' is not system, user or assistant", i, role.c_str());
        }
        if (!m.contains("content") || !m.at("content").is_string()) fail(HONE_E_INVALID_ARG, "messages[%zu].content: expected a string", i);
        if (role == "system" && i != 0) fail(HONE_E_INVALID_ARG, "messages[%zu]: a system message can only come first", i);
        json o = json::object();
        o["role"] = role;
        o["content"] = m.at("content");
        out.push_back(o);
    }
    if (out.back().at("role").get<std::string>() != "user") fail(HONE_E_INVALID_ARG, "messages: the conversation must end with a user message to reply to");
    return out.dump();
}

// Holds back the bytes of a UTF-8 character that is not complete yet.
class Utf8Stream {
  public:
    // Appends bytes; returns what can be sent now (complete characters only).
    std::string push(const std::string & bytes) {
        pending_ += bytes;
        size_t cut = pending_.size();
        // the start of the last character, at most 3 bytes back; cut before it when it is incomplete
        for (size_t back = 1; back <= 4 && back <= pending_.size(); back++) {
            const unsigned char c = (unsigned char) pending_[pending_.size() - back];
            if ((c & 0xC0) == 0x80) continue; // a continuation byte
            const size_t need = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
            if (need > back) cut = pending_.size() - back;
            break;
        }
        std::string ready = pending_.substr(0, cut);
        pending_.erase(0, cut);
        return ready;
    }
    // What is left at the end (a broken character is sent as it is).
    std::string flush() { return std::move(pending_); }
  private:
    std::string pending_;
};

std::string piece_of(const llama_vocab * vocab, llama_token tok) {
    char buf[256];
    int32_t n = llama_token_to_piece(vocab, tok, buf, sizeof(buf), 0, false);
    if (n >= 0) return std::string(buf, n);
    std::string big(-n, '\0');
    n = llama_token_to_piece(vocab, tok, big.data(), (int32_t) big.size(), 0, false);
    return big.substr(0, std::max(0, n));
}

struct SamplerChain {
    llama_sampler * s = nullptr;
    ~SamplerChain() { if (s) llama_sampler_free(s); }
};

void decode(llama_context * ctx, llama_token * toks, int32_t n, int32_t pos0, bool last_logits) {
    llama_batch batch = llama_batch_init(n, 0, 1);
    for (int32_t i = 0; i < n; i++) {
        batch.token[i] = toks[i];
        batch.pos[i] = pos0 + i;
        batch.n_seq_id[i] = 1;
        batch.seq_id[i][0] = 0;
        batch.logits[i] = last_logits && i == n - 1;
    }
    batch.n_tokens = n;
    const int rc = llama_decode(ctx, batch);
    llama_batch_free(batch);
    if (rc != 0) fail(rc == 1 ? HONE_E_MEMORY : HONE_E_INTERNAL, "llama_decode failed (%d) at position %d", rc, pos0);
}

} // namespace

extern "C" {

hone_chat_params hone_chat_default_params(void) {
    hone_chat_params p;
    p.model_path = nullptr;
    p.adapter_path = nullptr;
    p.backend = "cpu";
    p.n_threads = 0;
    p.n_ctx = 0;
    return p;
}

hone_chat_sampling hone_chat_default_sampling(void) {
    hone_chat_sampling s;
    s.max_tokens = 256;
    s.adapter_scale = 1.0f;
    s.greedy = true;
    s.temperature = 0.8f;
    s.top_p = 0.95f;
    s.seed = 42;
    return s;
}

hone_status hone_chat_init(const hone_chat_params * params, hone_chat ** out, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(params && params->model_path && *params->model_path && out, "a model path is required");
        HONE_CHECK_ARG(params->n_ctx >= 0, "n_ctx must be >= 0 (0: the model's), got %d", params->n_ctx);
        quiet_logs();
        const std::string request = params->backend && *params->backend ? params->backend : "cpu";
        ggml_backend_dev_t gpu = find_gpu_device(request);
        must_read(params->model_path, "model");
        const bool with_adapter = params->adapter_path && *params->adapter_path;
        if (with_adapter) must_read(params->adapter_path, "adapter");

        auto c = std::make_unique<hone_chat>();
        llama_model_params mp = llama_model_default_params();
        ggml_backend_dev_t devices[2] = { gpu, nullptr };
        mp.devices = devices; // {nullptr}: no device to offload to, the CPU only
        mp.n_gpu_layers = gpu ? -1 : 0;
        // no CPU repacking (AMX, interleaved Q4_0 panels), as for training and evaluation: some
        // virtual machines advertise AMX but fault on its tile instructions (SIGILL), and the
        // plain kernels run on every x86-64 CPU
        mp.use_extra_bufts = false;
        c->model = llama_model_load_from_file(params->model_path, mp);
        if (!c->model) fail(HONE_E_FORMAT, "%s: llama.cpp could not load this model", params->model_path);
        c->vocab = llama_model_get_vocab(c->model);
        c->backend = gpu ? ggml_backend_dev_name(gpu) : "CPU";
        if (with_adapter) c->lora = load_adapter(c->model, params->adapter_path);

        const int32_t n_train = llama_model_n_ctx_train(c->model);
        c->n_ctx = params->n_ctx > 0 ? params->n_ctx : std::min(n_train > 0 ? n_train : MAX_DEFAULT_CTX, MAX_DEFAULT_CTX);
        c->n_batch = std::min(c->n_ctx, 512);
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx = (uint32_t) c->n_ctx;
        cp.n_batch = cp.n_ubatch = (uint32_t) c->n_batch;
        cp.n_seq_max = 1;
        const int threads = params->n_threads > 0 ? params->n_threads : (int) std::max(1u, std::thread::hardware_concurrency());
        cp.n_threads = cp.n_threads_batch = threads;
        cp.no_perf = true;
        cp.offload_kqv = gpu != nullptr;
        cp.op_offload = gpu != nullptr;
        c->ctx = llama_init_from_model(c->model, cp);
        if (!c->ctx) fail(HONE_E_MEMORY, "llama.cpp could not create an inference context of %d tokens", c->n_ctx);
        c->n_ctx = (int32_t) llama_n_ctx(c->ctx);
        c->tmpl = model_chat_template(c->model, c->template_source);
        *out = c.release();
    });
}

void hone_chat_free(hone_chat * chat) { delete chat; }

void hone_chat_get_info(const hone_chat * c, hone_chat_info * info) {
    memset(info, 0, sizeof(*info));
    snprintf(info->backend, sizeof(info->backend), "%s", c->backend.c_str());
    snprintf(info->template_source, sizeof(info->template_source), "%s", c->template_source.c_str());
    info->n_ctx = c->n_ctx;
    info->has_adapter = c->lora != nullptr;
}

hone_status hone_chat_generate(hone_chat * c, const char * messages_json, size_t len, const hone_chat_sampling * s,
                               hone_chat_piece_cb on_piece, void * user_data, hone_chat_result * result, hone_error * err) {
    if (result) memset(result, 0, sizeof(*result));
    return guard(err, [&] {
        HONE_CHECK_ARG(c && messages_json && s, "chat, messages and sampling are required");
        HONE_CHECK_ARG(s->max_tokens >= 1, "max_tokens must be >= 1, got %d", s->max_tokens);
        HONE_CHECK_ARG(s->adapter_scale >= 0.0f && s->adapter_scale <= 16.0f, "adapter_scale must be 0..16, got %g", s->adapter_scale);
        if (!s->greedy) {
            HONE_CHECK_ARG(s->temperature > 0.0f, "temperature must be > 0 when sampling, got %g", s->temperature);
            HONE_CHECK_ARG(s->top_p > 0.0f && s->top_p <= 1.0f, "top_p must be in (0, 1], got %g", s->top_p);
        }
        const std::string prompt = render_generation_prompt(*c->tmpl, checked_messages(messages_json, len));
        std::vector<int32_t> toks;
        std::vector<TokenSpan> spans;
        tokenize_with_spans(c->vocab, prompt, true, toks, spans);
        const int32_t n_prompt = (int32_t) toks.size();
        if (n_prompt + 1 > c->n_ctx) {
            fail(HONE_E_INVALID_ARG, "the conversation is %d tokens: the context holds %d (shorten it or load with a larger context)", n_prompt, c->n_ctx);
        }

        llama_memory_clear(llama_get_memory(c->ctx), true);
        float scale = s->adapter_scale;
        if (llama_set_adapters_lora(c->ctx, c->lora ? &c->lora : nullptr, c->lora ? 1 : 0, c->lora ? &scale : nullptr) != 0) {
            fail(HONE_E_INTERNAL, "llama.cpp could not set the adapter");
        }
        SamplerChain chain;
        chain.s = llama_sampler_chain_init(llama_sampler_chain_default_params());
        if (s->greedy) {
            llama_sampler_chain_add(chain.s, llama_sampler_init_greedy());
        } else {
            llama_sampler_chain_add(chain.s, llama_sampler_init_top_p(s->top_p, 1));
            llama_sampler_chain_add(chain.s, llama_sampler_init_temp(s->temperature));
            llama_sampler_chain_add(chain.s, llama_sampler_init_dist(s->seed));
        }

        for (int32_t i = 0; i < n_prompt; i += c->n_batch) {
            const int32_t n = std::min(c->n_batch, n_prompt - i);
            decode(c->ctx, toks.data() + i, n, i, i + n == n_prompt);
        }
        hone_chat_result r{};
        r.prompt_tokens = n_prompt;
        snprintf(r.template_source, sizeof(r.template_source), "%s", c->template_source.c_str());
        const char * stop = "max_tokens";
        Utf8Stream utf8;
        auto send = [&](const std::string & text) { return text.empty() || !on_piece || on_piece(text.data(), text.size(), user_data); };
        int32_t pos = n_prompt;
        while (r.reply_tokens < s->max_tokens) {
            llama_token tok = llama_sampler_sample(chain.s, c->ctx, -1);
            if (llama_vocab_is_eog(c->vocab, tok)) { stop = "eos"; break; }
            r.reply_tokens++;
            if (!send(utf8.push(piece_of(c->vocab, tok)))) { stop = "stopped"; break; }
            if (r.reply_tokens >= s->max_tokens) break;
            if (pos >= c->n_ctx) { stop = "context"; break; }
            decode(c->ctx, &tok, 1, pos++, true);
        }
        if (strcmp(stop, "stopped") != 0 && !send(utf8.flush())) stop = "stopped";
        snprintf(r.stop, sizeof(r.stop), "%s", stop);
        if (result) *result = r;
    });
}

} // extern "C"
