#include "memory_plan.h"

#include "error.h"
#include "hone_json.h"
#include "model.h"
#include "process_memory.h"

#include "backend_registry.h"

#include <algorithm>

namespace hone {

static const char * const SYSTEM_POOL = "CPU";

// Host buffers are system memory whichever backend computes in them; a device buffer is
// the memory of the first non-host backend that can use it.
static std::string pool_of(ggml_backend_sched_t sched, ggml_backend_buffer_type_t buft) {
    if (ggml_backend_buft_is_host(buft)) return SYSTEM_POOL;
    for (int i = 0; i < ggml_backend_sched_get_n_backends(sched); i++) {
        ggml_backend_t b = ggml_backend_sched_get_backend(sched, i);
        if (ggml_backend_supports_buft(b, buft)) return ggml_backend_name(b);
    }
    return ggml_backend_buft_name(buft);
}

static MemoryPool * find_pool(MemoryPlan & plan, const std::string & name) {
    for (auto & p : plan.pools) if (p.name == name) return &p;
    return nullptr;
}

MemoryPlan start_memory_plan(const Backends & backends, int64_t limit_bytes) {
    MemoryPlan plan;
    plan.limit = limit_bytes;
    MemoryPool cpu;
    cpu.name = SYSTEM_POOL;
    cpu.free_bytes = system_available_bytes();
    size_t f = 0, t = 0;
    ggml_backend_dev_memory(ggml_backend_get_device(backends.cpu), &f, &t);
    cpu.total_bytes = t;
    cpu.baseline = process_memory().own;
    plan.pools.push_back(cpu);
    ggml_backend_t primary = backends.primary;
    ggml_backend_dev_t dev = ggml_backend_get_device(primary);
    if (primary != backends.cpu && dev && !ggml_backend_buft_is_host(ggml_backend_get_default_buffer_type(primary))) {
        MemoryPool gpu;
        gpu.name = ggml_backend_name(primary);
        gpu.dev = dev;
        ggml_backend_dev_memory(dev, &f, &t);
        gpu.free_bytes = f;
        gpu.total_bytes = t;
        gpu.baseline = f;
        plan.pools.push_back(gpu);
    }
    return plan;
}

// The CPU backend keeps one work buffer per backend instance, grown to the largest graph it
// computed (quantized OUT_PROD's dequantized rows, MUL_MAT's converted activations, ...).
// ggml_graph_plan sizes it over the whole graph: an upper bound when the CPU runs only part.
static uint64_t cpu_work_bytes(const Backends & backends, const PlanBuffers & buffers, const PlanGraph & g, ggml_backend_t b) {
    bool has_nodes = false;
    for (int i = 0; i < ggml_graph_n_nodes(g.graph) && !has_nodes; i++) {
        ggml_tensor * t = ggml_graph_node(g.graph, i);
        has_nodes = ggml_backend_sched_get_tensor_backend(g.sched, t) == b;
    }
    size_t work = 0;
    if (has_nodes) work = cpu_graph_work_size(g.graph, g.n_threads);
    if (b == backends.primary) {
        for (const ggml_cgraph * og : buffers.optimizer_graphs) work = std::max(work, cpu_graph_work_size(og, g.n_threads));
    }
    return work;
}

void finish_memory_plan(MemoryPlan & plan, const Backends & backends, const PlanBuffers & buffers, const PlanGraph & g) {
    ggml_backend_t primary = backends.primary;
    auto add = [&](const char * what, const std::string & backend, const std::string & pool, uint64_t bytes, bool mapped, bool trainer) {
        MemoryItem it;
        it.what = what;
        it.backend = backend;
        it.pool = pool;
        it.bytes = bytes;
        it.mapped = mapped;
        it.trainer = trainer;
        plan.items.push_back(it);
    };
    auto buffer = [&](const char * what, ggml_backend_buffer_t buf, bool mapped, bool trainer) {
        const std::string pool = pool_of(g.sched, ggml_backend_buffer_get_type(buf));
        add(what, pool == SYSTEM_POOL ? ggml_backend_name(backends.cpu) : pool, pool, ggml_backend_buffer_get_size(buf), mapped, trainer);
    };
    buffer("weights", buffers.weights, buffers.weights_mapped, false);
    buffer("adapter", buffers.adapter, false, false);
    buffer("gradient_accumulators", buffers.grad_accs, false, true);
    buffer("optimizer_state", buffers.opt_state, false, true);
    ggml_backend_buffer_type_t opt_buft = ggml_backend_get_default_buffer_type(primary);
    add("optimizer_graphs", ggml_backend_name(primary), pool_of(g.sched, opt_buft), buffers.optimizer_graph_bytes, false, true);

    // The scheduler splits the training graph and sizes each backend's compute buffer exactly
    // as allocation would, without allocating (evaluation's forward graph is a subset).
    const int nb = ggml_backend_sched_get_n_backends(g.sched);
    std::vector<size_t> sizes(nb, 0);
    ggml_backend_sched_reserve_size(g.sched, g.graph, sizes.data());
    for (int i = 0; i < nb; i++) {
        ggml_backend_t b = ggml_backend_sched_get_backend(g.sched, i);
        add("compute_buffer", ggml_backend_name(b), pool_of(g.sched, ggml_backend_sched_get_buffer_type(g.sched, b)), sizes[i], false, true);
    }
    for (int i = 0; i < nb; i++) {
        ggml_backend_t b = ggml_backend_sched_get_backend(g.sched, i);
        if (!is_cpu_backend(b)) continue;
        const uint64_t w = cpu_work_bytes(backends, buffers, g, b);
        if (w) add("cpu_work_buffer", ggml_backend_name(b), SYSTEM_POOL, w, false, true);
    }

    for (const MemoryItem & it : plan.items) {
        MemoryPool * p = find_pool(plan, it.pool);
        if (!p) {
            plan.pools.push_back(MemoryPool());
            p = &plan.pools.back();
            p->name = it.pool;
        }
        if (it.trainer) p->plan_bytes += it.bytes;
        else if (it.mapped) p->mapped_bytes += it.bytes;
        else p->resident_bytes += it.bytes;
    }
    for (MemoryPool & p : plan.pools) {
        p.limit_bytes = p.free_bytes;
        if (plan.limit > 0 && (p.limit_bytes == 0 || (uint64_t) plan.limit < p.limit_bytes)) p.limit_bytes = (uint64_t) plan.limit;
        p.fits = p.limit_bytes == 0 || p.plan_bytes <= p.limit_bytes;
    }
}

static std::string mib(uint64_t b) { return strfmt("%.1f MiB", (double) b / (1024.0 * 1024.0)); }

// "compute_buffer 812.0 MiB, optimizer_state on CUDA0 4.0 MiB, ...": what the trainer puts in pool p.
static std::string pool_parts(const MemoryPlan & plan, const MemoryPool & p) {
    std::string parts;
    for (const MemoryItem & it : plan.items) {
        if (it.pool != p.name || !it.trainer || it.bytes == 0) continue;
        parts += strfmt("%s%s%s%s %s", parts.empty() ? "" : ", ", it.what.c_str(), it.backend != p.name ? " on " : "",
                        it.backend != p.name ? it.backend.c_str() : "", mib(it.bytes).c_str());
    }
    return parts;
}

bool plan_fits(const MemoryPlan & plan) {
    for (const MemoryPool & p : plan.pools) if (!p.fits) return false;
    return true;
}

std::string plan_overflow(const MemoryPlan & plan) {
    for (const MemoryPool & p : plan.pools) {
        if (!p.fits) return strfmt("%s: %s planned, %s %s", p.name.c_str(), mib(p.plan_bytes).c_str(), mib(p.limit_bytes).c_str(),
                                   plan.limit > 0 && p.limit_bytes == (uint64_t) plan.limit ? "the limit" : "free");
    }
    return "";
}

void check_plan_fits(const MemoryPlan & plan, const PlanShape & shape) {
    for (const MemoryPool & p : plan.pools) {
        if (p.fits) continue;
        const bool limited = plan.limit > 0 && p.limit_bytes == (uint64_t) plan.limit;
        fail(HONE_E_MEMORY,
             "the training plan does not fit in %s memory: it needs %s (%s) but %s %s; lower the context (%d tokens), the "
             "micro-batch (%d sequence(s)), the LoRA rank (%d) or the number of targeted tensors (%zu)%s",
             p.name.c_str(), mib(p.plan_bytes).c_str(), pool_parts(plan, p).c_str(), mib(p.limit_bytes).c_str(),
             limited ? "is the memory limit" : "is free", shape.n_ctx, shape.n_ubatch, shape.rank, shape.n_targets,
             shape.recompute ? "" : ", or turn on activation recomputation (less memory, a slower step)");
    }
}

std::string memory_plan_line(const MemoryPlan & plan, const PlanShape & shape) {
    std::string line;
    for (const MemoryPool & p : plan.pools) {
        if (p.plan_bytes == 0) continue;
        line += strfmt("%s%s %s (%s) of %s free", line.empty() ? "" : "; ", p.name.c_str(), mib(p.plan_bytes).c_str(), pool_parts(plan, p).c_str(),
                       mib(p.free_bytes).c_str());
    }
    return line + strfmt(" for a context of %d tokens, micro-batch %d, rank %d", shape.n_ctx, shape.n_ubatch, shape.rank);
}

void sample_memory(MemoryPlan & plan) {
    for (MemoryPool & p : plan.pools) {
        if (p.name == SYSTEM_POOL) {
            const ProcessMemory pm = process_memory();
            if (!pm.known) continue;
            p.measured = true;
            p.peak_bytes = std::max(p.peak_bytes, pm.own > p.baseline ? pm.own - p.baseline : 0);
            p.peak_mapped = std::max(p.peak_mapped, pm.mapped);
        } else if (p.dev) {
            size_t f = 0, t = 0;
            ggml_backend_dev_memory(p.dev, &f, &t);
            p.measured = true;
            p.peak_bytes = std::max(p.peak_bytes, p.baseline > f ? p.baseline - f : 0);
        }
    }
}

std::string memory_items_json(const MemoryPlan & plan) {
    std::string s = "[";
    for (const MemoryItem & it : plan.items) {
        s += (s.size() > 1 ? "," : "") + JsonObject().str("what", it.what).str("backend", it.backend).str("pool", it.pool)
            .integer("bytes", (long long) it.bytes).boolean("mapped", it.mapped).boolean("trainer", it.trainer).dump();
    }
    return s + "]";
}

std::string memory_backends_json(const MemoryPlan & plan) {
    std::string s = "[";
    for (const MemoryPool & p : plan.pools) {
        JsonObject o;
        o.str("pool", p.name).integer("plan_bytes", (long long) p.plan_bytes).integer("resident_bytes", (long long) p.resident_bytes)
         .integer("mapped_bytes", (long long) p.mapped_bytes).integer("free_bytes", (long long) p.free_bytes)
         .integer("total_bytes", (long long) p.total_bytes).integer("limit_bytes", (long long) p.limit_bytes).boolean("fits", p.fits);
        if (p.measured) {
            o.integer("measured_peak_bytes", (long long) p.peak_bytes)
             .num("measured_over_plan", p.plan_bytes ? (double) p.peak_bytes / (double) p.plan_bytes : 0.0);
            if (p.name == SYSTEM_POOL) o.integer("measured_mapped_bytes", (long long) p.peak_mapped);
            else o.raw("measured_mapped_bytes", "null");
        } else {
            o.raw("measured_peak_bytes", "null").raw("measured_over_plan", "null").raw("measured_mapped_bytes", "null");
        }
        s += (s.size() > 1 ? "," : "") + o.dump();
    }
    return s + "]";
}

} // namespace hone
