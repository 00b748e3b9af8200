// For tests only: a second CPU backend instance that presents itself as an accelerator and
// refuses a chosen list of ops. Scheduled before the real CPU backend, it takes every op it
// accepts, so the refused ones fall back to the CPU exactly as they would from a GPU whose
// supports_op says no: the op report's fallback path can be tested on any machine.
#pragma once

#include "ggml-backend.h"

#include <string>

namespace hone {

// The backend's name in reports and scheduler logs.
extern const char * const REFUSING_BACKEND_NAME;

// `ops`: comma-separated ggml op names ("OUT_PROD,SOFT_MAX_BACK"); an unknown name is an
// error naming it. Free the result with ggml_backend_free.
ggml_backend_t refusing_backend_init(const std::string & ops, int n_threads);

} // namespace hone
