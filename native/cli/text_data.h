// Training text for hone-train: a plain-text file (one document) or JSONL with a "text"
// field per line (one document each). The full dataset layer lives in TypeScript; this
// covers headless runs and benchmarks.
#pragma once

#include <string>
#include <vector>

struct TextDocs {
    std::vector<std::string> docs;
    std::string format; // "plain-text" or "jsonl-text"
};

// Throws std::runtime_error naming the file and line of any problem.
TextDocs read_text_docs(const std::string & path);

// Extracts the top-level string field `key` of one JSON object line. Returns false with
// `error` set when the line is not valid JSON or the field is missing / not a string.
bool json_string_field(const std::string & line, const std::string & key, std::string & out, std::string & error);
