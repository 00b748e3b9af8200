// Matrix-product precision on the GPU (hone patch 0003's and 0008's switches).
#pragma once

#include <string>

namespace hone {

// "bf16" (the default): on CUDA, a quantized weight times a whole micro-batch is dequantized to
// BF16 and multiplied on tensor cores with F32 accumulation (patch 0003) instead of by MMQ's
// int8 tiles, and fused attention's backward multiplies in BF16 (patch 0008). "f32": ggml's
// own choice (MMQ) and the attention backward on TF32 tensor cores. Other F32 operands are the
// same in both (cuBLAS on TF32 tensor cores). Other backends ignore it; an unknown value is an
// invalid-argument error.
// The CUDA backend reads the switch from the environment on every product, so this sets it
// for the process: the engine host trains one model at a time.
void apply_gpu_precision(const std::string & precision, bool cuda);

} // namespace hone
