#include "error.h"

#include <vector>

namespace hone {

static std::string vfmt(const char * fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(nullptr, 0, fmt, ap2);
    va_end(ap2);
    std::vector<char> buf(n > 0 ? n + 1 : 1);
    vsnprintf(buf.data(), buf.size(), fmt, ap);
    return std::string(buf.data());
}

std::string strfmt(const char * fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string s = vfmt(fmt, ap);
    va_end(ap);
    return s;
}

void fail(hone_status code, const char * fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string s = vfmt(fmt, ap);
    va_end(ap);
    throw HoneError(code, s);
}

} // namespace hone

extern "C" const char * hone_status_name(int s) {
    switch (s) {
        case HONE_OK: return "ok";
        case HONE_E_INVALID_ARG: return "invalid_argument";
        case HONE_E_IO: return "io_error";
        case HONE_E_FORMAT: return "bad_format";
        case HONE_E_UNSUPPORTED: return "unsupported";
        case HONE_E_MEMORY: return "out_of_memory";
        case HONE_E_CANCELLED: return "cancelled";
        case HONE_E_MISMATCH: return "adapter_mismatch";
        default: return "internal";
    }
}
