#include "chat_render.h"
#include "template_limits.h"

#include "error.h"
#include "model.h"

#include "chat-auto-parser.h" // autoparser::generation_params for common_chat_template_direct_apply
#include "chat.h"
#include "common.h"
#include "llama.h"

#include <algorithm>
#include <cstring>
#include <map>

using json = common_json;
using namespace hone;

// Models without a chat template render through this plain format (docs/rendering.md).
// Each assistant turn ends with the EOS token, so the model learns to stop.
static const char * FALLBACK_TEMPLATE =
    "{%- if tools -%}{{- '### Tools:\\n' + (tools | tojson) + '\\n\\n' -}}{%- endif -%}"
    "{%- for message in messages -%}"
    "{%- if message.role == 'assistant' -%}"
    "{{- '### Assistant:\\n' + message.content -}}"
    "{%- for tc in message.tool_calls or [] -%}"
    "{{- '\\n<tool_call>{\"name\": \"' + tc.function.name + '\", \"arguments\": ' + tc.function.arguments + '}</tool_call>' -}}"
    "{%- endfor -%}"
    "{{- eos_token + '\\n\\n' -}}"
    "{%- else -%}"
    "{{- '### ' + (message.role | capitalize) + ':\\n' + message.content + '\\n\\n' -}}"
    "{%- endif -%}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '### Assistant:\\n' -}}{%- endif -%}";

hone_renderer::~hone_renderer() = default;

namespace {

// A conversation as the template receives it, plus what the mask needs to know.
struct Conversation {
    json messages = json::array();
    json tools;                 // null or an array
    std::vector<std::string> roles;
    std::vector<bool> trained;  // assistant turn carrying loss
    bool has_tool_calls = false;
};

std::string content_text(const json & c, size_t i) {
    if (c.is_null()) return "";
    if (c.is_string()) return c.get<std::string>();
    if (c.is_array()) { // OpenAI content parts: text parts joined by newlines
        std::string out;
        for (size_t k = 0; k < c.size(); k++) {
            const json & part = c.at(k);
            if (!part.is_object() || part.value("type", std::string()) != "text" || !part.contains("text") || !part.at("text").is_string()) {
                fail(HONE_E_FORMAT, "messages[%zu].content[%zu]: only text parts can be rendered", i, k);
            }
            if (!out.empty()) out += "\n";
            out += part.at("text").get<std::string>();
        }
        return out;
    }
    fail(HONE_E_FORMAT, "messages[%zu].content: expected a string", i);
}

Conversation parse_conversation(const json & ex, bool ignore_weights) {
    Conversation c;
    const json & msgs = ex.at("messages");
    if (!msgs.is_array() || msgs.size() == 0) fail(HONE_E_FORMAT, "messages: expected a non-empty array");
    for (size_t i = 0; i < msgs.size(); i++) {
        const json & m = msgs.at(i);
        if (!m.is_object() || !m.contains("role") || !m.at("role").is_string()) fail(HONE_E_FORMAT, "messages[%zu]: expected an object with a string role", i);
        std::string role = m.at("role").get<std::string>();
        if (role == "developer") role = "system";
        if (role != "system" && role != "user" && role != "assistant" && role != "tool") {
            fail(HONE_E_FORMAT, "messages[%zu].role: unknown role '%s'", i, role.c_str());
        }
        json out = json::object();
        out["role"] = role;
        out["content"] = content_text(m.contains("content") ? m.at("content") : json(), i);
        if (m.contains("tool_calls") && m.at("tool_calls").is_array() && m.at("tool_calls").size() > 0) {
            json calls = json::array();
            const json & tcs = m.at("tool_calls");
            for (size_t k = 0; k < tcs.size(); k++) {
                const json & tc = tcs.at(k);
                if (!tc.is_object() || !tc.contains("function") || !tc.at("function").is_object() || !tc.at("function").contains("name")) {
                    fail(HONE_E_FORMAT, "messages[%zu].tool_calls[%zu]: expected {type, function: {name, arguments}}", i, k);
                }
                const json & fn = tc.at("function");
                json args = fn.contains("arguments") ? fn.at("arguments") : json("{}");
                json call = json::object();
                call["type"] = "function";
                json f = json::object();
                f["name"] = fn.at("name");
                f["arguments"] = args.is_string() ? args : json(args.dump());
                call["function"] = f;
                if (tc.contains("id")) call["id"] = tc.at("id");
                calls.push_back(call);
            }
            out["tool_calls"] = calls;
            c.has_tool_calls = true;
        }
        if (m.contains("tool_call_id")) out["tool_call_id"] = m.at("tool_call_id");
        if (m.contains("name")) out["name"] = m.at("name");
        const bool weight_zero = m.contains("weight") && m.at("weight").is_number() && m.at("weight").get<double>() == 0.0;
        c.trained.push_back(role == "assistant" && (ignore_weights || !weight_zero));
        c.roles.push_back(role);
        c.messages.push_back(out);
    }
    if (ex.contains("tools") && ex.at("tools").is_array() && ex.at("tools").size() > 0) c.tools = ex.at("tools");
    return c;
}

// The workarounds llama.cpp's chat layer applies before rendering, for the capabilities the
// template lacks (common/chat.cpp keeps them private).
json adapt_to_template(json msgs, const jinja::caps & caps) {
    if (!caps.supports_system_role && msgs.size() > 0 && msgs.at(0).at("role").get<std::string>() == "system") {
        const std::string sys = msgs.at(0).at("content").get<std::string>();
        json rest = json::array();
        for (size_t i = 1; i < msgs.size(); i++) rest.push_back(msgs.at(i));
        if (rest.size() > 0) rest[0]["content"] = sys + "\n" + rest.at(0).at("content").get<std::string>();
        msgs = rest;
    }
    if (caps.supports_object_arguments) {
        for (size_t i = 0; i < msgs.size(); i++) {
            if (!msgs.at(i).contains("tool_calls")) continue;
            json & calls = msgs[i]["tool_calls"];
            for (size_t k = 0; k < calls.size(); k++) {
                json & args = calls[k]["function"]["arguments"];
                if (!args.is_string()) continue;
                const json parsed = json::parse_no_throw(args.get<std::string>());
                if (parsed.is_discarded()) fail(HONE_E_FORMAT, "messages[%zu].tool_calls[%zu].function.arguments: not JSON", i, k);
                args = parsed;
            }
        }
    }
    return msgs;
}

const common_chat_template & pick(const hone_renderer & r, const Conversation & c) {
    return c.tools.is_array() && r.tmpl_tools ? *r.tmpl_tools : *r.tmpl;
}

// Renders through the template as training does: the template's own bos_token text stays
// (tokenize_with_spans adds a BOS only when missing), no EOS, thinking on.
static std::string render_with(const common_chat_template & t, autoparser::generation_params & gp) {
    gp.enable_thinking = true;
    gp.add_bos = false;
    gp.add_eos = false;
    try {
        return common_chat_template_direct_apply(t, gp);
    } catch (const HoneError &) {
        throw;
    } catch (const std::exception & e) {
        fail(HONE_E_INVALID_ARG, "the chat template cannot render this conversation: %s", e.what());
    }
}

std::string apply(const hone_renderer & r, const Conversation & c, const json & msgs, bool add_generation_prompt) {
    const common_chat_template & t = pick(r, c);
    autoparser::generation_params gp;
    gp.messages = adapt_to_template(msgs, t.original_caps());
    if (c.tools.is_array()) gp.tools = c.tools;
    gp.add_generation_prompt = add_generation_prompt;
    return render_with(t, gp);
}

// Unique marker strings put at the end of each message's content (before trailing
// whitespace, so templates that trim see the same text). Printable ASCII, so escaping
// filters leave them alone.
struct Markers {
    std::string prefix;
    std::string make(size_t i) const { return prefix + std::to_string(i) + "@@"; }

    explicit Markers(const Conversation & c) {
        const std::string all = c.messages.dump() + c.tools.dump();
        for (int n = 0;; n++) {
            prefix = "@@hone" + std::to_string(n) + "m";
            if (all.find(prefix) == std::string::npos) break;
        }
    }

    json insert(const json & msgs) const {
        json out = msgs;
        for (size_t i = 0; i < out.size(); i++) {
            const std::string s = out.at(i).at("content").get<std::string>();
            if (s.empty()) continue; // an empty content may steer the template: leave it as it is
            const size_t end = s.find_last_not_of(" \t\r\n") + 1;
            out[i]["content"] = s.substr(0, end) + make(i) + s.substr(end);
        }
        return out;
    }

    // Removes the markers from `text`; positions[i] is where message i's marker was (the last
    // one, if the template repeated it), or npos.
    std::string strip(const std::string & text, std::vector<size_t> & positions) const {
        std::string out;
        out.reserve(text.size());
        size_t i = 0;
        while (i < text.size()) {
            const size_t m = text.find(prefix, i);
            if (m == std::string::npos) { out.append(text, i, std::string::npos); break; }
            out.append(text, i, m - i);
            const size_t num = m + prefix.size();
            const size_t close = text.find("@@", num);
            if (close == std::string::npos) fail(HONE_E_INTERNAL, "unterminated content marker in the rendered text");
            const size_t idx = std::stoul(text.substr(num, close - num));
            if (idx < positions.size()) positions[idx] = out.size();
            i = close + 2;
        }
        return out;
    }
};

size_t common_prefix(const std::string & a, size_t a0, const std::string & b) {
    size_t n = 0;
    while (a0 + n < a.size() && n < b.size() && a[a0 + n] == b[n]) n++;
    return n;
}

// Byte range [begin, end_min) of one assistant turn: begin is where the model starts
// generating, end_min where its content ends (the turn's end is the first end-of-generation
// token at or after end_min, found on tokens).
struct TurnSpan { size_t begin, content_end, limit; };

// Finds where assistant message i starts generating in the full render: right after the text
// the template puts between the previous message's content and the assistant's output (the
// previous message's footer plus the generation prompt), read from a render of the
// conversation up to i with add_generation_prompt. Only that local tail is compared, so
// templates that rewrite earlier turns (Qwen3 drops old reasoning) do not matter.
TurnSpan locate_turn(const hone_renderer & r, const Conversation & c, const Markers & mk, const json & marked,
                     const std::string & full, const std::vector<size_t> & pos_full, size_t i) {
    if (i == 0) fail(HONE_E_FORMAT, "messages[0]: a conversation cannot start with an assistant turn");
    const size_t prev = i - 1;
    if (pos_full[prev] == std::string::npos) {
        fail(HONE_E_UNSUPPORTED, "messages[%zu]: cannot find the end of the message before this assistant turn in the rendered template", i);
    }
    json prefix = json::array();
    for (size_t k = 0; k < i; k++) prefix.push_back(marked.at(k));
    std::vector<size_t> pos_gen(c.messages.size(), std::string::npos), pos_plain(c.messages.size(), std::string::npos);
    const std::string gen = mk.strip(apply(r, c, prefix, true), pos_gen);
    const std::string plain = mk.strip(apply(r, c, prefix, false), pos_plain);
    if (pos_gen[prev] == std::string::npos || pos_plain[prev] == std::string::npos) {
        fail(HONE_E_UNSUPPORTED, "messages[%zu]: the template renders the previous message differently when it is the last one", i);
    }
    const std::string tail_gen = gen.substr(pos_gen[prev]);
    const std::string tail_plain = plain.substr(pos_plain[prev]);
    const size_t matched = common_prefix(full, pos_full[prev], tail_gen);
    // All of the generation prompt, or (templates whose prompt opens a block the history
    // does not show, e.g. "<think>\n") at least the previous message's footer.
    if (matched < tail_gen.size() && matched < tail_plain.size()) {
        fail(HONE_E_UNSUPPORTED, "messages[%zu]: the rendered conversation does not continue with the template's assistant prompt", i);
    }
    TurnSpan s;
    s.begin = pos_full[prev] + matched;
    s.content_end = pos_full[i] != std::string::npos ? std::max(pos_full[i], s.begin) : s.begin;
    s.limit = full.size();
    for (size_t k = i + 1; k < pos_full.size(); k++) {
        if (pos_full[k] != std::string::npos) { s.limit = pos_full[k]; break; }
    }
    return s;
}

std::string token_piece(const llama_vocab * vocab, int32_t tok) {
    char buf[256];
    int32_t n = llama_token_to_piece(vocab, tok, buf, sizeof(buf), 0, true);
    if (n >= 0) return std::string(buf, n);
    std::string big(-n, '\0');
    n = llama_token_to_piece(vocab, tok, big.data(), (int32_t) big.size(), 0, true);
    return big.substr(0, std::max(0, n));
}

std::vector<int32_t> tokenize(const llama_vocab * vocab, const std::string & text, bool add_special) {
    std::vector<int32_t> toks(text.size() + 8);
    int32_t n = llama_tokenize(vocab, text.data(), (int32_t) text.size(), toks.data(), (int32_t) toks.size(), add_special, true);
    if (n < 0) {
        toks.resize(-n);
        n = llama_tokenize(vocab, text.data(), (int32_t) text.size(), toks.data(), (int32_t) toks.size(), add_special, true);
    }
    if (n < 0) fail(HONE_E_INTERNAL, "tokenization failed");
    toks.resize(n);
    return toks;
}

void fill_result(hone_rendered & out, std::string text, std::vector<int32_t> toks, const std::vector<TokenSpan> & spans) {
    out.text = std::move(text);
    out.tokens = std::move(toks);
    out.spans.resize(spans.size() * 2);
    for (size_t i = 0; i < spans.size(); i++) { out.spans[2 * i] = spans[i].begin; out.spans[2 * i + 1] = spans[i].end; }
}

void render_text(const hone_renderer & r, const std::string & text, hone_rendered & out) {
    std::vector<int32_t> toks;
    std::vector<TokenSpan> spans;
    tokenize_with_spans(r.vocab, text, true, toks, spans);
    const int32_t eos = llama_vocab_eos(r.vocab);
    if (eos != LLAMA_TOKEN_NULL) {
        toks.push_back(eos);
        spans.push_back({ (int32_t) text.size(), (int32_t) text.size() });
    }
    fill_result(out, text, std::move(toks), spans);
    out.mask.assign(out.tokens.size(), 1);
}

void render_chat(const hone_renderer & r, const json & ex, hone_rendered & out) {
    const Conversation c = parse_conversation(ex, r.p.ignore_weights);
    const common_chat_template & t = pick(r, c);
    if (c.has_tool_calls && !t.original_caps().supports_tool_calls) {
        fail(HONE_E_UNSUPPORTED, "the chat template does not render tool calls, so this conversation would lose them (use a model whose template supports tools)");
    }
    const std::string plain = apply(r, c, c.messages, false);
    const Markers mk(c);
    const json marked = mk.insert(c.messages);
    std::vector<size_t> pos(c.messages.size(), std::string::npos);
    const std::string unmarked = mk.strip(apply(r, c, marked, false), pos);
    if (unmarked != plain) {
        fail(HONE_E_UNSUPPORTED, "the chat template renders differently when message contents are marked, so assistant turns cannot be located");
    }

    std::vector<TurnSpan> turns;
    if (r.p.loss != HONE_LOSS_ALL) {
        for (size_t i = 0; i < c.messages.size(); i++) {
            if (c.trained[i]) turns.push_back(locate_turn(r, c, mk, marked, plain, pos, i));
        }
    }
    std::vector<int32_t> toks;
    std::vector<TokenSpan> spans;
    tokenize_with_spans(r.vocab, plain, true, toks, spans);
    std::vector<uint8_t> mask(toks.size(), r.p.loss == HONE_LOSS_ALL ? 1 : 0);
    for (size_t ti = 0; ti < turns.size(); ti++) {
        const TurnSpan & s = turns[ti];
        // First token at or across the start, then through the first end-of-generation token
        // at or after the content's end (the content itself is skipped, so text that looks
        // like a special token inside it cannot end the turn early).
        size_t k = 0;
        while (k < toks.size() && (size_t) spans[k].begin < s.begin && (size_t) spans[k].end <= s.begin) k++;
        const size_t first = k;
        bool closed = false;
        for (; k < toks.size() && (size_t) spans[k].begin < s.limit; k++) {
            if ((size_t) spans[k].begin >= s.content_end && llama_vocab_is_eog(r.vocab, toks[k])) { closed = true; break; }
        }
        // Without an end-of-turn token (a template that has none) the turn ends with its content.
        const size_t last = closed ? k + 1 : (s.content_end > s.begin ? k : first);
        for (size_t j = first; j < last && j < toks.size(); j++) {
            if (closed || (size_t) spans[j].begin < s.content_end) mask[j] = 1;
        }
    }
    fill_result(out, plain, std::move(toks), spans);
    out.mask = std::move(mask);
}

} // namespace

namespace hone {

void tokenize_with_spans(const llama_vocab * vocab, const std::string & text, bool add_bos,
                         std::vector<int32_t> & tokens, std::vector<TokenSpan> & spans) {
    tokens = tokenize(vocab, text, false);
    spans.clear();
    spans.reserve(tokens.size() + 1);
    size_t cur = 0;
    for (size_t i = 0; i < tokens.size(); i++) {
        const std::string p = token_piece(vocab, tokens[i]);
        if (text.compare(cur, p.size(), p) == 0) {
            spans.push_back({ (int32_t) cur, (int32_t) (cur + p.size()) });
            cur += p.size();
        } else if (!p.empty() && p[0] == ' ' && text.compare(cur, p.size() - 1, p, 1, std::string::npos) == 0) {
            // SentencePiece's space prefix, added by the tokenizer and absent from the text
            spans.push_back({ (int32_t) cur, (int32_t) (cur + p.size() - 1) });
            cur += p.size() - 1;
        } else {
            fail(HONE_E_INTERNAL, "token %zu ('%s') does not match the rendered text at byte %zu", i, p.c_str(), cur);
        }
    }
    if (cur != text.size()) fail(HONE_E_INTERNAL, "the tokens cover %zu of %zu bytes of the rendered text", cur, text.size());
    const int32_t bos = llama_vocab_bos(vocab);
    if (add_bos && llama_vocab_get_add_bos(vocab) && bos != LLAMA_TOKEN_NULL && (tokens.empty() || tokens[0] != bos)) {
        tokens.insert(tokens.begin(), bos);
        spans.insert(spans.begin(), { 0, 0 });
    }
}

// Parses a Jinja template with the vocab's BOS/EOS texts; `whose` names it in the error.
static void make_template(const std::string & src, const llama_vocab * vocab, const char * whose, std::unique_ptr<common_chat_template> & out) {
    const int32_t bos = llama_vocab_bos(vocab), eos = llama_vocab_eos(vocab);
    const std::string bos_text = bos != LLAMA_TOKEN_NULL ? token_piece(vocab, bos) : "";
    const std::string eos_text = eos != LLAMA_TOKEN_NULL ? token_piece(vocab, eos) : "";
    check_template_limits(src, whose);
    try {
        out = std::make_unique<common_chat_template>(src, bos_text, eos_text);
    } catch (const std::exception & e) {
        fail(HONE_E_FORMAT, "%s chat template does not parse: %s", whose, e.what());
    }
}

std::unique_ptr<common_chat_template> model_chat_template(const llama_model * model, std::string & source,
                                                          std::unique_ptr<common_chat_template> * tools) {
    const llama_vocab * vocab = llama_model_get_vocab(model);
    std::unique_ptr<common_chat_template> t;
    if (llama_model_chat_template(model, nullptr)) {
        // llama.cpp's loader also patches a few known-broken templates here.
        common_chat_templates_ptr all = common_chat_templates_init(model, "");
        make_template(common_chat_templates_source(all.get()), vocab, "the model's", t);
        const std::string tools_src = common_chat_templates_source(all.get(), "tool_use");
        if (tools && !tools_src.empty()) make_template(tools_src, vocab, "the model's", *tools);
        source = "model";
    } else {
        make_template(FALLBACK_TEMPLATE, vocab, "the fallback", t);
        source = "fallback";
    }
    return t;
}

std::string render_generation_prompt(const common_chat_template & t, const std::string & messages_json) {
    autoparser::generation_params gp;
    gp.messages = adapt_to_template(json::parse(messages_json), t.original_caps());
    gp.add_generation_prompt = true;
    return render_with(t, gp);
}

} // namespace hone

extern "C" {

hone_render_params hone_render_default_params(void) {
    hone_render_params p;
    p.chat_template = nullptr;
    p.loss = HONE_LOSS_ASSISTANT;
    p.ignore_weights = false;
    return p;
}

hone_status hone_renderer_init(hone_model * model, const hone_render_params * params, hone_renderer ** out, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(model && params && out, "model and params are required");
        HONE_CHECK_ARG(params->loss == HONE_LOSS_ASSISTANT || params->loss == HONE_LOSS_ALL, "unknown loss mode %d", params->loss);
        auto r = std::make_unique<hone_renderer>();
        r->model = model;
        r->p = *params;
        r->vocab = llama_model_get_vocab(model->vocab_model);
        if (params->chat_template && *params->chat_template) {
            r->source_kind = "override";
            make_template(params->chat_template, r->vocab, "the given", r->tmpl);
        } else {
            r->tmpl = model_chat_template(model->vocab_model, r->source_kind, &r->tmpl_tools);
        }
        r->p.chat_template = nullptr;
        *out = r.release();
    });
}

void hone_renderer_free(hone_renderer * r) { delete r; }

void hone_renderer_get_info(const hone_renderer * r, hone_renderer_info * info) {
    memset(info, 0, sizeof(*info));
    snprintf(info->source, sizeof(info->source), "%s", r->source_kind.c_str());
    const jinja::caps & caps = (r->tmpl_tools ? r->tmpl_tools : r->tmpl)->original_caps();
    info->supports_tools = caps.supports_tools;
    info->supports_tool_calls = caps.supports_tool_calls;
    info->supports_system_role = r->tmpl->original_caps().supports_system_role;
}

const char * hone_renderer_template(const hone_renderer * r) { return r->tmpl->source().c_str(); }

hone_status hone_render(hone_renderer * r, const char * example_json, size_t len, hone_rendered ** out, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(r && example_json && out, "renderer and example are required");
        const json ex = json::parse_no_throw(std::string(example_json, len));
        if (ex.is_discarded() || !ex.is_object()) fail(HONE_E_FORMAT, "the example is not a JSON object");
        auto res = std::make_unique<hone_rendered>();
        if (ex.contains("messages")) render_chat(*r, ex, *res);
        else if (ex.contains("text") && ex.at("text").is_string()) render_text(*r, ex.at("text").get<std::string>(), *res);
        else fail(HONE_E_FORMAT, "the example has neither \"messages\" nor a string \"text\"");
        *out = res.release();
    });
}

int32_t hone_rendered_n_tokens(const hone_rendered * r) { return (int32_t) r->tokens.size(); }
const int32_t * hone_rendered_tokens(const hone_rendered * r) { return r->tokens.data(); }
const uint8_t * hone_rendered_loss_mask(const hone_rendered * r) { return r->mask.data(); }
const char * hone_rendered_text(const hone_rendered * r, size_t * len) {
    if (len) *len = r->text.size();
    return r->text.c_str();
}
const int32_t * hone_rendered_token_spans(const hone_rendered * r) { return r->spans.data(); }
void hone_rendered_free(hone_rendered * r) { delete r; }

} // extern "C"
