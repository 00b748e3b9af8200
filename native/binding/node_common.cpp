#include "node_common.h"

namespace hone_node {

const char * status_code(int s) { return hone_status_name(s); }

Napi::Error make_error(Napi::Env env, const std::string & code, const std::string & message) {
    Napi::Error e = Napi::Error::New(env, message);
    e.Set("code", Napi::String::New(env, code));
    return e;
}

Napi::Error engine_error(Napi::Env env, const hone_error & err) { return make_error(env, status_code(err.code), err.message); }

static Napi::Value field(const Napi::Object & o, const char * key) { return o.Has(key) ? o.Get(key) : o.Env().Undefined(); }

std::string get_string(const Napi::Object & o, const char * key, const std::string & def) {
    Napi::Value v = field(o, key);
    if (v.IsUndefined() || v.IsNull()) return def;
    if (!v.IsString()) throw make_error(o.Env(), "invalid_argument", std::string("'") + key + "' must be a string");
    return v.As<Napi::String>().Utf8Value();
}

double get_number(const Napi::Object & o, const char * key, double def) {
    Napi::Value v = field(o, key);
    if (v.IsUndefined() || v.IsNull()) return def;
    if (!v.IsNumber()) throw make_error(o.Env(), "invalid_argument", std::string("'") + key + "' must be a number");
    return v.As<Napi::Number>().DoubleValue();
}

bool get_bool(const Napi::Object & o, const char * key, bool def) {
    Napi::Value v = field(o, key);
    if (v.IsUndefined() || v.IsNull()) return def;
    if (!v.IsBoolean()) throw make_error(o.Env(), "invalid_argument", std::string("'") + key + "' must be a boolean");
    return v.As<Napi::Boolean>().Value();
}

} // namespace hone_node
