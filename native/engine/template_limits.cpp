// check_template_limits (template_limits.h): one pass over the template's tags.
#include "template_limits.h"

#include "error.h"

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace hone {

namespace {

const char * const OPENERS[] = { "for", "if", "macro", "call", "filter", "generation" }; // blocks with an end tag

// The first word of a block tag's body ("for" in "{%- for x in y %}").
std::string first_word(const std::string & body) {
    size_t i = 0;
    while (i < body.size() && (body[i] == '-' || body[i] == '+' || isspace((unsigned char) body[i]))) i++;
    size_t j = i;
    while (j < body.size() && (isalnum((unsigned char) body[j]) || body[j] == '_')) j++;
    return body.substr(i, j - i);
}

} // namespace

void check_template_limits(const std::string & src, const char * whose) {
    int line = 1, blocks = 0;
    for (size_t i = 0; i + 1 < src.size(); i++) {
        if (src[i] == '\n') line++;
        if (src[i] != '{' || (src[i + 1] != '{' && src[i + 1] != '%' && src[i + 1] != '#')) continue;
        const char kind = src[i + 1];
        const char * close = kind == '{' ? "}}" : kind == '%' ? "%}" : "#}";
        const size_t end = src.find(close, i + 2);
        if (end == std::string::npos) return; // unclosed: the parser says where
        const std::string body = src.substr(i + 2, end - i - 2);
        if (kind != '#') {
            int depth = 0;
            char quote = 0;
            for (size_t k = 0; k < body.size(); k++) {
                const char c = body[k];
                if (quote) { if (c == quote && body[k - 1] != '\\') quote = 0; continue; }
                if (c == '\'' || c == '"') quote = c;
                else if (c == '(' || c == '[' || c == '{') {
                    if (++depth > TEMPLATE_MAX_NESTING) {
                        fail(HONE_E_FORMAT, "%s chat template nests brackets more than %d deep (line %d)", whose, TEMPLATE_MAX_NESTING, line);
                    }
                } else if (c == ')' || c == ']' || c == '}') depth--;
                else if (strncmp(body.c_str() + k, "range(", 6) == 0 && (k == 0 || !(isalnum((unsigned char) body[k - 1]) || body[k - 1] == '_'))) {
                    const long long n = strtoll(body.c_str() + k + 6, nullptr, 10);
                    if (n > TEMPLATE_MAX_RANGE) {
                        fail(HONE_E_FORMAT, "%s chat template loops %lld times (range(%lld), line %d): at most %lld", whose, n, n, line, TEMPLATE_MAX_RANGE);
                    }
                }
            }
        }
        if (kind == '%') {
            const std::string w = first_word(body);
            bool opens = false;
            for (const char * o : OPENERS) opens = opens || w == o;
            if (opens && ++blocks > TEMPLATE_MAX_NESTING) {
                fail(HONE_E_FORMAT, "%s chat template nests blocks more than %d deep (line %d)", whose, TEMPLATE_MAX_NESTING, line);
            }
            if (w.rfind("end", 0) == 0 && blocks > 0) blocks--;
        }
        for (size_t k = i; k < end; k++) if (src[k] == '\n') line++;
        i = end + 1;
    }
}

} // namespace hone
