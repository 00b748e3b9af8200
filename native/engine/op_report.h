// Where every op of the training graph runs, and why: built from the scheduler's real
// assignment and the backends' own supports_op, never from a hand-kept list.
#pragma once

#include "memory_plan.h"
#include "op_profile.h"

#include "ggml-backend.h"
#include "ggml.h"

#include <set>
#include <string>
#include <vector>

struct hone_model;

namespace hone {

// Gradient hygiene, found on the graph as built (before the scheduler rewrites sources to
// its copies between backends). Node indices into the forward + backward graph.
struct GradientWaste {
    // Forward nodes that have a gradient although they are neither trainable nor computed
    // from a trainable tensor.
    std::vector<int> forward;
    // Backward nodes from which no trainable tensor's gradient is computed.
    std::vector<int> backward;
};

GradientWaste find_gradient_waste(ggml_cgraph * graph, int n_forward_nodes, const std::set<const ggml_tensor *> & trainable);

struct OpReportInput {
    ggml_backend_sched_t sched = nullptr; // after split/alloc of `graph`
    ggml_cgraph * graph = nullptr;        // forward + backward
    ggml_cgraph * opt_graph = nullptr;    // optimizer steps (run on opt_backend), may be null
    ggml_backend_t opt_backend = nullptr;
    int n_forward_nodes = 0;              // the first n nodes of `graph` are the forward pass
    const hone_model * model = nullptr;
    std::set<const ggml_tensor *> trainable; // the adapter's tensors
    const MemoryPlan * memory = nullptr;     // the plan, with what was measured
    const OpProfile * profile = nullptr;     // per-node times (--profile), may be null
    bool dry_run = false;                    // scheduled but never allocated nor run
    const GradientWaste * waste = nullptr;   // from find_gradient_waste on the graph as built
};

// The report as a JSON document (schema: docs/ops-json.md).
std::string op_report_json(const OpReportInput & in);

} // namespace hone
