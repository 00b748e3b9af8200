// A small command-line parser: --key value pairs and --flags, with unknown options and
// bad numbers reported by name.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One item of a "--kv a=1,b=2:3" list (make-model, probe-arch): the item as written, and its
// name and value around the first '=' (both empty-checked by the caller, which names the item).
struct KvItem { std::string item, name, value; };
std::vector<KvItem> split_kv_list(const std::string & list);

class Args {
  public:
    // `flags` take no value; every other --name takes one.
    Args(int argc, char ** argv, int first, const std::set<std::string> & options, const std::set<std::string> & flags);
    bool has(const std::string & k) const { return values_.count(k) > 0; }
    bool flag(const std::string & k) const { return flags_.count(k) > 0; }
    std::string str(const std::string & k, const std::string & def = "") const;
    std::string required(const std::string & k) const;
    int64_t integer(const std::string & k, int64_t def) const;
    double number(const std::string & k, double def) const;
  private:
    std::map<std::string, std::string> values_;
    std::set<std::string> flags_;
};
