// For tests only: the Metal backend's placement on a machine without a Mac. A CPU backend
// instance (refusing_backend.h) whose supports_op is the Metal backend's own acceptance
// (ggml_metal_supports_op, patch 0011: a pure function of the tensor and the GPU family's
// features), so a dry run's op report shows which training ops a Mac's GPU would run and
// which would fall back to the CPU, and why.
#pragma once

#include "ggml-backend.h"

#include <string>

namespace hone {

// The GPU families, by the features Metal's acceptance reads: "apple7" (M1 and later:
// simdgroup matrix multiply and reductions, bfloat), "metal3" (Intel and AMD Macs: reductions,
// bfloat), "apple6" (A13: bfloat only). An unknown name is an error listing these.
// The backend is named "MTL-RULES-<FAMILY>"; HONE_METAL_OUT_PROD=0 applies as on a Mac.
ggml_backend_t metal_rules_backend_init(const std::string & family, int n_threads);

} // namespace hone
