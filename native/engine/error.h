// Engine-internal errors: thrown as HoneError, turned into {code, message} at the C API.
#pragma once

#include "hone.h"

#include <cstdarg>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace hone {

class HoneError : public std::runtime_error {
  public:
    HoneError(hone_status code, const std::string & msg) : std::runtime_error(msg), code_(code) {}
    hone_status code() const { return code_; }
  private:
    hone_status code_;
};

std::string strfmt(const char * fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

// Whether s ends with suffix (tensor names: ".lora_a", ".scale", "token_embd.weight").
inline bool ends_with(const std::string & s, const std::string & suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

[[noreturn]] void fail(hone_status code, const char * fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

// Runs f, converting any exception into a status + message in err.
template <typename F>
hone_status guard(hone_error * err, F && f) {
    auto set = [&](hone_status code, const char * msg) {
        if (err) {
            err->code = code;
            snprintf(err->message, sizeof(err->message), "%s", msg);
        }
        return code;
    };
    try {
        f();
        return set(HONE_OK, "");
    } catch (const HoneError & e) {
        return set(e.code(), e.what());
    } catch (const std::bad_alloc &) {
        return set(HONE_E_MEMORY, "out of memory");
    } catch (const std::exception & e) {
        return set(HONE_E_INTERNAL, e.what());
    }
}

} // namespace hone

#define HONE_CHECK_ARG(cond, ...) do { if (!(cond)) ::hone::fail(HONE_E_INVALID_ARG, __VA_ARGS__); } while (0)
