// HONE_METAL_OUT_PROD=0 sends OUT_PROD (every LoRA backward matmul) from the Metal GPU back to
// the CPU: the workaround should Metal's kernel (patch 0011) misbehave on some device. On by
// default; read once, before the backends load.
#pragma once

namespace hone {

// The switch's value: null, "" or "1" on, "0" off; anything else is an error naming it.
bool metal_out_prod_enabled(const char * value);

// The environment's setting (HONE_METAL_OUT_PROD), read once.
bool metal_out_prod_enabled();

// Tells ggml's Metal backend (GGML_METAL_NO_OUT_PROD) before it initialises; a no-op elsewhere.
void apply_metal_switches();

} // namespace hone
