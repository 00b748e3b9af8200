// --profile: per-node wall time of the training graph. The scheduler then computes one node
// at a time and waits for it (its eval callback), so a profiled step is slower: only every
// other step is profiled, and the report compares the two kinds of step to say by how much.
#pragma once

#include "ggml-backend.h"

#include <chrono>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace hone {

struct OpProfile {
    struct Time { int64_t runs = 0; double seconds = 0.0; };
    std::unordered_map<const ggml_tensor *, Time> by_node;
    std::vector<double> profiled_steps, plain_steps; // seconds per optimizer step (first step of a process left out)
    std::chrono::steady_clock::time_point last;

    // ggml_backend_sched_eval_callback: `ask` marks a node's start, the answer its end.
    static bool on_node(ggml_tensor * t, bool ask, void * user_data);
    // Whether the 0-based step `step` is profiled.
    static bool profiles(int64_t step) { return step % 2 == 1; }
    void record_step(int64_t step, bool first_in_process, double seconds);
};

} // namespace hone
