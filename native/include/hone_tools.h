// What the engine exports on purpose for its tools beyond hone.h: the gradient check
// (`hone-train check-grad`), the architecture scan (`scan`, `probe-arch` and the refusal of an
// untrainable model), calls isolated in a child process, and the backend loading a tool needs
// before it loads a model with llama.cpp itself. C++, for hone-train; the app uses hone.h only.
#pragma once

#include "hone.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace hone {

// ---- gradient check (gradcheck.cpp) ---------------------------------------------------------
// Finite-difference check of the training graph's gradients with respect to LoRA A and B.

struct GradCheckEntry {
    std::string tensor;   // e.g. "blk.0.attn_q.weight.lora_a"
    int64_t index = 0;    // flat element index
    double analytic = 0;  // the backward pass's gradient (F32)
    double numeric = 0;   // central difference of the loss at step eps, loss computed in float64 from the logits
    double numeric_half = 0; // the same at step eps / 2: their difference is the numeric side's own error
    // set by judge_gradients:
    double rel_error = 0; // |analytic - numeric| / max(|analytic|, |numeric|) (reported; not the criterion)
    double tolerance = 0; // allowed |analytic - numeric|: rtol * |numeric| + atol (see judge_gradients)
    bool checked = false; // false: both below the floor, excluded from the bound
    bool pass = false;    // |analytic - numeric| <= tolerance (always true when not checked)
};

struct GradCheckParams {
    std::vector<int> layers;   // which layers' adapter tensors to sample
    int elements = 4;          // random elements per sampled tensor
    uint64_t seed = 1;
    float eps = 1e-2f;         // finite-difference step (F32 logits: smaller steps drown in rounding)
    double floor = 1e-3;       // |gradient| below this is noise-dominated: excluded
};

struct GradCheckResult {
    std::vector<GradCheckEntry> entries;
    bool quantized_base = false; // the numeric side ran on dequantized copies of the weights
};

GradCheckResult grad_check(hone_model & m, hone_adapter & ad, const std::vector<int32_t> & tokens, const GradCheckParams & p);

// The per-element criterion on an F32 base: |a - n| <= rtol * |n| + atol_k, where
// atol_k = 2 * max(d_k, rms(d)) and d_k = |n_k(eps) - n_k(eps / 2)|. A central difference has
// two errors of its own, F32 rounding of the loss (growing as 1/eps) and truncation (as eps^2);
// the two steps' disagreement measures both on this machine and build, and neither depends on
// the backward pass, so a wrong gradient still fails. The rms over the check floors d_k where
// the two noisy estimates agree by chance; d_k itself covers strongly curved elements.
// Elements with max(|a|, |n|) below `floor` are not checked. Returns atol's floor (2 * rms(d));
// sets every entry's checked, rel_error, tolerance and pass.
double judge_gradients(std::vector<GradCheckEntry> & entries, double rtol, double floor);

// ---- architecture scan (arch_scan.cpp) ------------------------------------------------------
// Which architectures can train: run llama.cpp's own inference graph for a model once and
// list the ops in it that ggml cannot differentiate.

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

// ---- isolated calls (isolated_run.cpp) ------------------------------------------------------
// Code that may end the process on input it does not check runs in a child process, so that a
// crash becomes a message: llama.cpp's loader and graph builder abort, divide by zero or read a
// null tensor on some malformed models (an expert count of 0, an optional tensor the graph then
// needs), and the architecture scan runs them on any model a user names.

struct IsolatedResult {
    bool crashed = false; // the call ended its process (a signal, an abort, an exit)
    std::string output;   // what the call returned, when it did not crash
    std::string how;      // when it crashed: "segmentation fault", "abort: GGML_ASSERT(...) failed", ...
};

// Runs fn in a forked child (POSIX) and returns what it returned, or how the child died; the
// child's stderr is kept from the terminal and read for an assertion's text. Where fork does
// not exist (Windows) fn runs in this process, unprotected.
IsolatedResult run_isolated(const std::function<std::string()> & fn);

// ---- backends (backend_registry.cpp) --------------------------------------------------------
// Loads the backend libraries once when none is registered yet (a GGML_BACKEND_DL build): from
// $HONE_BACKEND_DIR, else the folder of the module holding the engine (hone.node or hone-train).
void ensure_backends();

// ---- paths (utf8_path.cpp) ----------------------------------------------------------------
// Paths cross the engine's API as UTF-8 (as ggml's own file functions take them). On Windows,
// std::filesystem reads and writes a narrow string in the C library's code page, not UTF-8, so
// a folder named outside it would be garbled: every conversion between the two goes through these.
std::filesystem::path utf8_path(const std::string & s);
std::string utf8_string(const std::filesystem::path & p);

} // namespace hone
