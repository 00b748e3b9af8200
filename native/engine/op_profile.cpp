#include "op_profile.h"

namespace hone {

bool OpProfile::on_node(ggml_tensor * t, bool ask, void * user_data) {
    auto * p = static_cast<OpProfile *>(user_data);
    const auto now = std::chrono::steady_clock::now();
    if (ask) {
        p->last = now;
        return true; // observe every node: the scheduler computes and synchronises it alone
    }
    Time & e = p->by_node[t];
    e.runs++;
    e.seconds += std::chrono::duration<double>(now - p->last).count();
    return true;
}

// A process's first step also allocates (work buffers, device pools): it would bias either side.
void OpProfile::record_step(int64_t step, bool first_in_process, double seconds) {
    if (first_in_process) return;
    (profiles(step) ? profiled_steps : plain_steps).push_back(seconds);
}

} // namespace hone
