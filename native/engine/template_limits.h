// Bounds on a chat template's shape, checked before llama.cpp's Jinja engine parses it: its
// parser recurses once per nesting level (a template nested thousands deep overflows the stack
// and kills the process) and its loops have no bound (range(10**9) never returns). A template
// past these bounds is refused with where and why. Recursion through macros is not caught here.
#pragma once

#include <string>

namespace hone {

constexpr int TEMPLATE_MAX_NESTING = 128;        // brackets inside a tag, and blocks inside blocks
constexpr long long TEMPLATE_MAX_RANGE = 100000; // a literal range(N) a loop may count to

// Throws HONE_E_FORMAT naming `whose` template, the line and the bound it passes.
void check_template_limits(const std::string & src, const char * whose);

} // namespace hone
