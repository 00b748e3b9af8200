// `hone-train architectures [--json]`: every trainable architecture's description (the
// engine's arch/ tables), one line each; docs/architectures.md's table is written from this
// (native/scripts/architectures-table.mjs) and a test checks that the two agree.
#include "args.h"
#include "commands.h"
#include "hone_json.h"

#include "hone_arch.h"

#include <cstdio>

int cmd_architectures(int argc, char ** argv) {
    Args a(argc, argv, 2, {}, { "json" });
    const bool json = a.flag("json");
    using namespace hone::arch;
    for (const Desc & d : all()) {
        if (!json) {
            printf("%-16s %-9s %s\n", d.name.c_str(), d.family.c_str(), d.covers.c_str());
            continue;
        }
        std::vector<std::string> keys;
        for (const RequiredKey & k : d.required_keys) keys.push_back(k.name);
        printf("%s\n", JsonObject().str("type", "architecture").str("name", d.name).str("family", d.family).str("covers", d.covers)
            .str("details", d.details).str("norms", name_of(d.norms)).str("qk_norm", name_of(d.qk_norm)).str("ffn", name_of(d.ffn)).str("moe", name_of(d.moe))
            .str("positions", name_of(d.positions)).str("rope", name_of(d.rope)).boolean("windows", d.window.layout != Windows::NONE)
            .boolean("fused_qkv", d.tensors.fused_qkv).boolean("fused_gate_up", d.tensors.fused_gate_up)
            .raw("required_keys", json_string_array(keys)).dump().c_str());
    }
    return 0;
}
