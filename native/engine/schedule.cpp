#include "schedule.h"

#include <cmath>
#include <cstring>

namespace hone {

static const double PI = 3.14159265358979323846;

float lr_at(const hone_train_params & p, int64_t step, int64_t n_steps) {
    const int64_t W = p.warmup_steps;
    if (step <= W) return (float) ((double) p.lr * (double) step / (double) W);
    if (p.lr_schedule == HONE_LR_CONSTANT) return p.lr;
    const double progress = (double) (step - W - 1) / (double) (n_steps - W);
    const double lr = p.lr, lo = p.lr_min;
    if (p.lr_schedule == HONE_LR_LINEAR) return (float) (lo + (lr - lo) * (1.0 - progress));
    return (float) (lo + (lr - lo) * 0.5 * (1.0 + std::cos(PI * progress)));
}

float segment_lr(const hone_train_params & p, int64_t done, int64_t segment_start, int64_t n_steps) {
    return lr_at(p, done - segment_start + 1, n_steps - segment_start);
}

int64_t planned_steps(const hone_train_params & p, int32_t n_train) {
    return p.n_steps > 0 ? p.n_steps : ((int64_t) p.n_epochs * n_train + p.n_batch - 1) / p.n_batch;
}

} // namespace hone

// The one list of schedule names, in hone_lr_schedule's order.
static const char * const NAMES[] = { "constant", "linear", "cosine" };

extern "C" const char * hone_lr_schedule_name(int32_t schedule) {
    return schedule >= 0 && schedule < 3 ? NAMES[schedule] : "?";
}

extern "C" int32_t hone_lr_schedule_from_name(const char * name) {
    for (int32_t i = 0; i < 3; i++) if (name && !strcmp(name, NAMES[i])) return i;
    return -1;
}
