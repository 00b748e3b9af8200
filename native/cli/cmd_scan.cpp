// `hone-train scan --model M`: llama.cpp's inference graph for the model, its ops, and which
// of them ggml cannot differentiate (docs/architectures.md is built from this).
#include "args.h"
#include "commands.h"
#include "hone_json.h"

#include "hone_tools.h"

#include <cstdio>

int cmd_scan(int argc, char ** argv) {
    Args a(argc, argv, 2, { "model" }, { "json" });
    const bool json = a.flag("json");
    const hone::ArchScan s = hone::scan_architecture(a.required("model"));
    if (!s.graph_built) return report_error(json, "scan_failed", a.str("model") + ": " + s.error);
    if (json) {
        printf("%s\n", JsonObject().str("type", "scan").str("arch", s.arch).raw("ops", json_string_array(s.ops)).raw("no_backward", json_string_array(s.no_backward))
            .boolean("graph_differentiable", s.no_backward.empty()).dump().c_str());
    } else {
        printf("architecture %s: %zu ops", s.arch.c_str(), s.ops.size());
        for (auto & o : s.ops) printf(" %s", o.c_str());
        printf("\n%s\n", s.no_backward.empty() ? "every op has a backward" : hone::describe_scan(s).c_str());
    }
    return 0;
}
