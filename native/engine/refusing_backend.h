// For tests only: a second CPU backend instance that presents itself as an accelerator and
// accepts only the ops a rule lets through. Scheduled before the real CPU backend, it takes
// every op it accepts, so the others fall back to the CPU exactly as they would from a GPU
// whose supports_op says no: the op report's fallback path, and another backend's placement
// rules (metal_rules_backend.h), can be tested on any machine.
#pragma once

#include "ggml-backend.h"

#include <functional>
#include <string>

namespace hone {

// The name of the backend that refuses a list of ops, in reports and scheduler logs.
extern const char * const REFUSING_BACKEND_NAME;

// A CPU backend instance named `name` whose supports_op is `accepts` (and the CPU's own).
// Free the result with ggml_backend_free.
ggml_backend_t filtering_backend_init(const std::string & name, const std::string & description,
                                      std::function<bool(const ggml_tensor *)> accepts, int n_threads);

// `ops`: comma-separated ggml op names ("OUT_PROD,SOFT_MAX_BACK"); an unknown name is an
// error naming it.
ggml_backend_t refusing_backend_init(const std::string & ops, int n_threads);

} // namespace hone
