// Shared pieces of the Node binding: engine errors as JavaScript errors with a `code`, the
// per-addon state (no globals), and a guard that keeps an object alive while a worker uses it.
// (Not common.h: llama.cpp's common library has a header of that name on the engine's path.)
#pragma once

#include <napi.h>

#include "hone.h"

#include <string>

namespace hone_node {

// Per-load state: the constructors of the wrapper classes (an addon may be loaded by several
// contexts, e.g. worker threads, so nothing lives in a global).
struct AddonData {
    Napi::FunctionReference model_ctor;
    Napi::FunctionReference adapter_ctor;
    Napi::FunctionReference renderer_ctor;
    Napi::FunctionReference trainer_ctor;
    Napi::FunctionReference chat_ctor;
};

// The stable string form of a hone_status, the same names hone-train prints.
const char * status_code(int status);

// A JavaScript Error with .code (a status_code name, or a binding code such as "disposed").
Napi::Error make_error(Napi::Env env, const std::string & code, const std::string & message);
Napi::Error engine_error(Napi::Env env, const hone_error & err);

// Argument checks that throw TypeError naming the argument.
std::string get_string(const Napi::Object & o, const char * key, const std::string & def);
double      get_number(const Napi::Object & o, const char * key, double def);
bool        get_bool(const Napi::Object & o, const char * key, bool def);

} // namespace hone_node

// Preconditions at the JavaScript boundary: throw a TypeError/Error and return.
#define HN_THROW_IF(env, cond, code, msg) \
    do { if (cond) { ::hone_node::make_error(env, code, msg).ThrowAsJavaScriptException(); return {}; } } while (0)
