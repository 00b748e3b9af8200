// merge(params, onProgress?): hone_merge on a worker thread, as a Promise of
// {path, bytes, merged, copied, fallbacks, notes}. onProgress gets {done, total, tensor, merged}
// after every tensor, and the merge waits for its answer: returning false cancels it at that
// tensor (it rejects with code 'cancelled' and leaves nothing under params.out).
#pragma once

#include "node_common.h"

namespace hone_node {

Napi::Value Merge(const Napi::CallbackInfo & info);

} // namespace hone_node
