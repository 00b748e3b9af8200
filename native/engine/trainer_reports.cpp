// The trainer's reports through the C API: which backend ran every node of the training graph
// (op_report.cpp builds it), the memory plan beside what was measured, and the plan's fit check.
#include "error.h"
#include "hone_json.h"
#include "lora.h"
#include "model.h"
#include "op_report.h"
#include "trainer.h"

#include <cstdlib>
#include <cstring>

using namespace hone;

extern "C" {

hone_status hone_trainer_op_report(hone_trainer * tr, char ** json, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(tr && json, "trainer and output are required");
        OpReportInput in;
        in.sched = tr->sched;
        in.graph = tr->gb;
        in.opt_graph = tr->opt.step_graph();
        in.opt_backend = tr->model->backends.primary;
        in.model = tr->model;
        in.n_forward_nodes = tr->n_forward_nodes;
        in.trainable = tr->trainable;
        in.waste = &tr->waste;
        in.memory = &tr->memory;
        in.profile = tr->profile.get();
        in.dry_run = tr->p.dry_run;
        // The report reads the graph as built: the last split rewrote sources to its copies
        // (put back afterwards, the scheduler's allocation uses them).
        GraphSources as_split;
        as_split.save(tr->gb);
        tr->sources.restore();
        const std::string s = op_report_json(in);
        as_split.restore();
        *json = (char *) malloc(s.size() + 1);
        if (!*json) throw std::bad_alloc();
        memcpy(*json, s.c_str(), s.size() + 1);
    });
}

hone_status hone_trainer_memory_report(hone_trainer * tr, char ** json, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(tr && json, "trainer and output are required");
        const std::string s = JsonObject().raw("items", memory_items_json(tr->memory)).raw("backends", memory_backends_json(tr->memory))
            .integer("limit_bytes", (long long) tr->memory.limit).integer("kv_cache_bytes", 0).str("mode", tr->memory.mode)
            .str("mode_reason", tr->memory.mode_reason).integer("ubatch", tr->memory.ubatch).str("ubatch_reason", tr->memory.ubatch_reason).dump();
        *json = (char *) malloc(s.size() + 1);
        if (!*json) throw std::bad_alloc();
        memcpy(*json, s.c_str(), s.size() + 1);
    });
}

hone_status hone_trainer_check_memory(const hone_trainer * tr, hone_error * err) {
    return guard(err, [&] {
        HONE_CHECK_ARG(tr, "trainer is required");
        check_plan_fits(tr->memory, plan_shape(*tr));
    });
}

void hone_string_free(char * s) { free(s); }

} // extern "C"
