#include "args.h"

#include <algorithm>
#include <cstdlib>

Args::Args(int argc, char ** argv, int first, const std::set<std::string> & options, const std::set<std::string> & flags) {
    for (int i = first; i < argc; i++) {
        std::string a = argv[i];
        if (a.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + a + "'");
        std::string k = a.substr(2), v;
        const size_t eq = k.find('=');
        if (eq != std::string::npos) { v = k.substr(eq + 1); k = k.substr(0, eq); }
        if (flags.count(k)) { flags_.insert(k); continue; }
        if (!options.count(k)) throw UsageError("unknown option '--" + k + "'");
        if (eq == std::string::npos) {
            if (i + 1 >= argc) throw UsageError("option '--" + k + "' needs a value");
            v = argv[++i];
        }
        values_[k] = v;
    }
}

std::string Args::str(const std::string & k, const std::string & def) const {
    auto it = values_.find(k);
    return it == values_.end() ? def : it->second;
}

std::string Args::required(const std::string & k) const {
    if (!has(k)) throw UsageError("missing required option '--" + k + "'");
    return str(k);
}

int64_t Args::integer(const std::string & k, int64_t def) const {
    if (!has(k)) return def;
    const std::string v = str(k);
    char * end = nullptr;
    const long long x = strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end) throw UsageError("option '--" + k + "' expects an integer, got '" + v + "'");
    return x;
}

double Args::number(const std::string & k, double def) const {
    if (!has(k)) return def;
    const std::string v = str(k);
    char * end = nullptr;
    const double x = strtod(v.c_str(), &end);
    if (v.empty() || *end) throw UsageError("option '--" + k + "' expects a number, got '" + v + "'");
    return x;
}

std::vector<KvItem> split_kv_list(const std::string & list) {
    std::vector<KvItem> out;
    for (size_t pos = 0; pos < list.size();) {
        const size_t end = std::min(list.find(',', pos), list.size());
        KvItem kv;
        kv.item = list.substr(pos, end - pos);
        const size_t eq = kv.item.find('=');
        kv.name = kv.item.substr(0, eq);
        kv.value = eq == std::string::npos ? "" : kv.item.substr(eq + 1);
        out.push_back(kv);
        pos = end + 1;
    }
    return out;
}
