#include "refusing_backend.h"

#include "error.h"

#include "ggml-backend-impl.h"
#include "backend_registry.h"

#include <set>

namespace hone {

const char * const REFUSING_BACKEND_NAME = "CPU-REFUSING";

namespace {

// The device: the CPU device's interface and context, with its name, type and supports_op
// replaced. `dev` comes first so a ggml_backend_dev_t of this device is also a FilteringDevice*.
struct FilteringDevice {
    ggml_backend_device dev;
    ggml_backend_dev_t inner;
    std::string name, description;
    std::function<bool(const ggml_tensor *)> accepts;
};

struct FilteringBackend {
    ggml_backend backend;  // first, for the same reason
    ggml_backend_t inner;  // the CPU backend instance doing the work
    FilteringDevice device;
};

FilteringDevice * device_of(ggml_backend_dev_t dev) { return reinterpret_cast<FilteringDevice *>(dev); }

const char * dev_name(ggml_backend_dev_t dev) { return device_of(dev)->name.c_str(); }
const char * dev_description(ggml_backend_dev_t dev) { return device_of(dev)->description.c_str(); }
// An accelerator sharing host memory (as BLAS or AMX backends are): not "the CPU", so the
// op report treats nodes on the real CPU backend as fallbacks.
enum ggml_backend_dev_type dev_type(ggml_backend_dev_t) { return GGML_BACKEND_DEVICE_TYPE_ACCEL; }

bool dev_supports_op(ggml_backend_dev_t dev, const ggml_tensor * op) {
    FilteringDevice * d = device_of(dev);
    return d->accepts(op) && d->inner->iface.supports_op(d->inner, op);
}

void dev_get_props(ggml_backend_dev_t dev, ggml_backend_dev_props * props) {
    FilteringDevice * d = device_of(dev);
    d->inner->iface.get_props(d->inner, props);
    props->name = d->name.c_str();
    props->description = d->description.c_str();
    props->type = GGML_BACKEND_DEVICE_TYPE_ACCEL;
}

const char * backend_name(ggml_backend_t backend) { return reinterpret_cast<FilteringBackend *>(backend)->device.name.c_str(); }

void backend_free(ggml_backend_t backend) {
    auto * b = reinterpret_cast<FilteringBackend *>(backend);
    ggml_backend_free(b->inner);
    delete b;
}

std::set<ggml_op> parse_ops(const std::string & list) {
    std::set<ggml_op> out;
    size_t start = 0;
    while (start <= list.size()) {
        size_t end = list.find(',', start);
        if (end == std::string::npos) end = list.size();
        const std::string name = list.substr(start, end - start);
        if (!name.empty()) {
            bool found = false;
            for (int op = 0; op < GGML_OP_COUNT && !found; op++) {
                if (name == ggml_op_name((ggml_op) op)) { out.insert((ggml_op) op); found = true; }
            }
            if (!found) fail(HONE_E_INVALID_ARG, "unknown ggml op '%s' in the list of ops to refuse (names as ggml_op_name writes them, e.g. OUT_PROD)", name.c_str());
        }
        start = end + 1;
    }
    if (out.empty()) fail(HONE_E_INVALID_ARG, "the list of ops to refuse is empty");
    return out;
}

} // namespace

ggml_backend_t filtering_backend_init(const std::string & name, const std::string & description,
                                      std::function<bool(const ggml_tensor *)> accepts, int n_threads) {
    ggml_backend_t inner = hone::cpu_backend_init(n_threads);
    if (!inner) fail(HONE_E_INTERNAL, "the CPU backend failed to initialise");
    auto * b = new FilteringBackend();
    b->inner = inner;
    b->device.inner = inner->device;
    b->device.name = name;
    b->device.description = description;
    b->device.accepts = std::move(accepts);
    b->device.dev = *inner->device;
    b->device.dev.iface.get_name = dev_name;
    b->device.dev.iface.get_description = dev_description;
    b->device.dev.iface.get_type = dev_type;
    b->device.dev.iface.get_props = dev_get_props;
    b->device.dev.iface.supports_op = dev_supports_op;
    // The CPU backend's own functions (compute, tensor get/set) read only backend->context.
    b->backend = *inner;
    b->backend.iface.get_name = backend_name;
    b->backend.iface.free = backend_free;
    b->backend.device = &b->device.dev;
    return &b->backend;
}

ggml_backend_t refusing_backend_init(const std::string & ops, int n_threads) {
    std::set<ggml_op> refused = parse_ops(ops);
    return filtering_backend_init(REFUSING_BACKEND_NAME, "CPU backend that refuses chosen ops (tests only)",
                                  [refused](const ggml_tensor * op) { return refused.count(op->op) == 0; }, n_threads);
}

} // namespace hone
