#include "fatal_report.h"

#include "hone_json.h"

#include "ggml-backend.h"
#include "ggml.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace hone {

// Fixed storage: the report is written while the process is failing, so it allocates little.
static const int KEPT_LINES = 6;
static char g_lines[KEPT_LINES][512];
static int g_next_line = 0;
static std::mutex g_lines_mutex;
static std::string g_plan;
static std::mutex g_plan_mutex;

void note_error_log(const char * text) {
    if (!text || !*text || std::strcmp(text, "\n") == 0) return;
    std::lock_guard<std::mutex> lock(g_lines_mutex);
    while (*text == ' ') text++; // ggml indents its follow-up lines
    std::snprintf(g_lines[g_next_line % KEPT_LINES], sizeof(g_lines[0]), "%s", text);
    char * nl = std::strchr(g_lines[g_next_line % KEPT_LINES], '\n');
    if (nl) *nl = '\0';
    g_next_line++;
}

void set_fatal_context(const std::string & memory_plan_line) {
    std::lock_guard<std::mutex> lock(g_plan_mutex);
    g_plan = memory_plan_line;
}

static bool contains_ci(const std::string & hay, const char * needle) {
    std::string h = hay, n = needle;
    for (char & c : h) c = (char) std::tolower((unsigned char) c);
    for (char & c : n) c = (char) std::tolower((unsigned char) c);
    return h.find(n) != std::string::npos;
}

static std::string gib(size_t b) {
    char s[32];
    std::snprintf(s, sizeof(s), "%.2f GiB", (double) b / (1024.0 * 1024.0 * 1024.0));
    return s;
}

static void on_abort(const char * message) {
    // the last error lines, oldest first (the CUDA error, its device and call come this way)
    std::string log_text;
    std::vector<std::string> log_lines;
    {
        std::lock_guard<std::mutex> lock(g_lines_mutex);
        const int n = g_next_line < KEPT_LINES ? g_next_line : KEPT_LINES;
        for (int i = g_next_line - n; i < g_next_line; i++) {
            const char * l = g_lines[i % KEPT_LINES];
            log_text += std::string(log_text.empty() ? "" : " | ") + l;
            log_lines.push_back(l);
        }
    }
    const std::string all = log_text + " " + (message ? message : "");
    // CUDA's and cuBLAS's words for an allocation that failed (cuBLAS says "the resource
    // allocation failed" when the card is full as it creates its handle)
    const bool oom = contains_ci(all, "out of memory") || contains_ci(all, "resource allocation failed") ||
                     contains_ci(all, "CUBLAS_STATUS_ALLOC_FAILED") || contains_ci(all, "cudaErrorMemoryAllocation");
    // which device: ggml's CUDA errors say "current device: N"
    std::string device;
    const size_t at = all.find("current device: ");
    if (at != std::string::npos) device = "CUDA" + std::to_string(std::atoi(all.c_str() + at + 16));

    std::string memory, devices_json;
    for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
        ggml_backend_dev_t dev = ggml_backend_dev_get(i);
        if (ggml_backend_dev_type(dev) != GGML_BACKEND_DEVICE_TYPE_GPU) continue;
        size_t free = 0, total = 0;
        ggml_backend_dev_memory(dev, &free, &total);
        memory += std::string(memory.empty() ? "" : "; ") + ggml_backend_dev_name(dev) + " " + gib(free) + " free of " + gib(total);
        devices_json += std::string(devices_json.empty() ? "" : ",") + JsonObject()
            .str("name", ggml_backend_dev_name(dev)).integer("free_bytes", (long long) free).integer("total_bytes", (long long) total).dump();
    }
    std::string plan;
    {
        std::lock_guard<std::mutex> lock(g_plan_mutex);
        plan = g_plan;
    }

    std::string text = oom ? (device.empty() ? "a device" : device) + " ran out of memory during training" : "the engine stopped on an internal error";
    text += " (" + (log_text.empty() ? std::string(message ? message : "") : log_text) + ")";
    if (!memory.empty()) text += "; now " + memory;
    if (!plan.empty()) text += "; the run planned " + plan;
    const std::string where = device.empty() ? "the device" : device;
    text += oom ? ". Resume the run from its newest checkpoint once other programs use less of " + where +
                      "'s memory, or start it again with a smaller context, micro-batch or rank"
                : ". Resume the run from its newest checkpoint; please report this error";
    std::fprintf(stderr, "hone: fatal: %s\n", text.c_str());
    std::fflush(stderr);

    const char * file = std::getenv("HONE_FATAL_FILE");
    if (file && *file) {
        FILE * f = std::fopen(file, "w");
        if (f) {
            const std::string detail = JsonObject().raw("log", json_string_array(log_lines)).raw("devices", "[" + devices_json + "]")
                .str("plan", plan).str("device", device).str("abort", message ? message : "").dump();
            const std::string report = JsonObject().str("code", oom ? "out_of_memory" : "internal").str("message", text).raw("detail", detail).dump();
            std::fprintf(f, "%s\n", report.c_str());
            std::fclose(f);
        }
    }
}

void install_fatal_report() {
    static std::once_flag once;
    std::call_once(once, [] { ggml_set_abort_callback(on_abort); });
}

} // namespace hone
