// Loading a model and an optional adapter for the checking subcommands (check-forward,
// check-grad, score): --model, --adapter, --threads and --backend (default cpu).
#pragma once

#include "args.h"

#include "hone.h"

#include <memory>

struct LoadedModel {
    std::unique_ptr<hone_model, void (*)(hone_model *)> model{ nullptr, hone_model_free };
    std::unique_ptr<hone_adapter, void (*)(hone_adapter *)> adapter{ nullptr, hone_adapter_free };
};

// On failure reports the error (text or JSON) and returns false; the exit code is 1.
bool load_model_and_adapter(const Args & a, bool json, LoadedModel & out);
