// Engine switches read from the environment (benchmarks' "before", workarounds).
#pragma once

namespace hone {

// On unless the variable `name` is set to "0".
bool env_switch_on(const char * name);

} // namespace hone
