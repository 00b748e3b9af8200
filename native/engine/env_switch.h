// Engine switches read from the environment (benchmarks' "before", workarounds).
#pragma once

namespace hone {

// On unless the variable `name` is set to "0".
bool env_switch_on(const char * name);

// The value of the variable `name`, or NULL when it is unset or empty (switches with more than
// two states, such as HONE_SELECTIVE_RECOMPUTE's 0 / 1 / auto).
const char * env_switch_value(const char * name);

} // namespace hone
