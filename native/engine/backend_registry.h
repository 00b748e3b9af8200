// ggml's backends, ready before any device is listed: registered at link time in a local build,
// loaded from shared libraries beside the engine in a distributable one (GGML_BACKEND_DL).
#pragma once

#include "ggml-backend.h"
#include "hone_tools.h"

namespace hone {

// ensure_backends() is exported to the tools (hone_tools.h).

// A CPU backend through ggml's registry (no link to ggml-cpu, which a DL build loads at run time).
ggml_backend_t cpu_backend_init(int n_threads);

// True for a backend on the CPU device (ggml_backend_is_cpu without linking ggml-cpu).
bool is_cpu_backend(ggml_backend_t backend);

// The CPU backend's work buffer for `graph` (ggml_graph_plan's work_size), found in the loaded
// CPU library in a DL build; 0 when it cannot be found there.
size_t cpu_graph_work_size(const ggml_cgraph * graph, int n_threads);

} // namespace hone
