// `hone-train render --model M --data D.jsonl`: each line (an example: {"messages": ...} or
// {"text": ...}) rendered through the model's chat template, printed as one JSON object with
// the text, tokens, token pieces and loss mask. For checking templates and masks by hand.
#include "args.h"
#include "commands.h"
#include "hone_json.h"

#include "hone.h"

#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

namespace {

std::string read_file(const std::string & path, bool & ok) {
    std::ifstream f(path, std::ios::binary);
    ok = (bool) f;
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

template <typename T> std::string json_ints(const T * v, int32_t n) {
    std::string s = "[";
    for (int32_t i = 0; i < n; i++) s += (i ? "," : "") + std::to_string((long long) v[i]);
    return s + "]";
}

} // namespace

int cmd_render(int argc, char ** argv) {
    Args a(argc, argv, 2, { "model", "data", "chat-template-file", "loss" }, { "ignore-weights", "json" });
    const bool json = true;
    const std::string model_path = a.required("model"), data_path = a.required("data");
    hone_error err{};
    hone_model_params mp = hone_model_default_params();
    mp.path = model_path.c_str();
    mp.backend = "cpu";
    hone_model * model = nullptr;
    if (hone_model_load(&mp, &model, &err) != HONE_OK) return report_error(json, "load_failed", err.message);
    std::unique_ptr<hone_model, void (*)(hone_model *)> mg(model, hone_model_free);

    hone_render_params rp = hone_render_default_params();
    std::string tmpl;
    if (a.has("chat-template-file")) {
        bool ok = false;
        tmpl = read_file(a.str("chat-template-file"), ok);
        if (!ok) return report_error(json, "io_error", a.str("chat-template-file") + ": cannot read");
        rp.chat_template = tmpl.c_str();
    }
    const std::string loss = a.str("loss", "assistant");
    if (loss != "assistant" && loss != "all") throw UsageError("--loss must be assistant or all");
    rp.loss = loss == "all" ? HONE_LOSS_ALL : HONE_LOSS_ASSISTANT;
    rp.ignore_weights = a.flag("ignore-weights");
    hone_renderer * r = nullptr;
    if (hone_renderer_init(model, &rp, &r, &err) != HONE_OK) return report_error(json, "bad_template", err.message);
    std::unique_ptr<hone_renderer, void (*)(hone_renderer *)> rg(r, hone_renderer_free);
    hone_renderer_info info;
    hone_renderer_get_info(r, &info);
    printf("%s\n", JsonObject().str("type", "template").str("source", info.source).boolean("supports_tools", info.supports_tools)
        .boolean("supports_tool_calls", info.supports_tool_calls).boolean("supports_system_role", info.supports_system_role).dump().c_str());

    std::ifstream f(data_path, std::ios::binary);
    if (!f) return report_error(json, "io_error", data_path + ": cannot open for reading");
    std::string line;
    int n = 0, failed = 0;
    while (std::getline(f, line)) {
        n++;
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        hone_rendered * out = nullptr;
        if (hone_render(r, line.data(), line.size(), &out, &err) != HONE_OK) {
            failed++;
            printf("%s\n", JsonObject().str("type", "error").integer("line", n).integer("code", err.code).str("message", err.message).dump().c_str());
            continue;
        }
        const int32_t nt = hone_rendered_n_tokens(out);
        size_t len = 0;
        const char * text = hone_rendered_text(out, &len);
        printf("%s\n", JsonObject().str("type", "rendered").integer("line", n).str("text", std::string(text, len))
            .raw("tokens", json_ints(hone_rendered_tokens(out), nt)).raw("mask", json_ints(hone_rendered_loss_mask(out), nt))
            .raw("spans", json_ints(hone_rendered_token_spans(out), 2 * nt)).dump().c_str());
        hone_rendered_free(out);
    }
    return failed ? 1 : 0;
}
