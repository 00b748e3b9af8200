#include "renderer_wrap.h"

#include "model_wrap.h"

#include <memory>
#include <vector>

namespace hone_node {

struct RenderOne {
    hone_status status = HONE_OK;
    hone_error err{};
    hone_rendered * out = nullptr;
};

class RenderWorker : public Napi::AsyncWorker {
  public:
    RenderWorker(Napi::Env env, RendererWrap * r, Napi::Object self, std::vector<std::string> examples, bool with_text)
        : Napi::AsyncWorker(env, "hone.Renderer.renderBatch"), deferred_(Napi::Promise::Deferred::New(env)), r_(r),
          examples_(std::move(examples)), with_text_(with_text) {
        self_ = Napi::Persistent(self);
        r_->busy_++;
    }
    ~RenderWorker() override {
        for (auto & o : results_) if (o.out) hone_rendered_free(o.out);
    }
    Napi::Promise promise() { return deferred_.Promise(); }

    void Execute() override {
        results_.resize(examples_.size());
        for (size_t i = 0; i < examples_.size(); i++) {
            results_[i].status = hone_render(r_->renderer_, examples_[i].data(), examples_[i].size(), &results_[i].out, &results_[i].err);
        }
    }
    void OnOK() override {
        Napi::Env env = Env();
        Napi::Array arr = Napi::Array::New(env, results_.size());
        for (size_t i = 0; i < results_.size(); i++) {
            Napi::Object o = Napi::Object::New(env);
            if (results_[i].status != HONE_OK) {
                Napi::Object e = Napi::Object::New(env);
                e.Set("code", status_code(results_[i].status));
                e.Set("message", results_[i].err.message);
                o.Set("error", e);
            } else {
                const hone_rendered * r = results_[i].out;
                const int32_t n = hone_rendered_n_tokens(r);
                Napi::Int32Array toks = Napi::Int32Array::New(env, n);
                Napi::Uint8Array mask = Napi::Uint8Array::New(env, n);
                const int32_t * t = hone_rendered_tokens(r);
                const uint8_t * m = hone_rendered_loss_mask(r);
                for (int32_t k = 0; k < n; k++) { toks[k] = t[k]; mask[k] = m[k]; }
                o.Set("tokens", toks);
                o.Set("mask", mask);
                if (with_text_) {
                    size_t len = 0;
                    const char * text = hone_rendered_text(r, &len);
                    o.Set("text", Napi::String::New(env, text, len));
                    Napi::Int32Array spans = Napi::Int32Array::New(env, 2 * (size_t) n);
                    const int32_t * s = hone_rendered_token_spans(r);
                    for (int32_t k = 0; k < 2 * n; k++) spans[k] = s[k];
                    o.Set("spans", spans);
                }
            }
            arr.Set(i, o);
        }
        done();
        deferred_.Resolve(arr);
    }
    void OnError(const Napi::Error & e) override {
        done();
        deferred_.Reject(e.Value());
    }

  private:
    void done() {
        r_->busy_--;
        if (r_->disposed_ && r_->busy_ == 0) r_->free_now();
    }
    Napi::Promise::Deferred deferred_;
    RendererWrap * r_;
    Napi::ObjectReference self_;
    std::vector<std::string> examples_;
    std::vector<RenderOne> results_;
    bool with_text_;
};

Napi::Function RendererWrap::Init(Napi::Env env, AddonData * data) {
    Napi::Function f = DefineClass(env, "Renderer", {
        InstanceMethod<&RendererWrap::Info>("info"),
        InstanceMethod<&RendererWrap::RenderBatch>("renderBatch"),
        InstanceMethod<&RendererWrap::Dispose>("dispose"),
    }, data);
    data->renderer_ctor = Napi::Persistent(f);
    return f;
}

RendererWrap::RendererWrap(const Napi::CallbackInfo & info) : Napi::ObjectWrap<RendererWrap>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 2 || !info[0].IsObject() || !info[1].IsObject()) throw make_error(env, "invalid_argument", "use model.createRenderer(options)");
    Napi::Object model_obj = info[0].As<Napi::Object>();
    model_ = Napi::ObjectWrap<ModelWrap>::Unwrap(model_obj);
    Napi::Object o = info[1].As<Napi::Object>();
    hone_render_params p = hone_render_default_params();
    template_override_ = get_string(o, "chatTemplate", "");
    if (!template_override_.empty()) p.chat_template = template_override_.c_str();
    const std::string loss = get_string(o, "loss", "assistant");
    if (loss != "assistant" && loss != "all") throw make_error(env, "invalid_argument", "'loss' must be \"assistant\" or \"all\"");
    p.loss = loss == "all" ? HONE_LOSS_ALL : HONE_LOSS_ASSISTANT;
    p.ignore_weights = get_bool(o, "ignoreWeights", false);
    hone_error err{};
    if (hone_renderer_init(model_->handle(env), &p, &renderer_, &err) != HONE_OK) throw engine_error(env, err);
    model_ref_ = Napi::Persistent(model_obj);
    model_->retain();
}

// See AdapterWrap's destructor: only this object's own handle.
RendererWrap::~RendererWrap() {
    if (renderer_) hone_renderer_free(renderer_);
}

void RendererWrap::free_now() {
    if (renderer_) {
        hone_renderer_free(renderer_);
        renderer_ = nullptr;
        model_->release();
    }
}

Napi::Value RendererWrap::Info(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, disposed_ || !renderer_, "disposed", "the renderer was disposed");
    hone_renderer_info ri;
    hone_renderer_get_info(renderer_, &ri);
    Napi::Object o = Napi::Object::New(env);
    o.Set("source", ri.source);
    o.Set("supportsTools", ri.supports_tools);
    o.Set("supportsToolCalls", ri.supports_tool_calls);
    o.Set("supportsSystemRole", ri.supports_system_role);
    o.Set("template", hone_renderer_template(renderer_));
    return o;
}

Napi::Value RendererWrap::RenderBatch(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, disposed_ || !renderer_, "disposed", "the renderer was disposed");
    HN_THROW_IF(env, info.Length() < 1 || !info[0].IsArray(), "invalid_argument", "renderBatch expects an array of example JSON strings");
    Napi::Array a = info[0].As<Napi::Array>();
    std::vector<std::string> examples(a.Length());
    for (uint32_t i = 0; i < a.Length(); i++) {
        Napi::Value v = a.Get(i);
        HN_THROW_IF(env, !v.IsString(), "invalid_argument", "renderBatch: element " + std::to_string(i) + " is not a string");
        examples[i] = v.As<Napi::String>().Utf8Value();
    }
    const bool with_text = info.Length() > 1 && info[1].IsObject() && get_bool(info[1].As<Napi::Object>(), "text", false);
    auto * w = new RenderWorker(env, this, Value(), std::move(examples), with_text);
    Napi::Promise p = w->promise();
    w->Queue();
    return p;
}

Napi::Value RendererWrap::Dispose(const Napi::CallbackInfo & info) {
    disposed_ = true;
    if (busy_ == 0) free_now();
    return info.Env().Undefined();
}

} // namespace hone_node
