// hone_text_windows: how a plain-text document becomes training sequences. The one
// implementation: hone-train and the app's engine host both cut text with it.
#include "hone.h"

extern "C" int32_t hone_text_windows(int32_t n_tokens, int32_t n_ctx, int32_t * starts, int32_t n_max) {
    if (n_tokens < 2 || n_ctx < 1) return 0;
    int32_t n = 0;
    for (int64_t s = 0; s + 1 < n_tokens; s += n_ctx, n++) {
        if (starts && n < n_max) starts[n] = (int32_t) s;
    }
    return n;
}
