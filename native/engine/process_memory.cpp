#include "process_memory.h"

#include <cstdio>
#include <cstring>

#if defined(__APPLE__)
#include <mach/mach.h>
#include <sys/sysctl.h>
#elif defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <psapi.h>
#ifdef _MSC_VER
#pragma comment(lib, "psapi.lib")
#endif
#endif

namespace hone {

#if defined(__linux__)
// The value in kB of `key:` in a /proc file, in bytes; 0 when absent.
static uint64_t proc_kb(const char * path, const char * key) {
    FILE * f = fopen(path, "r");
    if (!f) return 0;
    char line[256];
    uint64_t v = 0;
    const size_t n = strlen(key);
    while (fgets(line, sizeof(line), f)) {
        unsigned long long kb = 0;
        if (strncmp(line, key, n) == 0 && line[n] == ':' && sscanf(line + n + 1, "%llu", &kb) == 1) { v = kb * 1024ull; break; }
    }
    fclose(f);
    return v;
}
#endif

uint64_t system_available_bytes() {
#if defined(__linux__)
    return proc_kb("/proc/meminfo", "MemAvailable");
#elif defined(__APPLE__)
    vm_statistics64_data_t vs;
    mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
    if (host_statistics64(mach_host_self(), HOST_VM_INFO64, (host_info64_t) &vs, &count) != KERN_SUCCESS) return 0;
    vm_size_t page = 0;
    host_page_size(mach_host_self(), &page);
    return (uint64_t) (vs.free_count + vs.inactive_count + vs.purgeable_count) * page;
#elif defined(_WIN32)
    MEMORYSTATUSEX ms;
    ms.dwLength = sizeof(ms);
    return GlobalMemoryStatusEx(&ms) ? (uint64_t) ms.ullAvailPhys : 0;
#else
    return 0;
#endif
}

ProcessMemory process_memory() {
    ProcessMemory pm;
#if defined(__linux__)
    pm.own = proc_kb("/proc/self/status", "RssAnon") + proc_kb("/proc/self/status", "RssShmem");
    pm.mapped = proc_kb("/proc/self/status", "RssFile");
    pm.known = pm.own > 0;
#elif defined(__APPLE__)
    // phys_footprint counts the process's own dirty memory, not clean mapped file pages.
    task_vm_info_data_t vi;
    mach_msg_type_number_t count = TASK_VM_INFO_COUNT;
    if (task_info(mach_task_self(), TASK_VM_INFO, (task_info_t) &vi, &count) == KERN_SUCCESS) {
        pm.own = vi.phys_footprint;
        pm.mapped = vi.resident_size > vi.phys_footprint ? vi.resident_size - vi.phys_footprint : 0;
        pm.known = true;
    }
#elif defined(_WIN32)
    PROCESS_MEMORY_COUNTERS_EX pc;
    if (GetProcessMemoryInfo(GetCurrentProcess(), (PROCESS_MEMORY_COUNTERS *) &pc, sizeof(pc))) {
        pm.own = pc.PrivateUsage; // committed private bytes (resident or paged out)
        pm.mapped = pc.WorkingSetSize > pc.PrivateUsage ? pc.WorkingSetSize - pc.PrivateUsage : 0;
        pm.known = true;
    }
#endif
    return pm;
}

} // namespace hone
