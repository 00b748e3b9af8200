// Model: a loaded GGUF base (hone_model). Loading is slow, so Model.load returns a Promise.
// Adapters, renderers and trainers keep their model alive; dispose() frees it once they are gone.
#pragma once

#include "node_common.h"

namespace hone_node {

class ModelWrap : public Napi::ObjectWrap<ModelWrap> {
  public:
    static Napi::Function Init(Napi::Env env, AddonData * data);
    explicit ModelWrap(const Napi::CallbackInfo & info);
    ~ModelWrap() override;

    // The engine handle; throws a "disposed" error when dispose() was called.
    hone_model * handle(Napi::Env env) const;
    // Dependents (adapters, renderers, trainers, running workers) hold a use.
    void retain() { users_++; }
    void release() { users_--; free_if_unused(); }

  private:
    static Napi::Value Load(const Napi::CallbackInfo & info);
    Napi::Value Info(const Napi::CallbackInfo & info);
    Napi::Value Tokenize(const Napi::CallbackInfo & info);
    Napi::Value CreateRenderer(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);
    void free_if_unused();

    hone_model * model_ = nullptr;
    int users_ = 0;
    bool disposed_ = false;
};

} // namespace hone_node
