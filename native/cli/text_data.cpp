#include "text_data.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

namespace {

struct Parser {
    const std::string & s;
    size_t i = 0;
    void ws() { while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n')) i++; }
    bool lit(const char * w) { size_t n = strlen(w); if (s.compare(i, n, w) == 0) { i += n; return true; } return false; }
    static void utf8(std::string & o, uint32_t c) {
        if (c < 0x80) o += (char) c;
        else if (c < 0x800) { o += (char) (0xC0 | (c >> 6)); o += (char) (0x80 | (c & 0x3F)); }
        else if (c < 0x10000) { o += (char) (0xE0 | (c >> 12)); o += (char) (0x80 | ((c >> 6) & 0x3F)); o += (char) (0x80 | (c & 0x3F)); }
        else { o += (char) (0xF0 | (c >> 18)); o += (char) (0x80 | ((c >> 12) & 0x3F)); o += (char) (0x80 | ((c >> 6) & 0x3F)); o += (char) (0x80 | (c & 0x3F)); }
    }
    bool hex4(uint32_t & c) {
        if (i + 4 > s.size()) return false;
        c = 0;
        for (int k = 0; k < 4; k++) {
            char h = s[i++];
            c <<= 4;
            if (h >= '0' && h <= '9') c |= h - '0';
            else if (h >= 'a' && h <= 'f') c |= h - 'a' + 10;
            else if (h >= 'A' && h <= 'F') c |= h - 'A' + 10;
            else return false;
        }
        return true;
    }
    bool str(std::string & o) {
        if (i >= s.size() || s[i] != '"') return false;
        i++;
        while (i < s.size()) {
            char c = s[i++];
            if (c == '"') return true;
            if (c != '\\') { o += c; continue; }
            if (i >= s.size()) return false;
            char e = s[i++];
            switch (e) {
                case '"': o += '"'; break; case '\\': o += '\\'; break; case '/': o += '/'; break;
                case 'b': o += '\b'; break; case 'f': o += '\f'; break; case 'n': o += '\n'; break;
                case 'r': o += '\r'; break; case 't': o += '\t'; break;
                case 'u': {
                    uint32_t c1;
                    if (!hex4(c1)) return false;
                    if (c1 >= 0xD800 && c1 < 0xDC00 && lit("\\u")) {
                        uint32_t c2;
                        if (!hex4(c2)) return false;
                        c1 = 0x10000 + ((c1 - 0xD800) << 10) + (c2 - 0xDC00);
                    }
                    utf8(o, c1);
                } break;
                default: return false;
            }
        }
        return false;
    }
    bool value(std::string * out_str, bool & was_str) {
        ws();
        was_str = false;
        if (i >= s.size()) return false;
        char c = s[i];
        if (c == '"') { std::string t; if (!str(t)) return false; if (out_str) *out_str = t; was_str = true; return true; }
        if (c == '{' || c == '[') {
            const char close = c == '{' ? '}' : ']';
            i++;
            ws();
            if (i < s.size() && s[i] == close) { i++; return true; }
            while (true) {
                bool dummy;
                if (close == '}') { ws(); std::string k; if (!str(k)) return false; ws(); if (i >= s.size() || s[i++] != ':') return false; }
                if (!value(nullptr, dummy)) return false;
                ws();
                if (i < s.size() && s[i] == ',') { i++; continue; }
                if (i < s.size() && s[i] == close) { i++; return true; }
                return false;
            }
        }
        if (lit("true") || lit("false") || lit("null")) return true;
        size_t st = i;
        while (i < s.size() && (isdigit((unsigned char) s[i]) || strchr("+-.eE", s[i]))) i++;
        return i > st;
    }
};

} // namespace

bool json_string_field(const std::string & line, const std::string & key, std::string & out, std::string & error) {
    Parser p{ line };
    p.ws();
    if (p.i >= line.size() || line[p.i] != '{') { error = "not a JSON object"; return false; }
    p.i++;
    bool found = false, found_str = false;
    p.ws();
    if (p.i < line.size() && line[p.i] == '}') { p.i++; }
    else {
        while (true) {
            p.ws();
            std::string k;
            if (!p.str(k)) { error = "invalid JSON (expected a key)"; return false; }
            p.ws();
            if (p.i >= line.size() || line[p.i++] != ':') { error = "invalid JSON (expected ':')"; return false; }
            bool was_str;
            std::string v;
            if (!p.value(k == key ? &v : nullptr, was_str)) { error = "invalid JSON value for key '" + k + "'"; return false; }
            if (k == key) { found = true; found_str = was_str; out = v; }
            p.ws();
            if (p.i < line.size() && line[p.i] == ',') { p.i++; continue; }
            if (p.i < line.size() && line[p.i] == '}') { p.i++; break; }
            error = "invalid JSON (expected ',' or '}')";
            return false;
        }
    }
    p.ws();
    if (p.i != line.size()) { error = "trailing characters after the JSON object"; return false; }
    if (!found) { error = "missing field '" + key + "'"; return false; }
    if (!found_str) { error = "field '" + key + "' is not a string"; return false; }
    return true;
}

TextDocs read_text_docs(const std::string & path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) throw std::runtime_error(path + ": " + (errno == ENOENT ? "file not found" : strerror(errno)));
    if (!(st.st_mode & S_IFREG)) throw std::runtime_error(path + ": not a regular file");
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open for reading");
    TextDocs r;
    const bool jsonl = path.size() >= 6 && (path.compare(path.size() - 6, 6, ".jsonl") == 0);
    if (!jsonl) {
        std::stringstream ss;
        ss << f.rdbuf();
        r.format = "plain-text";
        if (!ss.str().empty()) r.docs.push_back(ss.str());
    } else {
        r.format = "jsonl-text";
        std::string line, text, err;
        int n = 0;
        while (std::getline(f, line)) {
            n++;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (line.find_first_not_of(" \t") == std::string::npos) continue;
            text.clear();
            if (!json_string_field(line, "text", text, err)) {
                throw std::runtime_error(path + ":" + std::to_string(n) + ": " + err);
            }
            if (!text.empty()) r.docs.push_back(text);
        }
    }
    size_t total = 0;
    for (auto & d : r.docs) total += d.size();
    if (total == 0) throw std::runtime_error(path + ": the dataset is empty (no text to train on)");
    return r;
}
