// What the operating system says about memory: how much the system can still give this
// process, and how much of this process is its own (anonymous) memory versus file pages
// such as the memory-mapped model weights.
#pragma once

#include <cstdint>

namespace hone {

// Bytes the system can give without swapping (Linux MemAvailable, macOS free + inactive +
// purgeable pages, Windows ullAvailPhys); 0 when unknown.
uint64_t system_available_bytes();

struct ProcessMemory {
    bool known = false;
    uint64_t own = 0;    // anonymous/private resident bytes: heap, buffers (Linux RssAnon)
    uint64_t mapped = 0; // resident file-backed bytes: mapped weights, binaries (Linux RssFile)
};

// Resident memory of this process now.
ProcessMemory process_memory();

} // namespace hone
