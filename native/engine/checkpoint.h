// Checkpoints: everything a run needs to continue bit-for-bit, in one folder
// <root>/<step>/ (or <root>/<step>-<micro>/ for a pause in the middle of a step):
//   adapter.gguf    the adapter, as exported (llama.cpp loads it)
//   optimizer.gguf  AdamW moments (adamw_m.*, adamw_v.*) and, mid-step, the partial gradient (grad_acc.*)
//   state.json      step, micro-batch, AdamW update count, schedule, data order position and
//                   identity, train and adapter params, and the caller's config
// A checkpoint is written into <name>.tmp/, flushed to disk, then renamed: a process killed
// at any moment leaves complete checkpoints and, at worst, a stale .tmp folder.
#pragma once

#include "hone.h"
#include "run_position.h"

#include <nlohmann/json.hpp>

#include <string>

namespace hone {

class AdamW;

// What a checkpoint holds and fills: the adapter, the optimizer, where the run stands and the
// data it trains on; the base model, the train params and the caller's config identify the
// run (written, and compared on load).
struct CheckpointState {
    hone_adapter & adapter;
    AdamW & opt;
    RunPosition & pos;
    DataIdentity & data;
    const hone_model & model;
    const hone_train_params & params;
    const std::string & run_config;
};

// Writes the current state under root; returns the checkpoint's folder.
std::string save_checkpoint(const CheckpointState & st, const std::string & root);

// Loads a checkpoint into a freshly built trainer, after checking that its params, adapter
// shape and tensors match (every mismatch in one error).
void load_checkpoint(const CheckpointState & st, const std::string & dir);

// Starts a new schedule segment from a checkpoint at a step boundary: the adapter, the AdamW
// moments and update count carry over; the step count goes on from the checkpoint's, while the
// trainer's own params (steps or epochs, schedule, warm-up, data) describe the new segment.
void continue_from_checkpoint(const CheckpointState & st, const std::string & dir);

// Keeps the newest `keep` checkpoints under root (0: all) and removes stale temporary folders.
void prune_checkpoints(const std::string & root, int keep);

// state.json's contents for a run at `pos`, after `updates` AdamW updates, on data `d` with params `p`; `model` (the base's
// identity), `adapter` (its params) and `config` (the caller's) are written as given.
nlohmann::ordered_json encode_state(const hone_train_params & p, const RunPosition & pos, int64_t updates, const DataIdentity & d,
                                    const nlohmann::ordered_json & model, const nlohmann::ordered_json & adapter,
                                    const nlohmann::ordered_json & config);
// <dir>/state.json, parsed: fails (HONE_E_IO, HONE_E_FORMAT) for a missing folder or file, text
// that is not a JSON object (a truncated file), another format or another version.
nlohmann::ordered_json read_state(const std::string & dir);
// Where a checkpoint's run stood (checkpoints from before segments are segment 0), and the data
// it was trained on. A missing field or a wrong type throws nlohmann::json::exception.
RunPosition decode_position(const nlohmann::ordered_json & s);
DataIdentity decode_data(const nlohmann::ordered_json & s);
int64_t decode_updates(const nlohmann::ordered_json & s); // AdamW updates applied

// Fails unless `now` is the data (and planned step count) the checkpoint was trained on.
void check_same_data(const DataIdentity & saved, const DataIdentity & now);

} // namespace hone
