#include "stop_signals.h"

#include "hone.h"

#include <atomic>
#include <csignal>

namespace {
// A signal handler can reach nothing else: the one process-wide state of hone-train.
std::atomic<int> g_signals{ 0 };

extern "C" void on_signal(int sig) {
#ifdef _WIN32
    std::signal(sig, on_signal); // Windows resets the handler on delivery
#endif
    if (sig == SIGTERM) { int expected = 0; g_signals.compare_exchange_strong(expected, 1); return; }
    g_signals.fetch_add(1);
}
} // namespace

void install_stop_signals() {
#ifndef _WIN32
    struct sigaction sa = {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
#else
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
#endif
}

int32_t stop_request() {
    const int n = g_signals.load();
    return n == 0 ? HONE_TRAIN_CONTINUE : n == 1 ? HONE_TRAIN_STOP : HONE_TRAIN_PAUSE;
}
