// Test-only entry points of the engine, kept out of the public hone.h: hooks that make
// behaviour visible which no real model or machine triggers on demand. Used by hone-train's
// --test-* options, the Node binding's testRefuseOps and hone-train's gradient and forward
// checks; never by the app in normal use.
#pragma once

#include "hone.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char * refuse_ops;   // comma-separated ggml op names: schedule a CPU backend instance that refuses
                               // them before the real backends, so CPU fallbacks can be seen without a GPU
    const char * frozen_param; // name of a base tensor (F32/F16) to mark trainable, to show the gradient-waste
                               // detector at work; dry runs only (the base is never updated)
    const char * metal_rules;  // a Metal GPU family ("apple7", "metal3", "apple6"): schedule a CPU backend instance
                               // that accepts exactly what Metal would there, to see a Mac's placement anywhere
    int head_chunk_rows;       // > 0: with recomputation, the head's chunks of this many rows instead of the
                               // vocabulary's (a small vocabulary never needs chunks)
} hone_train_test_hooks;

// hone_trainer_init with test hooks (NULL, or NULL fields: none).
hone_status hone_trainer_init_test(hone_model * model, hone_adapter * adapter, const hone_train_params * params,
                                   const hone_train_test_hooks * hooks, hone_trainer ** out, hone_error * err);

// Adds gaussian noise of stddev `sigma` to every B (a B of zero gives dL/dA = 0, so gradient
// and forward checks need a B that is not).
void hone_adapter_perturb_b(hone_adapter * adapter, float sigma, uint64_t seed);

#ifdef __cplusplus
}
#endif
