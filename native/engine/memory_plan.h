// The memory plan of a training run, from the real allocation sizes (the scheduler's
// measured compute buffers, the static buffers as allocated), never from a formula; the
// free memory of every backend's device; the refusal when it does not fit; and the peak
// measured while training, side by side with the plan.
#pragma once

#include "ggml-backend.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hone {

struct Backends;

// One allocation. `pool` is where its bytes come from: "CPU" for system memory (any host
// buffer, whichever backend computes in it), else the GPU backend's name.
struct MemoryItem {
    std::string what;    // weights, adapter, gradient_accumulators, optimizer_state, optimizer_graphs,
                         // compute_buffer, cpu_work_buffer
    std::string backend; // for compute buffers and work buffers: the backend using it
    std::string pool;
    uint64_t bytes = 0;
    bool mapped = false;  // a read-only file mapping (CPU weights): page cache, not the process's own memory
    bool trainer = false; // allocated by the trainer (counted against the free memory); else already resident
};

struct MemoryPool {
    std::string name;
    uint64_t plan_bytes = 0;     // the trainer's allocations here (what must still fit)
    uint64_t resident_bytes = 0; // already resident before the trainer: weights (not mapped), adapter
    uint64_t mapped_bytes = 0;   // memory-mapped weights
    uint64_t free_bytes = 0;     // the device's free memory when planned (CPU: the system's available memory); 0: unknown
    uint64_t total_bytes = 0;    // the device's total memory; 0: unknown
    uint64_t limit_bytes = 0;    // what the plan may use: free_bytes, or the caller's limit when lower
    bool fits = true;
    // Measured while training (0 and measured = false until a step ran).
    bool measured = false;
    uint64_t baseline = 0;       // CPU: own resident bytes when planned; GPU: free bytes when planned
    uint64_t peak_bytes = 0;     // CPU: peak own resident bytes above the baseline; GPU: the largest drop in free memory
    uint64_t peak_mapped = 0;    // CPU: the most file-backed resident bytes seen (the mapped weights and binaries)
    ggml_backend_dev_t dev = nullptr; // GPU pools: the device asked for free memory
};

struct MemoryPlan {
    std::vector<MemoryItem> items;
    std::vector<MemoryPool> pools;
    int64_t limit = 0; // the caller's limit per pool (0: none)
    // The memory mode the trainer chose: "plain", "selective" or "recompute" (recomputation of
    // every layer), and why (asked for, or the cheaper modes' plans did not fit)
    std::string mode = "plain", mode_reason = "the plain graph fits";
    // The micro-batch (rows a micro-batch holds) and why: asked for, or the automatic choice
    int ubatch = 0;
    std::string ubatch_reason = "asked for";
};

// What the plan measures: the buffers as allocated, the scheduler that will run the training
// graph (its split sizes each backend's compute buffer) and the optimizer's graphs.
struct PlanBuffers {
    ggml_backend_buffer_t weights = nullptr;
    bool weights_mapped = false;          // a read-only file mapping (CPU weights)
    ggml_backend_buffer_t adapter = nullptr;
    ggml_backend_buffer_t grad_accs = nullptr;
    ggml_backend_buffer_t opt_state = nullptr;
    uint64_t optimizer_graph_bytes = 0;   // the optimizer's own graphs (computed on the primary backend)
    std::vector<const ggml_cgraph *> optimizer_graphs; // they share the primary CPU backend's work buffer
};
struct PlanGraph {
    ggml_backend_sched_t sched = nullptr; // fresh: reserving sizes its buffers without allocating
    ggml_cgraph * graph = nullptr;        // the training graph (evaluation's forward is a subset)
    int n_threads = 1;
};
// The run's shape, for the refusal's advice on what to lower.
struct PlanShape {
    int n_ctx = 0, n_ubatch = 0, rank = 0;
    size_t n_targets = 0;
    bool recompute = false; // activation recomputation already on: not advised again
};

// Captures every pool's free memory and the process's own memory before the trainer
// allocates anything (the baselines of the plan's fit check and of the measured peak).
MemoryPlan start_memory_plan(const Backends & backends, int64_t limit_bytes);

// Adds the buffers' sizes and the compute buffers the scheduler's split asks for.
void finish_memory_plan(MemoryPlan & plan, const Backends & backends, const PlanBuffers & buffers, const PlanGraph & g);

// One line of what the plan puts in each pool, for the report of a run that dies mid-way.
std::string memory_plan_line(const MemoryPlan & plan, const PlanShape & shape);

// Whether every pool's plan fits its limit (free memory or the caller's).
bool plan_fits(const MemoryPlan & plan);

// "CUDA0: 23456.0 MiB planned, 20000.0 MiB free" for the first pool that does not fit ("" if all do).
std::string plan_overflow(const MemoryPlan & plan);

// HONE_E_MEMORY naming the sizes and what to lower, when a pool does not fit.
void check_plan_fits(const MemoryPlan & plan, const PlanShape & shape);

// Records the current memory use into the plan's measured fields (call after compute).
void sample_memory(MemoryPlan & plan);

// JSON arrays of ops.json's and run.json's "memory" object (docs/ops-json.md).
std::string memory_items_json(const MemoryPlan & plan);
std::string memory_backends_json(const MemoryPlan & plan);

} // namespace hone
