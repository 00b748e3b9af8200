#include "trainer_wrap.h"

#include "adapter_wrap.h"
#include "model_wrap.h"

#include "hone_test.h"

#include <memory>
#include <thread>
#include <vector>

namespace hone_node {

struct TrainerWrap::State {
    hone_trainer * trainer = nullptr;
    std::string checkpoint_dir, run_config, test_refuse_ops; // hone_train_params and the test hooks point into these
    ~State() { if (trainer) hone_trainer_free(trainer); }
};

namespace {

// Sequences copied out of JavaScript memory, so the training thread never touches it.
struct Sequences {
    std::vector<std::vector<int32_t>> tokens;
    std::vector<std::vector<uint8_t>> masks;
    std::vector<hone_sequence> seqs;

    void read(Napi::Env env, Napi::Value v, const char * what) {
        if (v.IsUndefined() || v.IsNull()) return;
        if (!v.IsArray()) throw make_error(env, "invalid_argument", std::string("'") + what + "' must be an array of {tokens, mask?}");
        Napi::Array a = v.As<Napi::Array>();
        tokens.resize(a.Length());
        masks.resize(a.Length());
        for (uint32_t i = 0; i < a.Length(); i++) {
            Napi::Value e = a.Get(i);
            const std::string where = std::string(what) + "[" + std::to_string(i) + "]";
            if (!e.IsObject()) throw make_error(env, "invalid_argument", where + " must be {tokens: Int32Array, mask?: Uint8Array}");
            Napi::Value t = e.As<Napi::Object>().Get("tokens"), m = e.As<Napi::Object>().Get("mask");
            if (!t.IsTypedArray() || t.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array) {
                throw make_error(env, "invalid_argument", where + ".tokens must be an Int32Array");
            }
            Napi::Int32Array ta = t.As<Napi::Int32Array>();
            tokens[i].assign(ta.Data(), ta.Data() + ta.ElementLength());
            if (!m.IsUndefined() && !m.IsNull()) {
                if (!m.IsTypedArray() || m.As<Napi::TypedArray>().TypedArrayType() != napi_uint8_array) {
                    throw make_error(env, "invalid_argument", where + ".mask must be a Uint8Array");
                }
                Napi::Uint8Array ma = m.As<Napi::Uint8Array>();
                if (ma.ElementLength() != ta.ElementLength()) throw make_error(env, "invalid_argument", where + ".mask must have one entry per token");
                masks[i].assign(ma.Data(), ma.Data() + ma.ElementLength());
            }
        }
        for (size_t i = 0; i < tokens.size(); i++) {
            seqs.push_back({ tokens[i].data(), masks[i].empty() ? nullptr : masks[i].data(), (int32_t) tokens[i].size() });
        }
    }
};

// One event crossing from the training thread to JavaScript.
struct Event {
    enum Kind { STEP, EVAL, CHECKPOINT, CHECKPOINT_FAILED } kind;
    hone_step_event step{};
    hone_eval_event eval{};
    int32_t ck_step = 0, ck_micro = 0, code = 0;
    std::string path; // CHECKPOINT_FAILED: the message
};

Napi::Object event_object(Napi::Env env, const Event & e) {
    Napi::Object o = Napi::Object::New(env);
    if (e.kind == Event::STEP) {
        const hone_step_event & s = e.step;
        o.Set("type", "step");
        o.Set("step", s.step);
        o.Set("nSteps", s.n_steps);
        o.Set("loss", s.loss);
        o.Set("lr", s.lr);
        o.Set("gradNorm", s.grad_norm);
        o.Set("clipScale", s.clip_scale);
        o.Set("tokens", (double) s.tokens);
        o.Set("positions", (double) s.positions);
        o.Set("lossTokens", (double) s.loss_tokens);
        o.Set("tokensPerS", s.tokens_per_s);
        o.Set("rowFill", s.row_fill);
        o.Set("elapsedS", s.elapsed_s);
    } else if (e.kind == Event::EVAL) {
        o.Set("type", "eval");
        o.Set("step", e.eval.step);
        o.Set("evalLoss", e.eval.eval_loss);
        o.Set("lossTokens", (double) e.eval.loss_tokens);
        o.Set("nSequences", e.eval.n_sequences);
    } else if (e.kind == Event::CHECKPOINT) {
        o.Set("type", "checkpoint");
        o.Set("path", e.path);
        o.Set("step", e.ck_step);
        o.Set("microBatch", e.ck_micro);
    } else {
        o.Set("type", "checkpoint-failed");
        o.Set("step", e.ck_step);
        o.Set("microBatch", e.ck_micro);
        o.Set("code", status_code(e.code));
        o.Set("message", e.path);
    }
    return o;
}

} // namespace

// A training run: a thread calling hone_trainer_train, whose callbacks post events through a
// thread-safe function. The function's finalizer (on the JavaScript thread, after every queued
// event was delivered) joins the thread and settles the promise, so no event arrives after it.
class TrainJob {
  public:
    TrainJob(Napi::Env env, TrainerWrap * tw, Napi::Object self, Napi::Function on_event)
        : deferred(Napi::Promise::Deferred::New(env)), tw(tw) {
        self_ref = Napi::Persistent(self);
        tsfn = Napi::ThreadSafeFunction::New(env, on_event, "hone.Trainer.train", 0, 1, this,
                                             [](Napi::Env env, TrainJob * job) { job->finish(env); });
    }

    void start() {
        worker = std::thread([this] {
            hone_train_callbacks cb{};
            cb.on_step = [](const hone_step_event * e, void * ud) {
                auto * ev = new Event{ Event::STEP };
                ev->step = *e;
                static_cast<TrainJob *>(ud)->post(ev);
                return true;
            };
            cb.on_eval = [](const hone_eval_event * e, void * ud) {
                auto * ev = new Event{ Event::EVAL };
                ev->eval = *e;
                static_cast<TrainJob *>(ud)->post(ev);
            };
            cb.on_checkpoint = [](const hone_checkpoint_event * e, void * ud) {
                auto * ev = new Event{ Event::CHECKPOINT };
                ev->path = e->path ? e->path : "";
                ev->ck_step = e->step;
                ev->ck_micro = e->micro_batch;
                static_cast<TrainJob *>(ud)->post(ev);
            };
            cb.on_checkpoint_failed = [](const hone_checkpoint_failure * f, void * ud) {
                auto * ev = new Event{ Event::CHECKPOINT_FAILED };
                ev->path = f->message ? f->message : "";
                ev->ck_step = f->step;
                ev->ck_micro = f->micro_batch;
                ev->code = f->code;
                static_cast<TrainJob *>(ud)->post(ev);
            };
            cb.poll = [](void * ud) -> int32_t { return static_cast<TrainJob *>(ud)->tw->control_.load(); };
            cb.user_data = this;
            status = hone_trainer_train(tw->state_->trainer, train.seqs.data(), (int32_t) train.seqs.size(), eval.seqs.data(),
                                        (int32_t) eval.seqs.size(), &cb, &err);
            tsfn.Release();
        });
    }

    void post(Event * ev) {
        const napi_status s = tsfn.BlockingCall(ev, [](Napi::Env env, Napi::Function fn, Event * e) {
            std::unique_ptr<Event> owned(e);
            if (env != nullptr && fn) {
                try { fn.Call({ event_object(env, *owned) }); } catch (const Napi::Error &) { /* a throwing listener does not stop training */ }
            }
        });
        if (s != napi_ok) delete ev; // not queued: free it here
    }

    void finish(Napi::Env env) {
        if (worker.joinable()) worker.join();
        tw->busy_ = false;
        const int32_t step = hone_trainer_step(tw->state_->trainer);
        const bool stopped = status == HONE_E_CANCELLED;
        tw->control_ = HONE_TRAIN_CONTINUE;
        if (status == HONE_OK || stopped) {
            Napi::Object r = Napi::Object::New(env);
            r.Set("stopped", stopped);
            r.Set("step", step);
            deferred.Resolve(r);
        } else {
            deferred.Reject(engine_error(env, err).Value());
        }
        if (tw->disposed_) tw->free_now();
        delete this;
    }

    Napi::Promise::Deferred deferred;
    TrainerWrap * tw;
    Napi::ObjectReference self_ref;
    Napi::ThreadSafeFunction tsfn;
    std::thread worker;
    Sequences train, eval;
    hone_status status = HONE_OK;
    hone_error err{};
};

// Trainer.create (graph build and allocation) and trainer.resume (checkpoint load).
class TrainerWorker : public Napi::AsyncWorker {
  public:
    TrainerWorker(Napi::Env env, const char * name) : Napi::AsyncWorker(env, name), deferred(Napi::Promise::Deferred::New(env)) {}
    void OnError(const Napi::Error & e) override { deferred.Reject(e.Value()); after(); }
    void OnOK() override {
        Napi::Env env = Env();
        if (status != HONE_OK) deferred.Reject(engine_error(env, err).Value());
        else settle(env);
        after();
    }
    virtual void settle(Napi::Env env) = 0;
    virtual void after() {}
    Napi::Promise::Deferred deferred;
    hone_status status = HONE_OK;
    hone_error err{};
};

namespace {

class CreateWorker : public TrainerWorker {
  public:
    CreateWorker(Napi::Env env, AddonData * data, Napi::Object model, Napi::Object adapter, TrainerWrap::State * st, hone_train_params p)
        : TrainerWorker(env, "hone.Trainer.create"), data(data), st(st), p(p) {
        model_ref = Napi::Persistent(model);
        adapter_ref = Napi::Persistent(adapter);
        m = Napi::ObjectWrap<ModelWrap>::Unwrap(model);
        a = Napi::ObjectWrap<AdapterWrap>::Unwrap(adapter);
        mh = m->handle(env);
        ah = a->handle(env);
        m->retain();
        a->retain();
    }
    ~CreateWorker() override { delete st; }
    void Execute() override {
        const hone_train_test_hooks hooks{ st->test_refuse_ops.empty() ? nullptr : st->test_refuse_ops.c_str(), nullptr, nullptr, 0 };
        status = hone_trainer_init_test(mh, ah, &p, &hooks, &st->trainer, &err);
    }
    void settle(Napi::Env env) override {
        deferred.Resolve(data->trainer_ctor.New({ model_ref.Value(), adapter_ref.Value(), Napi::External<TrainerWrap::State>::New(env, st) }));
        st = nullptr; // owned by the wrapper now
    }
    void after() override { m->release(); a->release(); }
    AddonData * data;
    Napi::ObjectReference model_ref, adapter_ref;
    ModelWrap * m;
    AdapterWrap * a;
    hone_model * mh;
    hone_adapter * ah;
    TrainerWrap::State * st;
    hone_train_params p;
};

// Loads a checkpoint on a worker thread: hone_trainer_resume (the same run) or
// hone_trainer_continue (a new schedule segment). Resolves with the step count.
class ResumeWorker : public TrainerWorker {
  public:
    using Load = hone_status (*)(hone_trainer *, const char *, hone_error *);
    ResumeWorker(Napi::Env env, Napi::Object self, hone_trainer * tr, std::string dir, bool * busy, Load load, const char * name)
        : TrainerWorker(env, name), tr(tr), dir(std::move(dir)), busy(busy), load(load) {
        self_ref = Napi::Persistent(self);
        *busy = true;
    }
    void Execute() override { status = load(tr, dir.c_str(), &err); }
    void settle(Napi::Env env) override { deferred.Resolve(Napi::Number::New(env, hone_trainer_step(tr))); }
    void after() override { *busy = false; }
    Napi::ObjectReference self_ref;
    hone_trainer * tr;
    std::string dir;
    bool * busy;
    Load load;
};

// hone_trainer_save_checkpoint on a worker thread; resolves with the checkpoint's folder.
class SaveCheckpointWorker : public TrainerWorker {
  public:
    SaveCheckpointWorker(Napi::Env env, Napi::Object self, hone_trainer * tr, bool * busy)
        : TrainerWorker(env, "hone.Trainer.saveCheckpoint"), tr(tr), busy(busy) {
        self_ref = Napi::Persistent(self);
        *busy = true;
    }
    void Execute() override { status = hone_trainer_save_checkpoint(tr, path, sizeof(path), &err); }
    void settle(Napi::Env env) override { deferred.Resolve(Napi::String::New(env, path)); }
    void after() override { *busy = false; }
    Napi::ObjectReference self_ref;
    hone_trainer * tr;
    bool * busy;
    char path[4096] = {};
};

int32_t parse_schedule(Napi::Env env, const std::string & s) {
    const int32_t schedule = hone_lr_schedule_from_name(s.c_str());
    if (schedule >= 0) return schedule;
    throw make_error(env, "invalid_argument", "'lrSchedule' must be constant, linear or cosine (got '" + s + "')");
}

} // namespace

Napi::Function TrainerWrap::Init(Napi::Env env, AddonData * data) {
    Napi::Function f = DefineClass(env, "Trainer", {
        StaticMethod<&TrainerWrap::Create>("create"),
        InstanceMethod<&TrainerWrap::Resume>("resume"),
        InstanceMethod<&TrainerWrap::Continue>("continueFrom"),
        InstanceMethod<&TrainerWrap::SaveCheckpoint>("saveCheckpoint"),
        InstanceMethod<&TrainerWrap::Train>("train"),
        InstanceMethod<&TrainerWrap::Stop>("stop"),
        InstanceMethod<&TrainerWrap::Cancel>("cancel"),
        InstanceMethod<&TrainerWrap::Step>("step"),
        InstanceMethod<&TrainerWrap::OpReport>("opReport"),
        InstanceMethod<&TrainerWrap::MemoryReport>("memoryReport"),
        InstanceMethod<&TrainerWrap::CheckMemory>("checkMemory"),
        InstanceMethod<&TrainerWrap::Dispose>("dispose"),
    }, data);
    data->trainer_ctor = Napi::Persistent(f);
    return f;
}

TrainerWrap::TrainerWrap(const Napi::CallbackInfo & info) : Napi::ObjectWrap<TrainerWrap>(info) {
    if (info.Length() != 3 || !info[2].IsExternal()) throw make_error(info.Env(), "invalid_argument", "use Trainer.create(model, adapter, params)");
    model_ref_ = Napi::Persistent(info[0].As<Napi::Object>());
    adapter_ref_ = Napi::Persistent(info[1].As<Napi::Object>());
    model_ = Napi::ObjectWrap<ModelWrap>::Unwrap(info[0].As<Napi::Object>());
    adapter_ = Napi::ObjectWrap<AdapterWrap>::Unwrap(info[1].As<Napi::Object>());
    state_ = info[2].As<Napi::External<State>>().Data();
    model_->retain();
    adapter_->retain();
}

// See AdapterWrap's destructor: only this object's own handle.
TrainerWrap::~TrainerWrap() { delete state_; }

void TrainerWrap::free_now() {
    if (!state_) return;
    delete state_;
    state_ = nullptr;
    adapter_->release();
    model_->release();
}

hone_trainer * TrainerWrap::handle(Napi::Env env) const {
    if (disposed_ || !state_) throw make_error(env, "disposed", "the trainer was disposed");
    return state_->trainer;
}

Napi::Value TrainerWrap::Create(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, info.Length() < 2 || !info[0].IsObject() || !info[1].IsObject(), "invalid_argument",
                "Trainer.create(model, adapter, params) needs a Model and an Adapter");
    Napi::Object o = info.Length() > 2 && info[2].IsObject() ? info[2].As<Napi::Object>() : Napi::Object::New(env);
    hone_train_params p = hone_train_default_params();
    p.n_ctx = (int32_t) get_number(o, "nCtx", p.n_ctx);
    p.n_batch = (int32_t) get_number(o, "nBatch", p.n_batch);
    p.n_batch_tokens = (int32_t) get_number(o, "nBatchTokens", p.n_batch_tokens);
    p.n_ubatch = (int32_t) get_number(o, "nUbatch", 0); // 0: automatic
    p.n_step_rows = (int32_t) get_number(o, "nStepRows", p.n_step_rows);
    p.n_steps = (int32_t) get_number(o, "nSteps", p.n_steps);
    p.n_epochs = (int32_t) get_number(o, "nEpochs", p.n_steps > 0 ? 0 : p.n_epochs);
    p.lr = (float) get_number(o, "lr", p.lr);
    p.lr_schedule = parse_schedule(env, get_string(o, "lrSchedule", hone_lr_schedule_name(p.lr_schedule)));
    p.warmup_steps = (int32_t) get_number(o, "warmupSteps", p.warmup_steps);
    p.lr_min = (float) get_number(o, "lrMin", p.lr_min);
    p.weight_decay = (float) get_number(o, "weightDecay", p.weight_decay);
    p.beta1 = (float) get_number(o, "beta1", p.beta1);
    p.beta2 = (float) get_number(o, "beta2", p.beta2);
    p.eps = (float) get_number(o, "eps", p.eps);
    p.max_grad_norm = (float) get_number(o, "maxGradNorm", p.max_grad_norm);
    p.seed = (uint64_t) get_number(o, "seed", (double) p.seed);
    p.eval_every = (int32_t) get_number(o, "evalEvery", p.eval_every);
    p.checkpoint_every = (int32_t) get_number(o, "checkpointEvery", p.checkpoint_every);
    p.keep_checkpoints = (int32_t) get_number(o, "keepCheckpoints", p.keep_checkpoints);
    p.dry_run = get_bool(o, "dryRun", p.dry_run);
    p.profile = get_bool(o, "profile", p.profile);
    p.memory_limit = (int64_t) get_number(o, "memoryLimit", (double) p.memory_limit);
    p.recompute = get_bool(o, "recompute", p.recompute);
    p.pack = get_bool(o, "pack", p.pack);
    auto * st = new State();
    st->checkpoint_dir = get_string(o, "checkpointDir", "");
    st->run_config = get_string(o, "runConfig", "");
    p.checkpoint_dir = st->checkpoint_dir.empty() ? nullptr : st->checkpoint_dir.c_str();
    p.run_config_json = st->run_config.empty() ? nullptr : st->run_config.c_str();
    // tests only: a primary backend that refuses these ops, so they fall back to the CPU
    st->test_refuse_ops = get_string(o, "testRefuseOps", "");
    CreateWorker * w = nullptr;
    try {
        w = new CreateWorker(env, info.Env().GetInstanceData<AddonData>(), info[0].As<Napi::Object>(), info[1].As<Napi::Object>(), st, p);
    } catch (...) {
        delete st;
        throw;
    }
    Napi::Promise pr = w->deferred.Promise();
    w->Queue();
    return pr;
}

// resume(dir) and continueFrom(dir): a checkpoint folder loaded on a worker thread by `load`.
Napi::Value TrainerWrap::LoadCheckpoint(const Napi::CallbackInfo & info, hone_status (*load)(hone_trainer *, const char *, hone_error *),
                                        const char * method) {
    Napi::Env env = info.Env();
    hone_trainer * tr = handle(env);
    HN_THROW_IF(env, busy_, "busy", "the trainer is busy");
    HN_THROW_IF(env, info.Length() < 1 || !info[0].IsString(), "invalid_argument", std::string("trainer.") + method + "(checkpointDir) needs a folder");
    auto * w = new ResumeWorker(env, Value(), tr, info[0].As<Napi::String>().Utf8Value(), &busy_, load, method);
    Napi::Promise p = w->deferred.Promise();
    w->Queue();
    return p;
}

Napi::Value TrainerWrap::Resume(const Napi::CallbackInfo & info) { return LoadCheckpoint(info, hone_trainer_resume, "resume"); }

Napi::Value TrainerWrap::Continue(const Napi::CallbackInfo & info) { return LoadCheckpoint(info, hone_trainer_continue, "continueFrom"); }

Napi::Value TrainerWrap::SaveCheckpoint(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    hone_trainer * tr = handle(env);
    HN_THROW_IF(env, busy_, "busy", "the trainer is busy");
    auto * w = new SaveCheckpointWorker(env, Value(), tr, &busy_);
    Napi::Promise p = w->deferred.Promise();
    w->Queue();
    return p;
}

Napi::Value TrainerWrap::Train(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    handle(env);
    HN_THROW_IF(env, busy_, "busy", "the trainer is already running");
    HN_THROW_IF(env, info.Length() < 1 || !info[0].IsObject(), "invalid_argument", "trainer.train({train, eval?}, onEvent?)");
    Napi::Object data = info[0].As<Napi::Object>();
    Napi::Function on_event = info.Length() > 1 && info[1].IsFunction() ? info[1].As<Napi::Function>()
                                                                         : Napi::Function::New(env, [](const Napi::CallbackInfo &) {});
    Sequences train, eval;
    train.read(env, data.Get("train"), "train");
    eval.read(env, data.Get("eval"), "eval");
    auto * job = new TrainJob(env, this, Value(), on_event);
    job->train = std::move(train);
    job->eval = std::move(eval);
    busy_ = true;
    control_ = HONE_TRAIN_CONTINUE;
    Napi::Promise p = job->deferred.Promise();
    job->start();
    return p;
}

Napi::Value TrainerWrap::Stop(const Napi::CallbackInfo & info) {
    control_ = HONE_TRAIN_STOP;
    return info.Env().Undefined();
}

Napi::Value TrainerWrap::Cancel(const Napi::CallbackInfo & info) {
    control_ = HONE_TRAIN_PAUSE;
    return info.Env().Undefined();
}

Napi::Value TrainerWrap::Step(const Napi::CallbackInfo & info) { return Napi::Number::New(info.Env(), hone_trainer_step(handle(info.Env()))); }

// A report is read from the trainer's graphs and buffers: never while train() runs on its thread.
static Napi::Value report(Napi::Env env, hone_trainer * tr, bool busy, hone_status (*fn)(hone_trainer *, char **, hone_error *)) {
    HN_THROW_IF(env, busy, "busy", "the trainer is training: its report is written when the run ends");
    char * json = nullptr;
    hone_error err{};
    if (fn(tr, &json, &err) != HONE_OK) throw engine_error(env, err);
    Napi::String out = Napi::String::New(env, json);
    hone_string_free(json);
    return out;
}

Napi::Value TrainerWrap::OpReport(const Napi::CallbackInfo & info) { return report(info.Env(), handle(info.Env()), busy_, hone_trainer_op_report); }

Napi::Value TrainerWrap::MemoryReport(const Napi::CallbackInfo & info) {
    return report(info.Env(), handle(info.Env()), busy_, hone_trainer_memory_report);
}

Napi::Value TrainerWrap::CheckMemory(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    hone_error err{};
    if (hone_trainer_check_memory(handle(env), &err) != HONE_OK) throw engine_error(env, err);
    return env.Undefined();
}

Napi::Value TrainerWrap::Dispose(const Napi::CallbackInfo & info) {
    disposed_ = true;
    if (busy_) control_ = HONE_TRAIN_PAUSE; // freed when the run ends
    else free_now();
    return info.Env().Undefined();
}

} // namespace hone_node
