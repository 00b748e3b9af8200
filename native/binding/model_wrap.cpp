#include "model_wrap.h"

#include "renderer_wrap.h"

#include <vector>

namespace hone_node {

namespace {

class LoadWorker : public Napi::AsyncWorker {
  public:
    LoadWorker(Napi::Env env, std::string path, std::string backend, std::string gpu_precision, int threads, AddonData * data)
        : Napi::AsyncWorker(env, "hone.Model.load"), deferred_(Napi::Promise::Deferred::New(env)), path_(std::move(path)),
          backend_(std::move(backend)), gpu_precision_(std::move(gpu_precision)), threads_(threads), data_(data) {}
    Napi::Promise promise() { return deferred_.Promise(); }

    void Execute() override {
        hone_model_params p = hone_model_default_params();
        p.path = path_.c_str();
        p.backend = backend_.c_str();
        p.gpu_precision = gpu_precision_.c_str();
        p.n_threads = threads_;
        status_ = hone_model_load(&p, &model_, &err_);
    }
    void OnOK() override {
        Napi::Env env = Env();
        if (status_ != HONE_OK) { deferred_.Reject(engine_error(env, err_).Value()); return; }
        deferred_.Resolve(data_->model_ctor.New({ Napi::External<hone_model>::New(env, model_) }));
    }
    void OnError(const Napi::Error & e) override { deferred_.Reject(e.Value()); }

  private:
    Napi::Promise::Deferred deferred_;
    std::string path_, backend_, gpu_precision_;
    int threads_;
    AddonData * data_;
    hone_model * model_ = nullptr;
    hone_status status_ = HONE_OK;
    hone_error err_{};
};

} // namespace

Napi::Function ModelWrap::Init(Napi::Env env, AddonData * data) {
    Napi::Function f = DefineClass(env, "Model", {
        StaticMethod<&ModelWrap::Load>("load"),
        InstanceMethod<&ModelWrap::Info>("info"),
        InstanceMethod<&ModelWrap::Tokenize>("tokenize"),
        InstanceMethod<&ModelWrap::CreateRenderer>("createRenderer"),
        InstanceMethod<&ModelWrap::Dispose>("dispose"),
    }, data);
    data->model_ctor = Napi::Persistent(f);
    return f;
}

ModelWrap::ModelWrap(const Napi::CallbackInfo & info) : Napi::ObjectWrap<ModelWrap>(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) throw make_error(info.Env(), "invalid_argument", "use Model.load(options) to load a model");
    model_ = info[0].As<Napi::External<hone_model>>().Data();
}

ModelWrap::~ModelWrap() {
    if (model_) hone_model_free(model_);
}

hone_model * ModelWrap::handle(Napi::Env env) const {
    if (disposed_ || !model_) throw make_error(env, "disposed", "the model was disposed");
    return model_;
}

void ModelWrap::free_if_unused() {
    if (disposed_ && users_ <= 0 && model_) {
        hone_model_free(model_);
        model_ = nullptr;
    }
}

Napi::Value ModelWrap::Load(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, info.Length() < 1 || !info[0].IsObject(), "invalid_argument", "Model.load expects {path, backend?, gpuPrecision?, threads?}");
    Napi::Object o = info[0].As<Napi::Object>();
    const std::string path = get_string(o, "path", "");
    HN_THROW_IF(env, path.empty(), "invalid_argument", "Model.load: 'path' (a GGUF file) is required");
    auto * w = new LoadWorker(env, path, get_string(o, "backend", "auto"), get_string(o, "gpuPrecision", "bf16"),
                              (int) get_number(o, "threads", 0), info.Env().GetInstanceData<AddonData>());
    Napi::Promise p = w->promise();
    w->Queue();
    return p;
}

Napi::Value ModelWrap::Info(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    hone_model_info mi;
    hone_model_get_info(handle(env), &mi);
    Napi::Object o = Napi::Object::New(env);
    o.Set("arch", mi.arch);
    o.Set("name", mi.name);
    o.Set("backend", mi.backend);
    o.Set("gpuPrecision", mi.gpu_precision);
    o.Set("nLayer", mi.n_layer);
    o.Set("nEmbd", mi.n_embd);
    o.Set("nFf", mi.n_ff);
    o.Set("nHead", mi.n_head);
    o.Set("nHeadKv", mi.n_head_kv);
    o.Set("headDim", mi.head_dim);
    o.Set("nVocab", mi.n_vocab);
    o.Set("nCtxTrain", mi.n_ctx_train);
    o.Set("tiedOutput", mi.tied_output);
    o.Set("nParams", (double) mi.n_params);
    o.Set("weightBytes", (double) mi.weight_bytes);
    return o;
}

Napi::Value ModelWrap::Tokenize(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, info.Length() < 1 || !info[0].IsString(), "invalid_argument", "tokenize expects a string");
    const std::string text = info[0].As<Napi::String>().Utf8Value();
    const bool add_bos = info.Length() > 1 && info[1].ToBoolean();
    hone_model * m = handle(env);
    std::vector<int32_t> toks(text.size() + 8);
    int32_t n = hone_model_tokenize(m, text.data(), text.size(), add_bos, toks.data(), (int32_t) toks.size());
    if (n < 0) { toks.resize(-n); n = hone_model_tokenize(m, text.data(), text.size(), add_bos, toks.data(), (int32_t) toks.size()); }
    Napi::Int32Array out = Napi::Int32Array::New(env, std::max(0, n));
    for (int32_t i = 0; i < n; i++) out[i] = toks[i];
    return out;
}

Napi::Value ModelWrap::CreateRenderer(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    handle(env);
    Napi::Object opts = info.Length() > 0 && info[0].IsObject() ? info[0].As<Napi::Object>() : Napi::Object::New(env);
    auto * data = info.Env().GetInstanceData<AddonData>();
    return data->renderer_ctor.New({ Value(), opts });
}

Napi::Value ModelWrap::Dispose(const Napi::CallbackInfo & info) {
    disposed_ = true;
    free_if_unused();
    return info.Env().Undefined();
}

} // namespace hone_node
