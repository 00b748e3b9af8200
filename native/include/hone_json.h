// Minimal JSON output: escaping and one-line objects built field by field.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

std::string json_escape(const std::string & s);
// ["a","b",...]
std::string json_string_array(const std::vector<std::string> & v);

class JsonObject {
  public:
    JsonObject & str(const char * k, const std::string & v) { return raw(k, "\"" + json_escape(v) + "\""); }
    JsonObject & num(const char * k, double v);
    JsonObject & integer(const char * k, long long v) { return raw(k, std::to_string(v)); }
    JsonObject & boolean(const char * k, bool v) { return raw(k, v ? "true" : "false"); }
    JsonObject & raw(const char * k, const std::string & v);
    std::string dump() const { return "{" + body_ + "}"; }
  private:
    std::string body_;
};
