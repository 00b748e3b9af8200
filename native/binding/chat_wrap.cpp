#include "chat_wrap.h"

#include <string>

namespace hone_node {

namespace {

class LoadWorker : public Napi::AsyncWorker {
  public:
    LoadWorker(Napi::Env env, AddonData * data) : Napi::AsyncWorker(env, "hone.Chat.load"), deferred_(Napi::Promise::Deferred::New(env)), data_(data) {}
    Napi::Promise promise() { return deferred_.Promise(); }

    std::string model, adapter, backend;
    int threads = 0, ctx = 0;

    void Execute() override {
        hone_chat_params p = hone_chat_default_params();
        p.model_path = model.c_str();
        p.adapter_path = adapter.empty() ? nullptr : adapter.c_str();
        p.backend = backend.c_str();
        p.n_threads = threads;
        p.n_ctx = ctx;
        status_ = hone_chat_init(&p, &chat_, &err_);
    }
    void OnOK() override {
        Napi::Env env = Env();
        if (status_ != HONE_OK) { deferred_.Reject(engine_error(env, err_).Value()); return; }
        deferred_.Resolve(data_->chat_ctor.New({ Napi::External<hone_chat>::New(env, chat_) }));
    }
    void OnError(const Napi::Error & e) override { deferred_.Reject(e.Value()); }

  private:
    Napi::Promise::Deferred deferred_;
    AddonData * data_;
    hone_chat * chat_ = nullptr;
    hone_status status_ = HONE_OK;
    hone_error err_{};
};

// How a reply settles once every piece has reached JavaScript: the piece function's finalizer
// (which runs after its queue is empty) settles the Promise, so no piece arrives after it.
struct Settle {
    Napi::Promise::Deferred deferred;
    Napi::ObjectReference chat_ref; // keeps the Chat alive while pieces are delivered
    Napi::Reference<Napi::Value> value;
    bool ok = false;
    explicit Settle(Napi::Env env) : deferred(Napi::Promise::Deferred::New(env)) {}
    void now() {
        if (ok) deferred.Resolve(value.Value());
        else deferred.Reject(value.Value());
    }
};

struct Piece {
    std::string text;
    ChatWrap * chat;
};

} // namespace

class GenerateWorker : public Napi::AsyncWorker {
  public:
    GenerateWorker(Napi::Env env, ChatWrap * chat, Napi::Object self, Napi::Function on_piece)
        : Napi::AsyncWorker(env, "hone.Chat.generate"), chat_(chat), settle_(new Settle(env)) {
        settle_->chat_ref = Napi::Persistent(self);
        if (!on_piece.IsEmpty()) {
            tsfn_ = Napi::ThreadSafeFunction::New(env, on_piece, "hone.Chat.piece", 0, 1, settle_, [](Napi::Env, Settle * s, Settle *) {
                s->now();
                delete s;
            }, settle_);
            has_tsfn_ = true;
        }
    }
    Napi::Promise promise() { return settle_->deferred.Promise(); }

    std::string messages;
    hone_chat_sampling sampling = hone_chat_default_sampling();

    void Execute() override {
        status_ = hone_chat_generate(chat_->chat_, messages.data(), messages.size(), &sampling, &GenerateWorker::piece, this, &result_, &err_);
    }

    void OnOK() override {
        Napi::Env env = Env();
        chat_->finished();
        if (status_ != HONE_OK) {
            settle(engine_error(env, err_).Value(), false);
            return;
        }
        Napi::Object r = Napi::Object::New(env);
        r.Set("text", text_);
        r.Set("promptTokens", result_.prompt_tokens);
        r.Set("replyTokens", result_.reply_tokens);
        r.Set("stop", result_.stop);
        r.Set("template", result_.template_source);
        settle(r, true);
    }

    void OnError(const Napi::Error & e) override {
        chat_->finished();
        settle(e.Value(), false);
    }

  private:
    // On the worker thread: the piece goes to JavaScript without waiting for it; a stop asked
    // meanwhile (stop(), or onPiece returning false) ends the reply at the next piece.
    static bool piece(const char * text, size_t len, void * ud) {
        auto * w = static_cast<GenerateWorker *>(ud);
        w->text_.append(text, len);
        if (w->has_tsfn_) {
            auto * p = new Piece{ std::string(text, len), w->chat_ };
            const napi_status s = w->tsfn_.NonBlockingCall(p, [](Napi::Env env, Napi::Function fn, Piece * p) {
                if (env != nullptr && fn) {
                    try {
                        Napi::Value v = fn.Call({ Napi::String::New(env, p->text) });
                        if (v.IsBoolean() && !v.As<Napi::Boolean>().Value()) p->chat->stop_requested = true;
                    } catch (const Napi::Error &) {
                        // a listener that throws does not stop the reply
                    }
                }
                delete p;
            });
            if (s != napi_ok) {
                delete p;
                return false; // the environment is going away
            }
        }
        return !w->chat_->stop_requested.load();
    }

    void settle(Napi::Value v, bool ok) {
        settle_->value = Napi::Persistent(v);
        settle_->ok = ok;
        if (has_tsfn_) {
            has_tsfn_ = false;
            tsfn_.Release(); // the finalizer settles once the queued pieces are delivered
        } else {
            settle_->now();
            delete settle_;
        }
        settle_ = nullptr;
    }

    ChatWrap * chat_;
    Settle * settle_;
    Napi::ThreadSafeFunction tsfn_;
    bool has_tsfn_ = false;
    std::string text_; // written by Execute only, read after it
    hone_chat_result result_{};
    hone_status status_ = HONE_OK;
    hone_error err_{};
};

Napi::Function ChatWrap::Init(Napi::Env env, AddonData * data) {
    Napi::Function f = DefineClass(env, "Chat", {
        StaticMethod<&ChatWrap::Load>("load"),
        InstanceMethod<&ChatWrap::Info>("info"),
        InstanceMethod<&ChatWrap::Generate>("generate"),
        InstanceMethod<&ChatWrap::Stop>("stop"),
        InstanceMethod<&ChatWrap::Dispose>("dispose"),
    }, data);
    data->chat_ctor = Napi::Persistent(f);
    return f;
}

ChatWrap::ChatWrap(const Napi::CallbackInfo & info) : Napi::ObjectWrap<ChatWrap>(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) throw make_error(info.Env(), "invalid_argument", "use Chat.load(options) to load a chat");
    chat_ = info[0].As<Napi::External<hone_chat>>().Data();
}

ChatWrap::~ChatWrap() {
    if (chat_) hone_chat_free(chat_);
}

void ChatWrap::finished() {
    busy_ = false;
    if (disposed_ && chat_) {
        hone_chat_free(chat_);
        chat_ = nullptr;
    }
}

Napi::Value ChatWrap::Load(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, info.Length() < 1 || !info[0].IsObject(), "invalid_argument", "Chat.load expects {model, adapter?, backend?, threads?, ctx?}");
    Napi::Object o = info[0].As<Napi::Object>();
    const std::string model = get_string(o, "model", "");
    HN_THROW_IF(env, model.empty(), "invalid_argument", "Chat.load: 'model' (a GGUF file) is required");
    auto * w = new LoadWorker(env, env.GetInstanceData<AddonData>());
    w->model = model;
    w->adapter = get_string(o, "adapter", "");
    w->backend = get_string(o, "backend", "cpu");
    w->threads = (int) get_number(o, "threads", 0);
    w->ctx = (int) get_number(o, "ctx", 0);
    Napi::Promise p = w->promise();
    w->Queue();
    return p;
}

Napi::Value ChatWrap::Info(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, disposed_ || !chat_, "disposed", "the chat was disposed");
    hone_chat_info ci;
    hone_chat_get_info(chat_, &ci);
    Napi::Object o = Napi::Object::New(env);
    o.Set("backend", ci.backend);
    o.Set("template", ci.template_source);
    o.Set("nCtx", ci.n_ctx);
    o.Set("hasAdapter", ci.has_adapter);
    return o;
}

Napi::Value ChatWrap::Generate(const Napi::CallbackInfo & info) {
    Napi::Env env = info.Env();
    HN_THROW_IF(env, disposed_ || !chat_, "disposed", "the chat was disposed");
    HN_THROW_IF(env, busy_, "busy", "this chat is generating a reply: one at a time (stop() it first)");
    HN_THROW_IF(env, info.Length() < 2 || !info[0].IsString() || !info[1].IsObject(), "invalid_argument",
                "generate(messagesJson, sampling, onPiece?): messagesJson is a JSON string, sampling {maxTokens, scale, greedy, temperature, topP, seed}");
    HN_THROW_IF(env, info.Length() > 2 && !info[2].IsFunction() && !info[2].IsUndefined(), "invalid_argument", "generate: onPiece must be a function");
    Napi::Object s = info[1].As<Napi::Object>();
    hone_chat_sampling sampling = hone_chat_default_sampling();
    sampling.max_tokens = (int32_t) get_number(s, "maxTokens", sampling.max_tokens);
    sampling.adapter_scale = (float) get_number(s, "scale", sampling.adapter_scale);
    sampling.greedy = get_bool(s, "greedy", sampling.greedy);
    sampling.temperature = (float) get_number(s, "temperature", sampling.temperature);
    sampling.top_p = (float) get_number(s, "topP", sampling.top_p);
    const double seed = get_number(s, "seed", sampling.seed);
    HN_THROW_IF(env, seed < 0 || seed > 4294967295.0 || seed != (double) (uint32_t) seed, "invalid_argument", "generate: 'seed' must be a whole number 0..4294967295");
    sampling.seed = (uint32_t) seed;
    auto * w = new GenerateWorker(env, this, info.This().As<Napi::Object>(), info.Length() > 2 && info[2].IsFunction() ? info[2].As<Napi::Function>() : Napi::Function());
    w->messages = info[0].As<Napi::String>().Utf8Value();
    w->sampling = sampling;
    busy_ = true;
    stop_requested = false;
    Napi::Promise p = w->promise();
    w->Queue();
    return p;
}

Napi::Value ChatWrap::Stop(const Napi::CallbackInfo & info) {
    if (busy_) stop_requested = true;
    return Napi::Boolean::New(info.Env(), busy_);
}

Napi::Value ChatWrap::Dispose(const Napi::CallbackInfo & info) {
    disposed_ = true;
    if (busy_) stop_requested = true; // freed when the reply's worker finishes
    else if (chat_) {
        hone_chat_free(chat_);
        chat_ = nullptr;
    }
    return info.Env().Undefined();
}

} // namespace hone_node
