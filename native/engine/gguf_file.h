// Opening a GGUF file for the engine: clear errors for every way a file can be wrong,
// and a read-only memory map of its tensor data.
#pragma once

#include "gguf.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace hone {

// Checks existence, magic, version and that the data section covers every tensor, then
// returns the parsed header (no tensor data) with tensor metadata in *meta.
gguf_context * open_gguf_checked(const std::string & path, struct ggml_context ** meta);

// Read-only mapping of a whole file; writes to it fault, which keeps the base frozen.
class ReadOnlyMap {
  public:
    explicit ReadOnlyMap(const std::string & path);
    ~ReadOnlyMap();
    ReadOnlyMap(const ReadOnlyMap &) = delete;
    ReadOnlyMap & operator=(const ReadOnlyMap &) = delete;
    const uint8_t * data() const { return static_cast<const uint8_t *>(addr_); }
    size_t size() const { return size_; }
  private:
    void * addr_ = nullptr;
    size_t size_ = 0;
#ifdef _WIN32
    void * mapping_ = nullptr;
#endif
};

// What identifies a GGUF file cheaply, even one of many GB: its size and a 64-bit FNV-1a of its
// header (metadata and tensor infos) and of the first and last MiB of tensor data. A different
// model, a re-quantized or fine-tuned copy all differ. `g` is the file's parsed header.
struct FileFingerprint {
    uint64_t size = 0;
    uint64_t hash = 0;
};
FileFingerprint gguf_fingerprint(const std::string & path, const gguf_context * g);
// 16 lower-case hex digits.
std::string hex64(uint64_t v);

// Typed key lookups that accept any integer width; `required` keys throw when missing.
uint32_t gguf_u32(const gguf_context * ctx, const std::string & key, bool required, uint32_t def = 0);
float    gguf_f32(const gguf_context * ctx, const std::string & key, float def);
bool     gguf_bool(const gguf_context * ctx, const std::string & key, bool def);
std::string gguf_str(const gguf_context * ctx, const std::string & key, const std::string & def = "");

} // namespace hone
