// Adapter: LoRA A/B tensors for one model (hone_adapter). Adapter.create is quick and
// synchronous; Adapter.load and save touch files, so they return Promises.
#pragma once

#include "node_common.h"

namespace hone_node {

class ModelWrap;

class AdapterWrap : public Napi::ObjectWrap<AdapterWrap> {
  public:
    static Napi::Function Init(Napi::Env env, AddonData * data);
    explicit AdapterWrap(const Napi::CallbackInfo & info); // (model object, External<hone_adapter>)
    ~AdapterWrap() override;

    hone_adapter * handle(Napi::Env env) const;
    ModelWrap * model() const { return model_; }
    void retain() { users_++; }
    void release() { users_--; free_if_unused(); }

  private:
    static Napi::Value Create(const Napi::CallbackInfo & info);
    static Napi::Value Load(const Napi::CallbackInfo & info);
    Napi::Value Save(const Napi::CallbackInfo & info);
    Napi::Value NParams(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);
    void free_if_unused();

    hone_adapter * adapter_ = nullptr;
    ModelWrap * model_ = nullptr;
    Napi::ObjectReference model_ref_;
    int users_ = 0;
    bool disposed_ = false;
};

} // namespace hone_node
