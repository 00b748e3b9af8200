#include "merge.h"

#include <future>
#include <string>
#include <vector>

namespace hone_node {

namespace {

// One progress call from the merge thread: it waits for onProgress's answer (keep going?).
struct ProgressCall {
    int32_t done = 0, total = 0;
    std::string tensor;
    bool merged = false;
    std::promise<bool> keep;
};

class MergeWorker : public Napi::AsyncWorker {
  public:
    MergeWorker(Napi::Env env, Napi::Function on_progress) : Napi::AsyncWorker(env, "hone.merge"), deferred_(Napi::Promise::Deferred::New(env)) {
        if (!on_progress.IsEmpty()) {
            tsfn_ = Napi::ThreadSafeFunction::New(env, on_progress, "hone.merge.progress", 0, 1);
            has_tsfn_ = true;
        }
    }
    Napi::Promise promise() { return deferred_.Promise(); }

    std::string model, adapter, out, type;
    hone_merge_params params = hone_merge_default_params();

    void Execute() override {
        params.model_path = model.c_str();
        params.adapter_path = adapter.c_str();
        params.out_path = out.c_str();
        params.type = type.empty() ? nullptr : type.c_str();
        hone_merge_callbacks cb{};
        cb.user_data = this;
        cb.on_progress = [](const hone_merge_progress * p, void * ud) { return static_cast<MergeWorker *>(ud)->progress(*p); };
        cb.on_note = [](const char * message, void * ud) { static_cast<MergeWorker *>(ud)->notes_.push_back(message); };
        status_ = hone_merge(&params, &cb, &result_, &err_);
    }

    void OnOK() override {
        release();
        Napi::Env env = Env();
        if (status_ != HONE_OK) {
            deferred_.Reject(engine_error(env, err_).Value());
            return;
        }
        Napi::Object r = Napi::Object::New(env);
        r.Set("path", out);
        r.Set("bytes", (double) result_.bytes);
        r.Set("merged", result_.merged);
        r.Set("copied", result_.copied);
        r.Set("fallbacks", result_.fallbacks);
        Napi::Array notes = Napi::Array::New(env, notes_.size());
        for (size_t i = 0; i < notes_.size(); i++) notes.Set((uint32_t) i, notes_[i]);
        r.Set("notes", notes);
        deferred_.Resolve(r);
    }

    void OnError(const Napi::Error & e) override {
        release();
        deferred_.Reject(e.Value());
    }

  private:
    // On the merge thread: hands the event to JavaScript and waits for its answer, so a false
    // stops the merge at this tensor. A listener that throws does not stop it; a torn-down
    // environment does.
    bool progress(const hone_merge_progress & p) {
        if (!has_tsfn_) return true;
        ProgressCall call;
        call.done = p.done;
        call.total = p.total;
        call.tensor = p.tensor ? p.tensor : "";
        call.merged = p.merged;
        std::future<bool> answer = call.keep.get_future();
        const napi_status s = tsfn_.BlockingCall(&call, [](Napi::Env env, Napi::Function fn, ProgressCall * c) {
            bool keep = false;
            if (env != nullptr && fn) {
                keep = true;
                Napi::Object o = Napi::Object::New(env);
                o.Set("done", c->done);
                o.Set("total", c->total);
                o.Set("tensor", c->tensor);
                o.Set("merged", c->merged);
                try {
                    Napi::Value v = fn.Call({ o });
                    keep = !(v.IsBoolean() && !v.As<Napi::Boolean>().Value());
                } catch (const Napi::Error &) {
                }
            }
            c->keep.set_value(keep);
        });
        return s == napi_ok && answer.get();
    }

    void release() {
        if (has_tsfn_) tsfn_.Release();
        has_tsfn_ = false;
    }

    Napi::Promise::Deferred deferred_;
    Napi::ThreadSafeFunction tsfn_;
    bool has_tsfn_ = false;
    std::vector<std::string> notes_; // written by Execute only, read after it
    hone_merge_result result_{};
    hone_status status_ = HONE_OK;
    hone_error err_{};
};

} // namespace

Napi::Value Merge(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, info.Length() < 1 || !info[0].IsObject(), "invalid_argument", "merge(params, onProgress?): params must be {model, adapter, out, type?, scale?, threads?}");
    HN_THROW_IF(env, info.Length() > 1 && !info[1].IsFunction() && !info[1].IsUndefined(), "invalid_argument", "merge(params, onProgress?): onProgress must be a function");
    Napi::Object o = info[0].As<Napi::Object>();
    const std::string model = get_string(o, "model", ""), adapter = get_string(o, "adapter", ""), out = get_string(o, "out", "");
    HN_THROW_IF(env, model.empty() || adapter.empty() || out.empty(), "invalid_argument", "merge: 'model', 'adapter' and 'out' are required paths");
    const std::string type = get_string(o, "type", "");
    const double scale = get_number(o, "scale", 1.0), threads = get_number(o, "threads", 0);
    auto * w = new MergeWorker(env, info.Length() > 1 && info[1].IsFunction() ? info[1].As<Napi::Function>() : Napi::Function());
    w->model = model;
    w->adapter = adapter;
    w->out = out;
    w->type = type;
    w->params.scale = (float) scale;
    w->params.n_threads = (int) threads;
    Napi::Promise p = w->promise();
    w->Queue();
    return p;
}

} // namespace hone_node
