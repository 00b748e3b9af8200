#include "backend_registry.h"

#include "metal_switch.h"

#include "ggml-cpu.h"

#include <cstdlib>
#include <mutex>
#include <string>

#ifdef _WIN32
#  define WIN32_LEAN_AND_MEAN
#  include <windows.h>
#else
#  include <dlfcn.h>
#endif

namespace hone {

// The folder of the binary this code is part of (the addon inside an app is not beside the
// executable, so the process's own folder would be the wrong place to look).
static std::string own_folder() {
#ifdef _WIN32
    HMODULE self = nullptr;
    if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                            reinterpret_cast<LPCWSTR>(&own_folder), &self)) return "";
    wchar_t wide[32768];
    const DWORD n = GetModuleFileNameW(self, wide, (DWORD) (sizeof(wide) / sizeof(wide[0])));
    if (n == 0 || n >= sizeof(wide) / sizeof(wide[0])) return "";
    const int bytes = WideCharToMultiByte(CP_UTF8, 0, wide, (int) n, nullptr, 0, nullptr, nullptr);
    std::string path((size_t) bytes, '\0');
    WideCharToMultiByte(CP_UTF8, 0, wide, (int) n, path.data(), bytes, nullptr, nullptr);
    const size_t slash = path.find_last_of("\\/");
#else
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void *>(&own_folder), &info) || !info.dli_fname) return "";
    const std::string path = info.dli_fname;
    const size_t slash = path.find_last_of('/');
#endif
    return slash == std::string::npos ? "" : path.substr(0, slash);
}

void ensure_backends() {
    static std::once_flag once;
    std::call_once(once, [] {
        apply_metal_switches(); // before any backend initialises (Metal reads its switches once)
        if (ggml_backend_reg_count() > 0) return; // linked in: nothing to load
        const char * env = std::getenv("HONE_BACKEND_DIR");
        const std::string dir = env && *env ? env : own_folder();
        ggml_backend_load_all_from_path(dir.empty() ? nullptr : dir.c_str());
    });
}

ggml_backend_t cpu_backend_init(int n_threads) {
    ensure_backends();
    ggml_backend_t cpu = ggml_backend_init_by_type(GGML_BACKEND_DEVICE_TYPE_CPU, nullptr);
    if (!cpu) return nullptr;
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(cpu));
    auto set_threads = (ggml_backend_set_n_threads_t) ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_n_threads");
    if (set_threads) set_threads(cpu, n_threads);
    return cpu;
}

bool is_cpu_backend(ggml_backend_t backend) {
    ggml_backend_dev_t dev = backend ? ggml_backend_get_device(backend) : nullptr;
    return dev && ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_CPU;
}

size_t cpu_graph_work_size(const ggml_cgraph * graph, int n_threads) {
#ifndef GGML_BACKEND_DL
    return ggml_graph_plan(graph, n_threads, nullptr).work_size;
#else
    // ggml_graph_plan lives in whichever CPU variant was loaded: find that library through a
    // function the registry hands out, then the export by name
    using plan_fn = ggml_cplan (*)(const ggml_cgraph *, int, ggml_threadpool *);
    static plan_fn plan = [] () -> plan_fn {
        ensure_backends();
        ggml_backend_dev_t dev = ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU);
        if (!dev) return nullptr;
        void * inside = ggml_backend_reg_get_proc_address(ggml_backend_dev_backend_reg(dev), "ggml_backend_set_n_threads");
        if (!inside) return nullptr;
#  ifdef _WIN32
        HMODULE lib = nullptr;
        if (!GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT, reinterpret_cast<LPCWSTR>(inside), &lib)) return nullptr;
        return reinterpret_cast<plan_fn>(GetProcAddress(lib, "ggml_graph_plan"));
#  else
        Dl_info info{};
        if (!dladdr(inside, &info) || !info.dli_fname) return nullptr;
        void * lib = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
        return lib ? reinterpret_cast<plan_fn>(dlsym(lib, "ggml_graph_plan")) : nullptr;
#  endif
    }();
    return plan ? plan(graph, n_threads, nullptr).work_size : 0;
#endif
}

} // namespace hone
