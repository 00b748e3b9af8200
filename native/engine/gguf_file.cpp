#include "gguf_file.h"

#include "error.h"
#include "ggml.h"
#include "hone_tools.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>
#include <sys/stat.h>

#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace hone {

// std::filesystem rather than stat: wide paths on Windows, whatever the process's code page
static uint64_t file_size_or_fail(const std::string & path) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::status(utf8_path(path), ec);
    if (!std::filesystem::exists(st)) fail(HONE_E_IO, "%s: %s", path.c_str(), ec && ec != std::errc::no_such_file_or_directory ? ec.message().c_str() : "file not found");
    if (!std::filesystem::is_regular_file(st)) fail(HONE_E_IO, "%s: not a regular file", path.c_str());
    const uintmax_t size = std::filesystem::file_size(utf8_path(path), ec);
    if (ec) fail(HONE_E_IO, "%s: %s", path.c_str(), ec.message().c_str());
    return (uint64_t) size;
}

gguf_context * open_gguf_checked(const std::string & path, ggml_context ** meta) {
    const uint64_t size = file_size_or_fail(path);
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(HONE_E_IO, "%s: cannot open for reading: %s", path.c_str(), strerror(errno));
    char head[8] = {0};
    f.read(head, sizeof(head));
    if (f.gcount() < 4 || memcmp(head, "GGUF", 4) != 0) {
        fail(HONE_E_FORMAT, "%s: not a GGUF file (the first bytes are not 'GGUF')", path.c_str());
    }
    if (f.gcount() < 8) fail(HONE_E_FORMAT, "%s: truncated GGUF file (%llu bytes)", path.c_str(), (unsigned long long) size);
    uint32_t version;
    memcpy(&version, head + 4, 4);
    if (version < 2) {
        fail(HONE_E_FORMAT, "%s: GGUF version %u is too old (this build reads versions 2 and 3; re-convert the model)", path.c_str(), version);
    }
    if (version > GGUF_VERSION) {
        fail(HONE_E_FORMAT, "%s: GGUF version %u is newer than this build supports (%d)", path.c_str(), version, GGUF_VERSION);
    }

    gguf_init_params params = { /*no_alloc =*/ true, /*ctx =*/ meta };
    gguf_context * ctx = gguf_init_from_file(path.c_str(), params);
    if (!ctx) {
        fail(HONE_E_FORMAT, "%s: corrupt or truncated GGUF header (%llu bytes): llama.cpp's reader rejected it", path.c_str(), (unsigned long long) size);
    }
    const uint64_t data_off = gguf_get_data_offset(ctx);
    for (int64_t i = 0; i < gguf_get_n_tensors(ctx); i++) {
        const uint64_t end = data_off + gguf_get_tensor_offset(ctx, i) + gguf_get_tensor_size(ctx, i);
        if (end > size) {
            std::string name = gguf_get_tensor_name(ctx, i);
            gguf_free(ctx);
            if (meta && *meta) { ggml_free(*meta); *meta = nullptr; }
            fail(HONE_E_FORMAT, "%s: truncated GGUF file: tensor '%s' ends at byte %llu but the file has %llu bytes",
                 path.c_str(), name.c_str(), (unsigned long long) end, (unsigned long long) size);
        }
    }
    return ctx;
}

FileFingerprint gguf_fingerprint(const std::string & path, const gguf_context * g) {
    FileFingerprint fp;
    fp.size = file_size_or_fail(path);
    std::ifstream f(path, std::ios::binary);
    if (!f) fail(HONE_E_IO, "%s: cannot open to fingerprint it: %s", path.c_str(), strerror(errno));
    uint64_t h = 14695981039346656037ULL; // FNV-1a 64 offset basis
    std::vector<char> buf(1 << 20);
    auto mix_range = [&](uint64_t from, uint64_t n) {
        f.clear();
        f.seekg((std::streamoff) from);
        while (n > 0 && f) {
            const size_t want = (size_t) std::min<uint64_t>(n, buf.size());
            f.read(buf.data(), (std::streamsize) want);
            const size_t got = (size_t) f.gcount();
            for (size_t i = 0; i < got; i++) { h ^= (uint8_t) buf[i]; h *= 1099511628211ULL; }
            n -= got;
            if (got < want) break;
        }
    };
    const uint64_t size = fp.size, data_off = gguf_get_data_offset(g), mib = 1 << 20;
    mix_range(0, std::min(size, data_off + mib));
    if (size > data_off + mib) mix_range(std::max(data_off + mib, size - mib), std::min(mib, size - data_off - mib));
    fp.hash = h;
    return fp;
}

std::string hex64(uint64_t v) {
    char b[17];
    snprintf(b, sizeof(b), "%016" PRIx64, v);
    return b;
}

#ifdef _WIN32
ReadOnlyMap::ReadOnlyMap(const std::string & path) {
    HANDLE file = CreateFileW(utf8_path(path).c_str(), GENERIC_READ, FILE_SHARE_READ, nullptr, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) fail(HONE_E_IO, "%s: cannot open for mapping", path.c_str());
    LARGE_INTEGER sz;
    GetFileSizeEx(file, &sz);
    size_ = (size_t) sz.QuadPart;
    mapping_ = CreateFileMappingA(file, nullptr, PAGE_READONLY, 0, 0, nullptr);
    CloseHandle(file);
    if (!mapping_) fail(HONE_E_IO, "%s: CreateFileMapping failed", path.c_str());
    addr_ = MapViewOfFile(mapping_, FILE_MAP_READ, 0, 0, 0);
    if (!addr_) fail(HONE_E_IO, "%s: MapViewOfFile failed", path.c_str());
}
ReadOnlyMap::~ReadOnlyMap() {
    if (addr_) UnmapViewOfFile(addr_);
    if (mapping_) CloseHandle(mapping_);
}
#else
ReadOnlyMap::ReadOnlyMap(const std::string & path) {
    int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) fail(HONE_E_IO, "%s: %s", path.c_str(), strerror(errno));
    struct stat st;
    fstat(fd, &st);
    size_ = (size_t) st.st_size;
    addr_ = mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (addr_ == MAP_FAILED) {
        addr_ = nullptr;
        fail(HONE_E_IO, "%s: mmap failed: %s", path.c_str(), strerror(errno));
    }
}
ReadOnlyMap::~ReadOnlyMap() {
    if (addr_) munmap(addr_, size_);
}
#endif

uint32_t gguf_u32(const gguf_context * ctx, const std::string & key, bool required, uint32_t def) {
    const int64_t id = gguf_find_key(ctx, key.c_str());
    if (id < 0) {
        if (required) fail(HONE_E_FORMAT, "missing metadata key '%s'", key.c_str());
        return def;
    }
    switch (gguf_get_kv_type(ctx, id)) {
        case GGUF_TYPE_UINT8:  return gguf_get_val_u8(ctx, id);
        case GGUF_TYPE_INT8:   return (uint32_t) gguf_get_val_i8(ctx, id);
        case GGUF_TYPE_UINT16: return gguf_get_val_u16(ctx, id);
        case GGUF_TYPE_INT16:  return (uint32_t) gguf_get_val_i16(ctx, id);
        case GGUF_TYPE_UINT32: return gguf_get_val_u32(ctx, id);
        case GGUF_TYPE_INT32:  return (uint32_t) gguf_get_val_i32(ctx, id);
        case GGUF_TYPE_UINT64: return (uint32_t) gguf_get_val_u64(ctx, id);
        case GGUF_TYPE_INT64:  return (uint32_t) gguf_get_val_i64(ctx, id);
        default: fail(HONE_E_FORMAT, "metadata key '%s' is not an integer", key.c_str());
    }
}

float gguf_f32(const gguf_context * ctx, const std::string & key, float def) {
    const int64_t id = gguf_find_key(ctx, key.c_str());
    if (id < 0) return def;
    switch (gguf_get_kv_type(ctx, id)) {
        case GGUF_TYPE_FLOAT32: return gguf_get_val_f32(ctx, id);
        case GGUF_TYPE_FLOAT64: return (float) gguf_get_val_f64(ctx, id);
        default: fail(HONE_E_FORMAT, "metadata key '%s' is not a float", key.c_str());
    }
}

bool gguf_bool(const gguf_context * ctx, const std::string & key, bool def) {
    const int64_t id = gguf_find_key(ctx, key.c_str());
    if (id < 0) return def;
    if (gguf_get_kv_type(ctx, id) == GGUF_TYPE_BOOL) return gguf_get_val_bool(ctx, id);
    return gguf_u32(ctx, key, true) != 0; // an integer flag, as some converters write it
}

std::string gguf_str(const gguf_context * ctx, const std::string & key, const std::string & def) {
    const int64_t id = gguf_find_key(ctx, key.c_str());
    if (id < 0 || gguf_get_kv_type(ctx, id) != GGUF_TYPE_STRING) return def;
    return gguf_get_val_str(ctx, id);
}

} // namespace hone
