#pragma once

#include <string>

int cmd_train(int argc, char ** argv);
int cmd_make_model(int argc, char ** argv);
int cmd_check_forward(int argc, char ** argv);
int cmd_check_grad(int argc, char ** argv);
int cmd_scan(int argc, char ** argv);
int cmd_architectures(int argc, char ** argv);
int cmd_probe_arch(int argc, char ** argv);
int cmd_render(int argc, char ** argv);
int cmd_score(int argc, char ** argv);
int cmd_merge(int argc, char ** argv);
int cmd_compare_logits(int argc, char ** argv);
int cmd_chat(int argc, char ** argv);

// The process's peak resident memory so far, in MiB (0 where unknown).
double peak_rss_mib();

// Prints an error as text, or as a JSON event when `json`; returns the exit code to use.
int report_error(bool json, const char * code, const std::string & message);
