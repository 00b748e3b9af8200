// The hone Node addon: registers one wrapper class per engine concept. N-API only
// (NAPI_VERSION 8), so the same .node file loads in Node and in Electron.
#include "adapter_wrap.h"
#include "chat_wrap.h"
#include "node_common.h"
#include "merge.h"
#include "model_wrap.h"
#include "renderer_wrap.h"
#include "trainer_wrap.h"

using namespace hone_node;

// capabilities(): hone_capabilities_json as text (backends, trainable architectures, defaults).
static Napi::Value Capabilities(const Napi::CallbackInfo & info) {
    char * json = hone_capabilities_json();
    if (!json) throw make_error(info.Env(), "out_of_memory", "no memory for the capabilities report");
    Napi::String out = Napi::String::New(info.Env(), json);
    hone_string_free(json);
    return out;
}

// textWindows(nTokens, ctx): the start of every window hone_text_windows cuts (Int32Array).
static Napi::Value TextWindows(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, info.Length() < 2 || !info[0].IsNumber() || !info[1].IsNumber(), "invalid_argument", "textWindows(nTokens, ctx) needs two numbers");
    const int32_t n = info[0].As<Napi::Number>().Int32Value(), ctx = info[1].As<Napi::Number>().Int32Value();
    HN_THROW_IF(env, n < 0 || ctx < 1, "invalid_argument", "textWindows: nTokens must be >= 0 and ctx >= 1");
    const int32_t count = hone_text_windows(n, ctx, nullptr, 0);
    Napi::Int32Array out = Napi::Int32Array::New(env, (size_t) count);
    hone_text_windows(n, ctx, out.Data(), count);
    return out;
}

// packingHelps(lengths, ctx): hone_packing_helps over the sequences' token counts (Int32Array).
static Napi::Value PackingHelps(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, info.Length() < 2 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array ||
                !info[1].IsNumber(), "invalid_argument", "packingHelps(lengths, ctx) needs an Int32Array and a number");
    const Napi::Int32Array lengths = info[0].As<Napi::Int32Array>();
    const int32_t ctx = info[1].As<Napi::Number>().Int32Value();
    HN_THROW_IF(env, ctx < 1, "invalid_argument", "packingHelps: ctx must be >= 1");
    return Napi::Boolean::New(env, hone_packing_helps(lengths.Data(), (int32_t) lengths.ElementLength(), ctx));
}

// suggestContext(lengths, cap): hone_suggest_context over the sequences' token counts (Int32Array).
static Napi::Value SuggestContext(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, info.Length() < 2 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array ||
                !info[1].IsNumber(), "invalid_argument", "suggestContext(lengths, cap) needs an Int32Array and a number");
    const Napi::Int32Array lengths = info[0].As<Napi::Int32Array>();
    return Napi::Number::New(env, hone_suggest_context(lengths.Data(), (int32_t) lengths.ElementLength(), info[1].As<Napi::Number>().Int32Value()));
}

// stepRows(lengths, {nCtx, nBatch, nBatchTokens, seed, pack}): hone_step_rows, the most rows a step of
// these sequences (token counts) fills, the bound of the automatic micro-batch.
static Napi::Value StepRows(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, info.Length() < 2 || !info[0].IsTypedArray() || info[0].As<Napi::TypedArray>().TypedArrayType() != napi_int32_array ||
                !info[1].IsObject(), "invalid_argument", "stepRows(lengths, params) needs an Int32Array and an object");
    const Napi::Int32Array lengths = info[0].As<Napi::Int32Array>();
    const Napi::Object o = info[1].As<Napi::Object>();
    auto num = [&](const char * k, double d) { return o.Has(k) && o.Get(k).IsNumber() ? o.Get(k).As<Napi::Number>().DoubleValue() : d; };
    hone_train_params p = hone_train_default_params();
    p.n_ctx = (int32_t) num("nCtx", p.n_ctx);
    p.n_batch = (int32_t) num("nBatch", p.n_batch);
    p.n_batch_tokens = (int32_t) num("nBatchTokens", p.n_batch_tokens);
    p.seed = (uint64_t) num("seed", (double) p.seed);
    p.pack = o.Has("pack") && o.Get("pack").IsBoolean() ? o.Get("pack").As<Napi::Boolean>().Value() : p.pack;
    HN_THROW_IF(env, p.n_ctx < 1 || (p.n_batch < 1 && p.n_batch_tokens < 1), "invalid_argument", "stepRows: nCtx and nBatch (or nBatchTokens) must be >= 1");
    return Napi::Number::New(env, hone_step_rows(lengths.Data(), (int32_t) lengths.ElementLength(), &p));
}

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) {
    auto * data = new AddonData();
    env.SetInstanceData(data); // freed with the environment
    exports.Set("Model", ModelWrap::Init(env, data));
    exports.Set("Adapter", AdapterWrap::Init(env, data));
    exports.Set("Renderer", RendererWrap::Init(env, data));
    exports.Set("Trainer", TrainerWrap::Init(env, data));
    exports.Set("Chat", ChatWrap::Init(env, data));
    exports.Set("capabilities", Napi::Function::New(env, Capabilities, "capabilities"));
    exports.Set("merge", Napi::Function::New(env, Merge, "merge"));
    exports.Set("textWindows", Napi::Function::New(env, TextWindows, "textWindows"));
    exports.Set("packingHelps", Napi::Function::New(env, PackingHelps, "packingHelps"));
    exports.Set("suggestContext", Napi::Function::New(env, SuggestContext, "suggestContext"));
    exports.Set("stepRows", Napi::Function::New(env, StepRows, "stepRows"));
    exports.Set("napiVersion", Napi::Number::New(env, NAPI_VERSION));
    return exports;
}

NODE_API_MODULE(hone, InitAddon)
