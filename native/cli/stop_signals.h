// Ctrl-C and SIGTERM for hone-train: the first asks the trainer to finish the current step,
// write a checkpoint and exit 0; a second Ctrl-C asks it to stop after the current
// micro-batch (a mid-step checkpoint) instead of waiting for the step to end.
#pragma once

#include <cstdint>

void install_stop_signals();

// A hone_train_control: HONE_TRAIN_CONTINUE, _STOP after one signal, _PAUSE after two.
int32_t stop_request();
