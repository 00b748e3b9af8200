#include "text_data.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>

namespace {

using json = nlohmann::json;

const char * const kReadsInstead =
    "hone-train reads plain text and JSONL with a \"text\" or \"tokens\" field per line; `hone train` reads chat, "
    "instruction, JSON and CSV datasets (it renders each example through the model's chat template)";

[[noreturn]] void refuse(const std::string & where, const std::string & what) {
    throw std::runtime_error(where + ": " + what + "; " + kReadsInstead);
}

bool ends_with(const std::string & s, const char * suffix) {
    const size_t n = strlen(suffix);
    if (s.size() < n) return false;
    for (size_t i = 0; i < n; i++) if (tolower((unsigned char) s[s.size() - n + i]) != suffix[i]) return false;
    return true;
}

// The record fields of the chat and instruction formats the dataset layer reads.
const char * chat_field(const json & o) {
    for (const char * k : { "messages", "conversations", "instruction", "prompt", "chosen", "question", "input", "output" }) {
        if (o.contains(k)) return k;
    }
    return nullptr;
}

// One JSONL line's object: its kind, or a refusal naming the line.
DataKind line_kind(const std::string & line, const std::string & where) {
    const json j = json::parse(line, nullptr, false);
    if (j.is_discarded()) throw std::runtime_error(where + ": invalid JSON");
    if (!j.is_object()) throw std::runtime_error(where + ": not a JSON object");
    if (j.contains("tokens")) return DataKind::JSONL_TOKENS;
    if (j.contains("text")) {
        if (!j["text"].is_string()) throw std::runtime_error(where + ": field 'text' is not a string");
        return DataKind::JSONL_TEXT;
    }
    if (const char * f = chat_field(j)) refuse(where, std::string("a chat or instruction record (field '") + f + "')");
    throw std::runtime_error(where + ": missing field 'text' (or 'tokens')");
}

// Removes a UTF-8 byte-order mark and a trailing CR: editors on Windows write both.
void clean_line(std::string & line, int n) {
    if (n == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);
    if (!line.empty() && line.back() == '\r') line.pop_back();
}

bool blank(const std::string & line) { return line.find_first_not_of(" \t") == std::string::npos; }

std::ifstream open_regular(const std::string & path) {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) throw std::runtime_error(path + ": " + (errno == ENOENT ? "file not found" : strerror(errno)));
    if (!S_ISREG(st.st_mode)) throw std::runtime_error(path + ": not a regular file");
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error(path + ": cannot open for reading");
    return f;
}

} // namespace

const char * data_kind_name(DataKind k) {
    static const char * const names[] = { "plain-text", "jsonl-text", "jsonl-tokens" }; // in DataKind's order
    return names[(int) k];
}

DataKind sniff_train_data(const std::string & path) {
    std::ifstream f = open_regular(path);
    if (ends_with(path, ".json")) refuse(path, "a JSON file");
    if (ends_with(path, ".csv") || ends_with(path, ".tsv")) refuse(path, "a CSV/TSV table");
    if (ends_with(path, ".parquet") || ends_with(path, ".gguf")) refuse(path, "a binary file");
    const bool jsonl = ends_with(path, ".jsonl");
    std::string line;
    for (int n = 1; std::getline(f, line); n++) {
        clean_line(line, n);
        if (line.find('\0') != std::string::npos) refuse(path + ":" + std::to_string(n), "a binary file (it holds NUL bytes)");
        if (blank(line)) continue;
        // a text file whose first line is a JSON object is JSONL by its content
        if (jsonl || line[line.find_first_not_of(" \t")] == '{') {
            const json j = json::parse(line, nullptr, false);
            if (jsonl || (j.is_object() && !j.is_discarded())) return line_kind(line, path + ":" + std::to_string(n));
        }
        return DataKind::PLAIN_TEXT;
    }
    throw std::runtime_error(path + ": the dataset is empty (no text to train on)");
}

TextDocs read_text_docs(const std::string & path, DataKind kind) {
    std::ifstream f = open_regular(path);
    TextDocs r;
    r.format = data_kind_name(kind);
    if (kind == DataKind::PLAIN_TEXT) {
        std::stringstream ss;
        ss << f.rdbuf();
        std::string text = ss.str();
        if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
        const size_t nul = text.find('\0');
        if (nul != std::string::npos) {
            const long line = 1 + (long) std::count(text.begin(), text.begin() + (long) nul, '\n');
            refuse(path + ":" + std::to_string(line), "a binary file (it holds NUL bytes)");
        }
        if (!text.empty()) r.docs.push_back(std::move(text));
    } else {
        std::string line;
        for (int n = 1; std::getline(f, line); n++) {
            clean_line(line, n);
            if (blank(line)) continue;
            const std::string where = path + ":" + std::to_string(n);
            if (line_kind(line, where) != DataKind::JSONL_TEXT) throw std::runtime_error(where + ": a 'tokens' record in a file of 'text' records");
            std::string text = json::parse(line)["text"].get<std::string>();
            if (!text.empty()) r.docs.push_back(std::move(text));
        }
    }
    size_t total = 0;
    for (auto & d : r.docs) total += d.size();
    if (total == 0) throw std::runtime_error(path + ": the dataset is empty (no text to train on)");
    return r;
}
