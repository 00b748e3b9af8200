// hone-fuzz-gguf: seeded mutations of a real GGUF file fed to hone_model_load, each in a forked
// child (run_isolated) with a time limit, so a crash or a hang is counted instead of ending the
// run. Every load must either succeed or be refused with a named status and a message.
//   hone-fuzz-gguf --model M.gguf [--cases 2000] [--seed 1] [--stride 1] [--threads 1]
//   hone-fuzz-gguf --model M.gguf --replay CASE_SEED [--out FILE]  (one case, in this process)
// Mutations: the file cut at every `stride`-th offset of its header; 1 to 8 random bit flips in
// the header; a count, length, dimension, type, offset or integer value (a hyperparameter) of
// the header (found by walking it) set to an edge value (0, 1, 2^31, 2^32, 2^63, ~0, +-1,
// random); a span of the header removed or repeated. Prints one line per failure (the case's seed and mutation, to replay it) and a summary;
// exits 1 when any case crashed or hung. test/native/fuzz-gguf-loader.test.ts runs a short sweep.
#include "hone.h"
#include "hone_tools.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <random>
#include <string>
#include <vector>

#ifndef _WIN32
#  include <unistd.h>
#endif

namespace {

struct Field {
    size_t at;   // byte offset in the file
    int bytes;   // 4 or 8
    const char * what;
};

// Walks a GGUF header (v2/v3) and records where its counts, lengths, types and offsets are.
// Returns the header's end (where tensor infos end), or 0 if the original file is not a GGUF.
struct Walker {
    const std::vector<uint8_t> & b;
    size_t p = 0;
    std::vector<Field> fields;
    bool ok = true;

    uint64_t rd(int n, const char * what) {
        if (p + n > b.size()) { ok = false; return 0; }
        uint64_t v = 0;
        memcpy(&v, &b[p], n);
        if (what) fields.push_back({ p, n, what });
        p += n;
        return v;
    }
    void str(const char * what) {
        const uint64_t n = rd(8, what);
        if (!ok || n > b.size() - p) { ok = false; return; }
        p += n;
    }
    void value(uint32_t type, int depth) {
        static const int size[] = { 1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8 };
        if (type == 8) return str("string length");
        if (type == 9 && depth == 0) {
            const uint32_t et = (uint32_t) rd(4, "array type");
            const uint64_t n = rd(8, "array length");
            for (uint64_t i = 0; ok && i < n; i++) value(et, 1);
            return;
        }
        if (type > 12 || type == 9) { ok = false; return; }
        const bool count_like = depth == 0 && (type == 4 || type == 5 || type == 10 || type == 11); // hyperparameters
        rd(size[type], count_like ? "integer value" : nullptr);
    }
    size_t walk() {
        if (rd(4, nullptr) != 0x46554747u) return 0; // "GGUF"
        rd(4, "version");
        const uint64_t n_tensors = rd(8, "tensor count");
        const uint64_t n_kv = rd(8, "key-value count");
        for (uint64_t i = 0; ok && i < n_kv; i++) {
            str("key length");
            value((uint32_t) rd(4, "value type"), 0);
        }
        for (uint64_t i = 0; ok && i < n_tensors; i++) {
            str("tensor name length");
            const uint32_t nd = (uint32_t) rd(4, "dimension count");
            for (uint32_t d = 0; ok && d < nd && d < 8; d++) rd(8, "dimension");
            rd(4, "tensor type");
            rd(8, "tensor offset");
        }
        return ok ? p : 0;
    }
};

std::vector<uint8_t> read_file(const char * path) {
    std::ifstream f(path, std::ios::binary);
    return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

bool write_file(const std::string & path, const std::vector<uint8_t> & b) {
    FILE * f = fopen(path.c_str(), "wb");
    if (!f) return false;
    const bool ok = fwrite(b.data(), 1, b.size(), f) == b.size();
    return fclose(f) == 0 && ok;
}

struct Case {
    std::vector<uint8_t> bytes;
    std::string how; // the mutation, to replay it
};

Case mutate(const std::vector<uint8_t> & orig, size_t header_end, const std::vector<Field> & fields, uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto pick = [&](uint64_t n) { return n ? rng() % n : 0; };
    Case c{ orig, "" };
    char buf[160];
    switch (pick(3)) {
        case 0: { // bit flips in the header
            const int n = 1 + (int) pick(8);
            for (int i = 0; i < n; i++) c.bytes[pick(header_end)] ^= (uint8_t) (1u << pick(8));
            snprintf(buf, sizeof(buf), "%d bit flip(s) in the header", n);
            break;
        }
        case 1: { // an edge value in a field of the header
            const Field & f = fields[pick(fields.size())];
            uint64_t v = 0;
            memcpy(&v, &c.bytes[f.at], f.bytes);
            const uint64_t edges[] = { 0, 1, 1ull << 31, 1ull << 32, 1ull << 63, ~0ull, v + 1, v - 1, v * 2, rng() };
            const uint64_t e = edges[pick(sizeof(edges) / sizeof(edges[0]))];
            memcpy(&c.bytes[f.at], &e, f.bytes);
            snprintf(buf, sizeof(buf), "%s at byte %zu set to %llu", f.what, f.at, (unsigned long long) (f.bytes == 4 ? (uint32_t) e : e));
            break;
        }
        default: { // a span of the header removed or repeated
            const size_t at = pick(header_end), n = 1 + pick(64);
            const size_t end = std::min(at + n, c.bytes.size());
            if (pick(2)) {
                c.bytes.erase(c.bytes.begin() + at, c.bytes.begin() + end);
                snprintf(buf, sizeof(buf), "%zu byte(s) at %zu removed", end - at, at);
            } else {
                std::vector<uint8_t> span(c.bytes.begin() + at, c.bytes.begin() + end);
                c.bytes.insert(c.bytes.begin() + at, span.begin(), span.end());
                snprintf(buf, sizeof(buf), "%zu byte(s) at %zu repeated", end - at, at);
            }
        }
    }
    c.how = buf;
    return c;
}

struct Tally {
    int cases = 0, loaded = 0, crashed = 0, hung = 0;
    std::map<std::string, int> refused;
};

// One load on the CPU: "loaded" or "refused <status>: <message>".
std::string load_once(const std::string & path, int threads) {
    hone_model_params mp = hone_model_default_params();
    mp.path = path.c_str();
    mp.backend = "cpu";
    mp.n_threads = threads;
    hone_model * m = nullptr;
    hone_error err{};
    const hone_status s = hone_model_load(&mp, &m, &err);
    if (s == HONE_OK) {
        hone_model_free(m);
        return "loaded";
    }
    return std::string("refused ") + hone_status_name(s) + ": " + err.message;
}

// Loads `path` in a child; "loaded", "refused <status>: <message>" or how the child died.
void load_case(const std::string & path, const std::string & how, int threads, Tally & t) {
    const hone::IsolatedResult r = hone::run_isolated([&]() -> std::string {
#ifndef _WIN32
        alarm(20); // a hang ends the child (SIGALRM) and is counted
#endif
        return load_once(path, threads);
    });
    t.cases++;
    if (r.crashed) {
        const bool hang = r.how.find("alarm") != std::string::npos;
        (hang ? t.hung : t.crashed)++;
        printf("%s: %s -> %s\n", hang ? "HANG" : "CRASH", how.c_str(), r.how.c_str());
        return;
    }
    if (r.output == "loaded") { t.loaded++; return; }
    const size_t colon = r.output.find(':');
    const std::string code = r.output.substr(8, colon - 8);
    if (colon == std::string::npos || r.output.size() <= colon + 2) printf("UNNAMED: %s -> '%s' (a refusal without a message)\n", how.c_str(), r.output.c_str());
    t.refused[code]++;
}

} // namespace

int main(int argc, char ** argv) {
    const char * model = nullptr;
    int cases = 2000, stride = 1, threads = 1;
    uint64_t seed = 1, replay = 0;
    const char * replay_out = nullptr;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string k = argv[i];
        if (k == "--model") model = argv[i + 1];
        else if (k == "--cases") cases = atoi(argv[i + 1]);
        else if (k == "--seed") seed = strtoull(argv[i + 1], nullptr, 10);
        else if (k == "--stride") stride = std::max(1, atoi(argv[i + 1]));
        else if (k == "--threads") threads = atoi(argv[i + 1]);
        else if (k == "--replay") replay = strtoull(argv[i + 1], nullptr, 10);
        else if (k == "--out") replay_out = argv[i + 1];
    }
    if (!model) {
        fprintf(stderr, "usage: hone-fuzz-gguf --model M.gguf [--cases 2000] [--seed 1] [--stride 1] [--threads 1]\n");
        return 2;
    }
    const std::vector<uint8_t> orig = read_file(model);
    Walker w{ orig };
    const size_t header_end = w.walk();
    if (header_end == 0 || w.fields.empty()) {
        fprintf(stderr, "%s: not a GGUF file whose header this harness can walk\n", model);
        return 2;
    }
    if (replay) { // one case in this process, under a debugger or a profiler; --out keeps the file
        const Case c = mutate(orig, header_end, w.fields, replay);
        const std::string path = replay_out ? replay_out : "hone-fuzz-replay.gguf";
        if (!write_file(path, c.bytes)) { fprintf(stderr, "cannot write %s\n", path.c_str()); return 2; }
        printf("case seed %llu: %s -> %s\n", (unsigned long long) replay, c.how.c_str(), path.c_str());
        fflush(stdout);
        printf("%s\n", load_once(path, threads).c_str());
        return 0;
    }
    const std::string tmp = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/hone-fuzz-" + std::to_string(
#ifndef _WIN32
        (long long) getpid()
#else
        0LL
#endif
        ) + ".gguf";
    Tally cut, mutated;
    for (size_t at = 0; at < header_end; at += (size_t) stride) { // the file cut short at each offset
        if (!write_file(tmp, std::vector<uint8_t>(orig.begin(), orig.begin() + at))) { fprintf(stderr, "cannot write %s\n", tmp.c_str()); return 2; }
        load_case(tmp, "cut at byte " + std::to_string(at), threads, cut);
    }
    for (int i = 0; i < cases; i++) {
        const uint64_t s = seed * 1000003ull + (uint64_t) i;
        Case c = mutate(orig, header_end, w.fields, s);
        if (!write_file(tmp, c.bytes)) { fprintf(stderr, "cannot write %s\n", tmp.c_str()); return 2; }
        load_case(tmp, "case seed " + std::to_string(s) + " (" + c.how + ")", threads, mutated);
    }
    remove(tmp.c_str());
    for (const auto * t : { &cut, &mutated }) {
        std::string codes;
        for (auto & [k, v] : t->refused) codes += " " + k + " " + std::to_string(v);
        printf("%s: %d cases, %d loaded, %d refused (%s ), %d crashed, %d hung\n", t == &cut ? "truncated" : "mutated", t->cases, t->loaded,
               t->cases - t->loaded - t->crashed - t->hung, codes.c_str(), t->crashed, t->hung);
    }
    printf("header: %zu bytes, %zu fields\n", header_end, w.fields.size());
    return cut.crashed + cut.hung + mutated.crashed + mutated.hung > 0 ? 1 : 0;
}
