// What hone-train reads as training data, decided from the file's name and its first line:
//   - JSONL whose lines hold "tokens" (already tokenized) or "text" (one document a line);
//   - any other text file: one plain-text document.
// Everything else is refused by name before anything is tokenized: JSON files, CSV/TSV,
// JSONL of chat or instruction records, binary files. Those are the dataset layer's, which
// renders examples through the model's chat template and masks the loss: `hone train`.
#pragma once

#include <string>
#include <vector>

enum class DataKind { PLAIN_TEXT, JSONL_TEXT, JSONL_TOKENS };

// Throws std::runtime_error naming the file (and line) and what reads it instead.
DataKind sniff_train_data(const std::string & path);

// "plain-text", "jsonl-text" or "jsonl-tokens": run.json's data.format.
const char * data_kind_name(DataKind k);

struct TextDocs {
    std::vector<std::string> docs;
    std::string format; // data_kind_name of the kind read
};

// The documents of a PLAIN_TEXT or JSONL_TEXT file. Throws std::runtime_error naming the file
// and line of any problem.
TextDocs read_text_docs(const std::string & path, DataKind kind);
