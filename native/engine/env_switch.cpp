#include "env_switch.h"

#include <cstdlib>
#include <cstring>

namespace hone {

bool env_switch_on(const char * name) {
    const char * v = std::getenv(name);
    return !(v && std::strcmp(v, "0") == 0);
}

const char * env_switch_value(const char * name) {
    const char * v = std::getenv(name);
    return v && *v ? v : nullptr;
}

} // namespace hone
