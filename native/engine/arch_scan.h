// Which architectures can train: run llama.cpp's own inference graph for a model once and
// list the ops in it that ggml cannot differentiate.
#pragma once

#include <string>
#include <vector>

namespace hone {

struct ArchScan {
    std::string arch;
    bool graph_built = false;             // llama.cpp loaded the model and ran its graph
    std::string error;                    // why not, when !graph_built
    std::vector<std::string> ops;         // every op in the graph (GLU/UNARY by their own names)
    std::vector<std::string> no_backward; // of those, the ones ggml has no backward for
};

// Loads the model with llama.cpp (CPU, weights mapped) and decodes two tokens, recording the
// op of every node on the path to the logits. K/V cache writes (SET_ROWS, CPY, a PAD of
// narrower V rows) are off that path, as they should be: Hone's training graph attends over the
// micro-batch's own K and V instead.
ArchScan scan_architecture(const std::string & path);

// "architecture X cannot train yet: op Y has no backward" (or why the scan could not run).
std::string describe_scan(const ArchScan & s);

} // namespace hone
