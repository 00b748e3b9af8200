// run.json, schema "hone.run/1" (docs/run-json.md): the one document a finished or stopped run
// leaves, written by hone-train here and by the app's engine host with the same fields.
#pragma once

#include "train_config.h"

#include "hone.h"

#include <string>

struct RunOutcome {
    bool stopped = false;
    std::string resumed_from, last_checkpoint, adapter_path, data_format;
    int64_t sequences = 0, eval_sequences = 0;
    hone_step_event last{};
    bool has_eval = false;
    float eval_loss = 0;
    int32_t steps = 0;
    double peak_rss_mib = 0;
};

// hone-train's resolved configuration (snake_case keys) as the contract's options (camelCase,
// electron/common's TrainConfig names and types): run.json's "config", and config.json.
Config contract_config(const Config & cfg, const hone_train_params & tp);

// `cfg` is hone-train's resolved configuration (snake_case keys); the document's config uses the
// contract's camelCase option names (electron/common's TrainConfig) with their types.
std::string run_json(const Config & cfg, const hone_train_params & tp, const hone_model_info & info, int64_t adapter_params,
                     const Config & memory, const RunOutcome & r);
