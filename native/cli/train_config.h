// hone-train's training configuration: one JSON object (keys are the option names with '_'
// for '-') that is resolved from defaults < checkpoint < command line, saved in every
// checkpoint and in run.json, and turned into the engine's params structs.
#pragma once

#include "args.h"

#include "hone.h"

#include <nlohmann/json.hpp>

#include <string>

using Config = nlohmann::ordered_json;

// Every option the training command accepts (for Args).
const std::set<std::string> & train_option_names();

// The effective configuration of a new run: the command line over the defaults.
Config resolve_config(const Args & a);

// The effective configuration of a resumed run: the checkpoint's configuration, with the
// command line allowed to change only what does not affect the result (output folder,
// backend, threads, evaluation and checkpoint intervals). Throws std::runtime_error listing
// every option that differs.
Config resolve_resumed_config(const Args & a, const std::string & checkpoint_dir);

hone_adapter_params adapter_params(const Config & c, uint32_t targets);
hone_train_params train_params(const Config & c);
