// ggml ends the process when it cannot go on (a CUDA allocation that fails inside a kernel
// launch, a broken assertion): nothing can be caught or unwound. This leaves a clear last word
// first: what failed, on which device, the devices' free memory and the memory plan of the run,
// as one line on stderr and, when HONE_FATAL_FILE names a file, as JSON for the parent to show
// ({code, message, detail}). The run's checkpoints stay: it resumes from the newest.
#pragma once

#include <string>

namespace hone {

// Installs the reporter as ggml's abort callback (once per process; the abort still happens).
void install_fatal_report();

// ggml's and llama.cpp's error log lines (the CUDA error text comes as a log line before the
// abort); the last few are kept for the report.
void note_error_log(const char * text);

// What the run in progress planned per memory pool (one line), or "" when none runs.
void set_fatal_context(const std::string & memory_plan_line);

} // namespace hone
