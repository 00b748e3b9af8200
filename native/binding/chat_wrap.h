// Chat: a base model with an optional LoRA for trying it (hone_chat): llama.cpp inference.
// Chat.load({model, adapter?, backend?, threads?, ctx?}) resolves with a Chat; generate(messages,
// sampling, onPiece?) runs one reply on a worker thread, calls onPiece(text) for every piece (in
// order, all of them before the Promise settles; returning false stops the reply) and resolves
// with {text, promptTokens, replyTokens, stop, template}. stop() ends the reply in progress;
// one reply at a time per Chat. dispose() frees it (after the reply in progress, if any).
#pragma once

#include "node_common.h"

#include <atomic>

namespace hone_node {

class ChatWrap : public Napi::ObjectWrap<ChatWrap> {
  public:
    static Napi::Function Init(Napi::Env env, AddonData * data);
    explicit ChatWrap(const Napi::CallbackInfo & info); // (External<hone_chat>): use Chat.load
    ~ChatWrap() override;

    // The reply in progress: asked to stop (stop(), dispose(), or onPiece returned false).
    std::atomic<bool> stop_requested{ false };

  private:
    static Napi::Value Load(const Napi::CallbackInfo & info);
    Napi::Value Info(const Napi::CallbackInfo & info);
    Napi::Value Generate(const Napi::CallbackInfo & info);
    Napi::Value Stop(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);
    void finished(); // the reply's worker is done with the engine handle

    hone_chat * chat_ = nullptr;
    bool busy_ = false, disposed_ = false;
    friend class GenerateWorker;
};

} // namespace hone_node
