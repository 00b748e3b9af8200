// Trainer: the training loop (hone_trainer). Trainer.create builds the graph on a worker
// thread; train() runs on its own thread and streams step/eval/checkpoint events through a
// thread-safe function; stop() finishes the step and checkpoints, cancel() stops after the
// current micro-batch (checkpointing mid-step). The promise settles after the last event.
// opReport()/memoryReport() return ops.json (and its memory part) as JSON text while the
// trainer is not training; checkMemory() throws out_of_memory when a real run would not fit.
#pragma once

#include "node_common.h"

#include <atomic>
#include <string>

namespace hone_node {

class ModelWrap;
class AdapterWrap;

class TrainerWrap : public Napi::ObjectWrap<TrainerWrap> {
  public:
    static Napi::Function Init(Napi::Env env, AddonData * data);
    explicit TrainerWrap(const Napi::CallbackInfo & info); // internal: (model, adapter, External<state>)
    ~TrainerWrap() override;

    struct State; // the engine handle and the strings its params point to

  private:
    static Napi::Value Create(const Napi::CallbackInfo & info);
    Napi::Value Resume(const Napi::CallbackInfo & info);
    Napi::Value Continue(const Napi::CallbackInfo & info);
    Napi::Value SaveCheckpoint(const Napi::CallbackInfo & info);
    Napi::Value Train(const Napi::CallbackInfo & info);
    Napi::Value Stop(const Napi::CallbackInfo & info);
    Napi::Value Cancel(const Napi::CallbackInfo & info);
    Napi::Value Step(const Napi::CallbackInfo & info);
    Napi::Value OpReport(const Napi::CallbackInfo & info);
    Napi::Value MemoryReport(const Napi::CallbackInfo & info);
    Napi::Value CheckMemory(const Napi::CallbackInfo & info);
    Napi::Value Dispose(const Napi::CallbackInfo & info);
    hone_trainer * handle(Napi::Env env) const;
    Napi::Value LoadCheckpoint(const Napi::CallbackInfo & info, hone_status (*load)(hone_trainer *, const char *, hone_error *), const char * method);
    void free_now();

    State * state_ = nullptr;
    ModelWrap * model_ = nullptr;
    AdapterWrap * adapter_ = nullptr;
    Napi::ObjectReference model_ref_, adapter_ref_;
    std::atomic<int32_t> control_{ HONE_TRAIN_CONTINUE };
    bool busy_ = false;
    bool disposed_ = false;
    friend class TrainJob;
    friend class TrainerWorker;
};

} // namespace hone_node
