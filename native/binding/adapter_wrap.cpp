#include "adapter_wrap.h"

#include "model_wrap.h"

namespace hone_node {

namespace {

// Load and save: file I/O on a worker thread. The worker holds a use of the adapter/model.
class FileWorker : public Napi::AsyncWorker {
  public:
    enum Kind { LOAD, SAVE };
    FileWorker(Napi::Env env, Kind kind, std::string path, ModelWrap * model, Napi::Object model_obj, AdapterWrap * adapter,
               Napi::Object adapter_obj, AddonData * data)
        : Napi::AsyncWorker(env, kind == LOAD ? "hone.Adapter.load" : "hone.Adapter.save"), deferred_(Napi::Promise::Deferred::New(env)),
          kind_(kind), path_(std::move(path)), model_(model), adapter_(adapter), data_(data) {
        model_h_ = model->handle(env);
        model_->retain();
        model_ref_ = Napi::Persistent(model_obj);
        if (adapter_) {
            adapter_h_ = adapter_->handle(env);
            adapter_->retain();
            adapter_ref_ = Napi::Persistent(adapter_obj);
        }
    }
    Napi::Promise promise() { return deferred_.Promise(); }
    void Execute() override {
        status_ = kind_ == LOAD ? hone_adapter_load(model_h_, path_.c_str(), &loaded_, &err_)
                                : hone_adapter_save(adapter_h_, path_.c_str(), &err_);
    }
    void OnOK() override {
        Napi::Env env = Env();
        if (status_ != HONE_OK) deferred_.Reject(engine_error(env, err_).Value());
        else if (kind_ == LOAD) deferred_.Resolve(data_->adapter_ctor.New({ model_ref_.Value(), Napi::External<hone_adapter>::New(env, loaded_) }));
        else deferred_.Resolve(env.Undefined());
        finish();
    }
    void OnError(const Napi::Error & e) override {
        deferred_.Reject(e.Value());
        finish();
    }

  private:
    void finish() {
        if (adapter_) adapter_->release();
        model_->release();
    }
    Napi::Promise::Deferred deferred_;
    Kind kind_;
    std::string path_;
    ModelWrap * model_;
    AdapterWrap * adapter_;
    AddonData * data_;
    Napi::ObjectReference model_ref_, adapter_ref_;
    hone_model * model_h_ = nullptr;
    hone_adapter * adapter_h_ = nullptr;
    hone_adapter * loaded_ = nullptr;
    hone_status status_ = HONE_OK;
    hone_error err_{};
};

ModelWrap * unwrap_model(const Napi::CallbackInfo & info) {
    if (info.Length() < 1 || !info[0].IsObject()) throw make_error(info.Env(), "invalid_argument", "the first argument must be a Model");
    return Napi::ObjectWrap<ModelWrap>::Unwrap(info[0].As<Napi::Object>());
}

} // namespace

Napi::Function AdapterWrap::Init(Napi::Env env, AddonData * data) {
    Napi::Function f = DefineClass(env, "Adapter", {
        StaticMethod<&AdapterWrap::Create>("create"),
        StaticMethod<&AdapterWrap::Load>("load"),
        InstanceMethod<&AdapterWrap::Save>("save"),
        InstanceMethod<&AdapterWrap::NParams>("nParams"),
        InstanceMethod<&AdapterWrap::Dispose>("dispose"),
    }, data);
    data->adapter_ctor = Napi::Persistent(f);
    return f;
}

AdapterWrap::AdapterWrap(const Napi::CallbackInfo & info) : Napi::ObjectWrap<AdapterWrap>(info) {
    if (info.Length() != 2 || !info[0].IsObject() || !info[1].IsExternal()) {
        throw make_error(info.Env(), "invalid_argument", "use Adapter.create(model, options) or Adapter.load(model, path)");
    }
    model_ = Napi::ObjectWrap<ModelWrap>::Unwrap(info[0].As<Napi::Object>());
    model_ref_ = Napi::Persistent(info[0].As<Napi::Object>());
    adapter_ = info[1].As<Napi::External<hone_adapter>>().Data();
    model_->retain();
}

// Garbage collection (or the environment shutting down, which finalizes objects in any order)
// frees only this object's own handle and never touches the model wrapper.
AdapterWrap::~AdapterWrap() {
    if (adapter_) hone_adapter_free(adapter_);
}

hone_adapter * AdapterWrap::handle(Napi::Env env) const {
    if (disposed_ || !adapter_) throw make_error(env, "disposed", "the adapter was disposed");
    return adapter_;
}

void AdapterWrap::free_if_unused() {
    if (disposed_ && users_ <= 0 && adapter_) {
        hone_adapter_free(adapter_);
        adapter_ = nullptr;
        model_->release();
    }
}

Napi::Value AdapterWrap::Create(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    ModelWrap * m = unwrap_model(info);
    Napi::Object o = info.Length() > 1 && info[1].IsObject() ? info[1].As<Napi::Object>() : Napi::Object::New(env);
    hone_adapter_params p = hone_adapter_default_params();
    p.rank = (int32_t) get_number(o, "rank", p.rank);
    p.alpha = (float) get_number(o, "alpha", 2.0 * p.rank);
    p.seed = (uint64_t) get_number(o, "seed", (double) p.seed);
    hone_error err{};
    const std::string targets = get_string(o, "targets", "");
    if (!targets.empty() && hone_parse_targets(targets.c_str(), &p.targets, &err) != HONE_OK) throw engine_error(env, err);
    hone_adapter * a = nullptr;
    if (hone_adapter_init(m->handle(env), &p, &a, &err) != HONE_OK) throw engine_error(env, err);
    return info.Env().GetInstanceData<AddonData>()->adapter_ctor.New({ info[0], Napi::External<hone_adapter>::New(env, a) });
}

Napi::Value AdapterWrap::Load(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    ModelWrap * m = unwrap_model(info);
    HN_THROW_IF(env, info.Length() < 2 || !info[1].IsString(), "invalid_argument", "Adapter.load(model, path): path must be a string");
    auto * w = new FileWorker(env, FileWorker::LOAD, info[1].As<Napi::String>().Utf8Value(), m, info[0].As<Napi::Object>(), nullptr,
                              Napi::Object(), info.Env().GetInstanceData<AddonData>());
    Napi::Promise p = w->promise();
    w->Queue();
    return p;
}

Napi::Value AdapterWrap::Save(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, info.Length() < 1 || !info[0].IsString(), "invalid_argument", "adapter.save(path): path must be a string");
    handle(env);
    auto * w = new FileWorker(env, FileWorker::SAVE, info[0].As<Napi::String>().Utf8Value(), model_, model_ref_.Value(), this, Value(),
                              info.Env().GetInstanceData<AddonData>());
    Napi::Promise p = w->promise();
    w->Queue();
    return p;
}

Napi::Value AdapterWrap::NParams(const Napi::CallbackInfo & info) {
    return Napi::Number::New(info.Env(), (double) hone_adapter_n_params(handle(info.Env())));
}

Napi::Value AdapterWrap::Dispose(const Napi::CallbackInfo & info) {
    disposed_ = true;
    free_if_unused();
    return info.Env().Undefined();
}

} // namespace hone_node
