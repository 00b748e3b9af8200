// Renderer: a model's chat template + tokenizer (hone_renderer). renderBatch renders examples
// (JSON strings) on a worker thread and resolves with tokens, loss masks and, on request, text.
#pragma once

#include "node_common.h"

namespace hone_node {

class ModelWrap;

class RendererWrap : public Napi::ObjectWrap<RendererWrap> {
  public:
    static Napi::Function Init(Napi::Env env, AddonData * data);
    explicit RendererWrap(const Napi::CallbackInfo & info); // (model, options): use model.createRenderer()
    ~RendererWrap() override;

  private:
    Napi::Value Info(const Napi::CallbackInfo & info);
    Napi::Value RenderBatch(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);
    void free_now();

    hone_renderer * renderer_ = nullptr;
    ModelWrap * model_ = nullptr;
    Napi::ObjectReference model_ref_;
    std::string template_override_;
    int busy_ = 0;
    bool disposed_ = false;
    friend class RenderWorker;
};

} // namespace hone_node
