#include "hone_json.h"

#include <cmath>

std::string json_escape(const std::string & s) {
    std::string o;
    for (unsigned char c : s) {
        switch (c) {
            case '"': o += "\\\""; break;
            case '\\': o += "\\\\"; break;
            case '\n': o += "\\n"; break;
            case '\r': o += "\\r"; break;
            case '\t': o += "\\t"; break;
            default:
                if (c < 0x20) { char b[8]; snprintf(b, sizeof(b), "\\u%04x", c); o += b; }
                else o += (char) c;
        }
    }
    return o;
}

std::string json_string_array(const std::vector<std::string> & v) {
    std::string o = "[";
    for (size_t i = 0; i < v.size(); i++) o += (i ? ",\"" : "\"") + json_escape(v[i]) + "\"";
    return o + "]";
}

JsonObject & JsonObject::num(const char * k, double v) {
    if (!std::isfinite(v)) return raw(k, "null");
    char b[64];
    snprintf(b, sizeof(b), "%.9g", v);
    return raw(k, b);
}

JsonObject & JsonObject::raw(const char * k, const std::string & v) {
    if (!body_.empty()) body_ += ",";
    body_ += "\"" + json_escape(k) + "\":" + v;
    return *this;
}
