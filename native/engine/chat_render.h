// Rendering examples into training tokens: a conversation goes through the model's own chat
// template (llama.cpp's Jinja engine from common/), is tokenized by the model's tokenizer,
// and gets a loss mask that covers each assistant turn and its end-of-turn token.
// How the assistant spans are found is written in docs/rendering.md.
#pragma once

#include "hone.h"

#include <memory>
#include <string>
#include <vector>

struct common_chat_template;
struct llama_model;
struct llama_vocab;

struct hone_renderer {
    hone_model * model = nullptr;
    const llama_vocab * vocab = nullptr;
    hone_render_params p{};
    std::string source_kind;                          // "model", "override" or "fallback"
    std::unique_ptr<common_chat_template> tmpl;       // the default template
    std::unique_ptr<common_chat_template> tmpl_tools; // the model's "tool_use" variant, if any
    ~hone_renderer();
};

struct hone_rendered {
    std::string text;             // the rendered text the tokens came from
    std::vector<int32_t> tokens;
    std::vector<uint8_t> mask;    // 1: the token carries loss
    std::vector<int32_t> spans;   // per token: begin and end byte in `text` (end == begin for a BOS the text lacks)
};

namespace hone {

// A token's byte range in the text it was tokenized from.
struct TokenSpan { int32_t begin, end; };

// Tokenizes `text` (special tokens parsed, BOS added when the vocab wants one and the text
// lacks it) and finds each token's byte range in `text`.
void tokenize_with_spans(const llama_vocab * vocab, const std::string & text, bool add_bos,
                         std::vector<int32_t> & tokens, std::vector<TokenSpan> & spans);

// The model's own chat template (as llama.cpp's chat layer loads it, with its fixes of known
// broken templates; `tools` gets its "tool_use" variant, if any), or the plain fallback of
// models without one. `source` is set to "model" or "fallback".
std::unique_ptr<common_chat_template> model_chat_template(const llama_model * model, std::string & source,
                                                          std::unique_ptr<common_chat_template> * tools = nullptr);

// Renders `messages` (a JSON array of {role, content} with string contents) through `t` with
// the generation prompt, with the workarounds training renders apply (a system message merged
// into the first user message when the template has no system role), so a prompt looks as
// training conversations did.
std::string render_generation_prompt(const common_chat_template & t, const std::string & messages_json);

} // namespace hone
