// The engine's pure parts, tested through its own functions (no model file; the CPU buffer of one case):
// learning-rate schedules and their segments, the data order, sequence preparation and text
// windows, the loss arithmetic, hyperparameters read per architecture from in-memory GGUF
// headers, checkpoint state.json encoding and decoding, which activations selective
// recomputation rebuilds, and the fused attention's masks against the promise it is given.
// One line per case: "ok <name>" or "not ok <name>: <why>" (test/native/engine-units.test.ts
// reports each as its own test); exit code 0 when every case passes.
#include "batch.h"
#include "checkpoint.h"
#include "error.h"
#include "fused_attention.h"
#include "graph.h"
#include "hone.h"
#include "metal_rules_backend.h"
#include "metal_switch.h"
#include "model.h"
#include "optimizer.h"
#include "recompute.h"
#include "schedule.h"

#include "ggml-alloc.h"
#include "ggml-cpu.h"
#include "gguf.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#ifndef _WIN32
#include <unistd.h>
#endif

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using namespace hone;

namespace {

struct Failure {
    std::string why;
};

#define CHECK(cond, ...) do { if (!(cond)) throw Failure{ strfmt(__VA_ARGS__) }; } while (0)

int n_failed = 0;

void run_case(const char * name, const std::function<void()> & f) {
    try {
        f();
        printf("ok %s\n", name);
    } catch (const Failure & e) {
        printf("not ok %s: %s\n", name, e.why.c_str());
        n_failed++;
    } catch (const std::exception & e) {
        printf("not ok %s: unexpected exception: %s\n", name, e.what());
        n_failed++;
    }
    fflush(stdout);
}

// f must throw a HoneError with this code whose message contains `part`.
void expect_error(hone_status code, const std::string & part, const std::function<void()> & f) {
    try {
        f();
    } catch (const HoneError & e) {
        CHECK(e.code() == code, "error code %d, %d expected (%s)", (int) e.code(), (int) code, e.what());
        CHECK(std::string(e.what()).find(part) != std::string::npos, "message '%s' does not name '%s'", e.what(), part.c_str());
        return;
    }
    throw Failure{ strfmt("no error; expected code %d naming '%s'", (int) code, part.c_str()) };
}

bool near(double a, double b, double rel = 1e-6) { return std::fabs(a - b) <= rel * std::max(1.0, std::fabs(b)); }

hone_train_params sched(int32_t schedule, int32_t warmup, float lr = 1e-3f, float lr_min = 1e-4f) {
    hone_train_params p = hone_train_default_params();
    p.lr = lr;
    p.lr_min = lr_min;
    p.lr_schedule = schedule;
    p.warmup_steps = warmup;
    return p;
}

// ---- learning-rate schedules ---------------------------------------------------------------

void schedule_cases() {
    run_case("schedule: warm-up ramps lr * step / W from step 1, for every schedule", [] {
        for (int32_t s : { HONE_LR_CONSTANT, HONE_LR_LINEAR, HONE_LR_COSINE }) {
            const hone_train_params p = sched(s, 4);
            for (int step = 1; step <= 4; step++) {
                CHECK(near(lr_at(p, step, 20), 1e-3 * step / 4), "%s step %d: %g", hone_lr_schedule_name(s), step, lr_at(p, step, 20));
            }
        }
    });
    run_case("schedule: constant holds lr after warm-up", [] {
        const hone_train_params p = sched(HONE_LR_CONSTANT, 2);
        for (int step = 3; step <= 10; step++) CHECK(lr_at(p, step, 10) == p.lr, "step %d: %g", step, lr_at(p, step, 10));
    });
    run_case("schedule: linear decays from lr (first step after warm-up) to just above lr_min (last)", [] {
        const hone_train_params p = sched(HONE_LR_LINEAR, 2);
        const int n = 12, W = 2;
        for (int step = W + 1; step <= n; step++) {
            const double prog = (double) (step - W - 1) / (n - W);
            CHECK(near(lr_at(p, step, n), 1e-4 + (1e-3 - 1e-4) * (1 - prog)), "step %d: %g", step, lr_at(p, step, n));
        }
        CHECK(near(lr_at(p, W + 1, n), 1e-3), "first after warm-up: %g", lr_at(p, W + 1, n));
        CHECK(lr_at(p, n, n) > p.lr_min && near(lr_at(p, n, n), 1e-4 + 9e-4 / (n - W)), "last: %g", lr_at(p, n, n));
    });
    run_case("schedule: cosine starts at lr, passes (lr + lr_min) / 2 halfway and ends just above lr_min", [] {
        const hone_train_params p = sched(HONE_LR_COSINE, 0);
        // 10 steps, no warm-up: step 6 has progress 0.5
        CHECK(near(lr_at(p, 1, 10), 1e-3), "step 1: %g", lr_at(p, 1, 10));
        CHECK(near(lr_at(p, 6, 10), 5.5e-4), "halfway: %g", lr_at(p, 6, 10));
        CHECK(lr_at(p, 10, 10) > p.lr_min && lr_at(p, 10, 10) < 1.3e-4, "last: %g", lr_at(p, 10, 10));
        for (int step = 2; step <= 10; step++) CHECK(lr_at(p, step, 10) < lr_at(p, step - 1, 10), "not decreasing at step %d", step);
    });
    run_case("schedule: no warm-up runs step 1 at the full rate", [] {
        for (int32_t s : { HONE_LR_CONSTANT, HONE_LR_LINEAR, HONE_LR_COSINE }) {
            const float lr = lr_at(sched(s, 0), 1, 5);
            CHECK(near(lr, 1e-3), "%s: %g", hone_lr_schedule_name(s), lr);
        }
    });
    run_case("schedule: a continued segment runs its own warm-up and decay over its own steps", [] {
        // 10 steps before, a segment of 20 more: its step k is step k of a 20-step run
        const hone_train_params p = sched(HONE_LR_COSINE, 3);
        for (int k = 0; k < 20; k++) {
            const float seg = segment_lr(p, 10 + k, 10, 30), fresh = segment_lr(p, k, 0, 20);
            CHECK(seg == fresh, "segment step %d: %g, %g for a fresh run", k + 1, seg, fresh);
            CHECK(fresh == lr_at(p, k + 1, 20), "step %d: segment_lr %g, lr_at %g", k + 1, fresh, lr_at(p, k + 1, 20));
        }
        CHECK(near(segment_lr(p, 10, 10, 30), 1e-3 / 3), "the segment's first step is in warm-up: %g", segment_lr(p, 10, 10, 30));
    });
    run_case("schedule: planned steps come from n_steps, else epochs over the data rounded up", [] {
        hone_train_params p = hone_train_default_params();
        p.n_batch = 4;
        p.n_steps = 7;
        p.n_epochs = 3;
        CHECK(planned_steps(p, 10) == 7, "n_steps given: %lld", (long long) planned_steps(p, 10));
        p.n_steps = 0;
        CHECK(planned_steps(p, 10) == 8, "3 epochs of 10 in 4s: %lld", (long long) planned_steps(p, 10));
        CHECK(planned_steps(p, 4) == 3, "3 epochs of 4 in 4s: %lld", (long long) planned_steps(p, 4));
    });
    run_case("schedule: names parse to their enum and back; anything else is -1", [] {
        for (int32_t s : { HONE_LR_CONSTANT, HONE_LR_LINEAR, HONE_LR_COSINE }) {
            CHECK(hone_lr_schedule_from_name(hone_lr_schedule_name(s)) == s, "%s", hone_lr_schedule_name(s));
        }
        CHECK(!strcmp(hone_lr_schedule_name(HONE_LR_COSINE), "cosine"), "%s", hone_lr_schedule_name(HONE_LR_COSINE));
        for (const char * bad : { "Cosine", "", "cos", "linear " }) CHECK(hone_lr_schedule_from_name(bad) == -1, "'%s' parsed", bad);
        CHECK(hone_lr_schedule_from_name(nullptr) == -1, "null parsed");
    });
}

// ---- data order -------------------------------------------------------------------------

void data_order_cases() {
    run_case("data order: every epoch is a permutation of the sequences", [] {
        DataOrder o(7, 42);
        for (int e = 0; e < 5; e++) {
            std::set<int32_t> seen;
            for (int i = 0; i < 7; i++) seen.insert(o.at(e * 7 + i));
            CHECK(seen.size() == 7 && *seen.begin() == 0 && *seen.rbegin() == 6, "epoch %d: %zu distinct", e, seen.size());
        }
    });
    run_case("data order: the same seed gives the same order, whatever the cursor it starts from", [] {
        DataOrder a(13, 7), b(13, 7);
        std::vector<int32_t> seq;
        for (int i = 0; i < 60; i++) seq.push_back(a.at(i));
        for (int start : { 0, 5, 13, 27, 59 }) {
            DataOrder resumed(13, 7);
            for (int i = start; i < 60; i++) CHECK(resumed.at(i) == seq[i], "from %d: position %d differs", start, i);
        }
        for (int i = 59; i >= 0; i--) CHECK(b.at(i) == seq[i], "backwards: position %d differs", i);
    });
    run_case("data order: other seeds and other epochs shuffle differently", [] {
        DataOrder a(50, 1), b(50, 2);
        int same_seed = 0, same_epoch = 0;
        for (int i = 0; i < 50; i++) {
            same_seed += a.at(i) == b.at(i);
            same_epoch += a.at(i) == a.at(50 + i);
        }
        CHECK(same_seed < 10, "seeds 1 and 2 agree at %d of 50 positions", same_seed);
        CHECK(same_epoch < 10, "epochs 0 and 1 agree at %d of 50 positions", same_epoch);
        DataOrder id(50, 1);
        int fixed = 0;
        for (int i = 0; i < 50; i++) fixed += id.at(i) == i;
        CHECK(fixed < 10, "epoch 0 leaves %d of 50 in place", fixed);
    });
    run_case("data order: SplitMix64 gives the reference outputs (the order is the same on every platform)", [] {
        uint64_t s = 0;
        const uint64_t want[3] = { 0xE220A8397B1DCDAFULL, 0x6E789E6AA1B965F4ULL, 0x06C45D188009454FULL };
        for (uint64_t w : want) {
            const uint64_t got = splitmix64(s);
            CHECK(got == w, "%016llx, %016llx expected", (unsigned long long) got, (unsigned long long) w);
        }
    });
    run_case("data order: one sequence is always sequence 0", [] {
        DataOrder o(1, 99);
        for (int i = 0; i < 5; i++) CHECK(o.at(i) == 0, "position %d: %d", i, o.at(i));
    });
}

// ---- packing ----------------------------------------------------------------------------------

void packing_cases() {
    run_case("packing: every sequence lands in exactly one row, no row holds more than T positions", [] {
        std::vector<int32_t> lengths;
        uint64_t s = 5;
        for (int i = 0; i < 200; i++) lengths.push_back(1 + (int32_t) (splitmix64(s) % 300));
        lengths.push_back(512); // a full row (the engine truncates to T before packing)
        const auto rows = pack_rows(lengths, 512);
        std::vector<int> seen(lengths.size(), 0);
        int64_t total = 0;
        for (const auto & r : rows) {
            int64_t used = 0;
            for (int32_t i : r) { seen[i]++; used += lengths[i]; }
            CHECK(used <= 512, "a row holds %lld positions", (long long) used);
            total += used;
        }
        for (size_t i = 0; i < seen.size(); i++) CHECK(seen[i] == 1, "sequence %zu placed %d times", i, seen[i]);
        // first-fit decreasing: within 11/9 of the bound sum/T (+1)
        const int64_t bound = (total + 511) / 512;
        CHECK((int64_t) rows.size() <= bound * 11 / 9 + 1, "%zu rows for a lower bound of %lld", rows.size(), (long long) bound);
    });
    run_case("packing: longest first, ties in order, each into the first row with room; the same input, the same rows", [] {
        const auto rows = pack_rows({ 3, 8, 5, 2, 5, 1 }, 10);
        // 8 -> row 0 (room 2); 5 -> row 1 (room 5); 5 -> row 1 (room 0); 3 -> row 2 (room 7); 2 -> row 0; 1 -> row 2
        const std::vector<std::vector<int32_t>> want = { { 1, 3 }, { 2, 4 }, { 0, 5 } };
        CHECK(rows == want, "rows differ from first-fit decreasing's (%zu rows)", rows.size());
        CHECK(pack_rows({ 3, 8, 5, 2, 5, 1 }, 10) == rows, "not deterministic");
        const auto full = pack_rows({ 4, 4, 4 }, 4);
        CHECK(full.size() == 3, "three full rows, got %zu", full.size());
        CHECK(pack_rows({}, 8).empty(), "no sequences, no rows");
    });
    run_case("packing: it helps where the two shortest sequences fit in one row", [] {
        const int32_t fits[] = { 900, 300, 700 }, full[] = { 513, 600, 512 };
        CHECK(hone_packing_helps(fits, 3, 1024), "300 + 700 fit in 1024");
        CHECK(!hone_packing_helps(full, 3, 1024), "no two fit in 1024");
        CHECK(!hone_packing_helps(fits, 1, 1024), "one sequence");
        const int32_t long_ones[] = { 5000, 5000 };
        CHECK(!hone_packing_helps(long_ones, 2, 1024), "sequences longer than the row take one each");
    });
    run_case("checkpoints: a replacement cut short is put back by the next prune, unless the new one made it", [] {
        const fs::path root = fs::temp_directory_path() / ("hone-prune-" + std::to_string((long long) getpid()));
        fs::remove_all(root);
        for (const char * d : { "3.replaced", "4", "4.replaced", "5.old", "5.tmp" }) {
            fs::create_directories(root / d);
            std::ofstream(root / d / "state.json") << "{}";
        }
        prune_checkpoints(root.string(), 0);
        CHECK(fs::exists(root / "3" / "state.json"), "3.replaced, with no 3, is checkpoint 3 again");
        CHECK(!fs::exists(root / "3.replaced") && !fs::exists(root / "4.replaced"), "no .replaced folder is left");
        CHECK(fs::exists(root / "4") && !fs::exists(root / "5.old") && !fs::exists(root / "5.tmp"), "4 stays, stale folders go");
        fs::remove_all(root);
    });
    run_case("micro-batch sizes: divisors of the batch unpacked; equal splits of a step's rows packed", [] {
        CHECK(micro_batch_candidates(0, 12, true) == std::vector<int32_t>({ 12, 6, 4, 3, 2, 1 }), "divisors of 12");
        CHECK(micro_batch_candidates(9, 32, false) == std::vector<int32_t>({ 9, 5, 3, 2, 1 }), "splits of 9 rows");
        CHECK(micro_batch_candidates(1, 1, false) == std::vector<int32_t>({ 1 }), "one row");
        CHECK(micro_batch_candidates(0, 4, false) == std::vector<int32_t>({ 1 }), "no rows: one");
    });
    run_case("step rows: the most rows a step fills, unpacked its sequences, packed its packed rows", [] {
        const int32_t lengths[] = { 100, 100, 100, 100, 300, 300, 50, 50 };
        hone_train_params p = hone_train_default_params();
        p.n_ctx = 400;
        p.n_batch = 4;
        p.pack = false;
        CHECK(hone_step_rows(lengths, 8, &p) == 4, "unpacked: a step's 4 sequences");
        p.pack = true;
        // every step of 4 of these packs into 1 to 3 rows of 400; check against pack_rows itself
        StepPlan plan(std::vector<int32_t>(lengths, lengths + 8), 4, 0, p.seed, 0);
        size_t most = 0;
        for (int s = 0; s < 2; s++) {
            std::vector<int32_t> step;
            for (int32_t i : plan.take(s)) step.push_back(lengths[i]);
            most = std::max(most, pack_rows(step, 400).size());
        }
        CHECK(hone_step_rows(lengths, 8, &p) == (int32_t) most, "packed: %d rows, pack_rows says %zu", hone_step_rows(lengths, 8, &p), most);
        CHECK(most < 4, "these pack into fewer rows than sequences");
        p.n_ctx = 64; // every sequence is cut to a full row
        CHECK(hone_step_rows(lengths, 8, &p) == 4, "full rows: one each");
        CHECK(hone_step_rows(lengths, 0, &p) == 0, "no sequences");
    });
    run_case("token budget: each step takes sequences in data order while they fit, at least one; epochs count sequences", [] {
        const std::vector<int32_t> lengths = { 10, 50, 30, 70, 20, 90, 40, 60 };
        StepPlan plan(lengths, 1, 100, 7, 3 * 8); // three epochs
        DataOrder order(8, 7);
        int64_t drawn = 0;
        for (int64_t s = 0; s < plan.steps_to_limit(); s++) {
            const auto seqs = plan.take(s);
            CHECK(!seqs.empty(), "step %lld is empty", (long long) s);
            CHECK(plan.start(s) == drawn, "step %lld starts at %lld, %lld drawn", (long long) s, (long long) plan.start(s), (long long) drawn);
            int64_t tokens = 0;
            for (size_t i = 0; i < seqs.size(); i++) {
                CHECK(seqs[i] == order.at(drawn + (int64_t) i), "step %lld takes the data order", (long long) s);
                tokens += lengths[seqs[i]];
            }
            CHECK(tokens <= 100 || seqs.size() == 1, "step %lld holds %lld tokens", (long long) s, (long long) tokens);
            // the next sequence would not have fitted (unless the run's draws end here)
            const int64_t next = drawn + (int64_t) seqs.size();
            CHECK(next >= 24 || tokens + lengths[order.at(next)] > 100, "step %lld stopped early", (long long) s);
            drawn = next;
        }
        CHECK(drawn == 24, "three epochs draw 24 sequences, drew %lld", (long long) drawn);
        StepPlan again(lengths, 1, 100, 7, 24);
        CHECK(again.start(5) == plan.start(5) && again.take(5) == plan.take(5), "the same seed and lengths, the same steps, from any step");
        StepPlan fixed(lengths, 4, 0, 7, 0);
        CHECK(fixed.start(3) == 12 && fixed.take(3).size() == 4, "without a budget: n_batch a step");
    });
    run_case("context proposal: 99% of sequences whole, a multiple of 64, capped", [] {
        std::vector<int32_t> lengths(100, 100);
        lengths[99] = 5000; // one outlier in a hundred: left to truncation
        lengths[98] = 300;  // the 99th: 299 inputs -> 320
        CHECK(hone_suggest_context(lengths.data(), 100, 0) == 320, "%d", hone_suggest_context(lengths.data(), 100, 0));
        CHECK(hone_suggest_context(lengths.data(), 100, 256) == 256, "capped: %d", hone_suggest_context(lengths.data(), 100, 256));
        const int32_t short_ones[] = { 10, 20 };
        CHECK(hone_suggest_context(short_ones, 2, 0) == 64, "at least a tile: %d", hone_suggest_context(short_ones, 2, 0));
        const int32_t exact[] = { 129 }; // 128 inputs
        CHECK(hone_suggest_context(exact, 1, 0) == 128, "%d", hone_suggest_context(exact, 1, 0));
        CHECK(hone_suggest_context(nullptr, 0, 0) == 0, "no sequences");
    });
}

// ---- sequence preparation, windows, loss arithmetic ----------------------------------------

hone_sequence seq_of(const std::vector<int32_t> & t, const std::vector<uint8_t> * mask = nullptr) {
    hone_sequence s{};
    s.tokens = t.data();
    s.n_tokens = (int32_t) t.size();
    s.loss_mask = mask ? mask->data() : nullptr;
    return s;
}

template <typename T> std::string str(const std::vector<T> & v) {
    std::string s;
    for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string((long long) x);
    return s;
}

void sequence_cases() {
    run_case("sequences: a short one is right-padded; its targets are the next tokens, padding carries no loss", [] {
        const std::vector<int32_t> t = { 5, 6, 7, 8 };
        const PreparedSeq p = prepare_sequence(seq_of(t), 6, 99);
        CHECK(str(p.input) == "5,6,7,8,99,99", "input %s", str(p.input).c_str());
        CHECK(str(p.target) == "6,7,8,0,0,0", "target %s", str(p.target).c_str());
        CHECK(str(p.mask) == "1,1,1,0,0,0", "mask %s", str(p.mask).c_str());
        CHECK(p.n_loss == 3 && p.n_real == 4, "n_loss %lld, n_real %d", (long long) p.n_loss, p.n_real);
    });
    run_case("sequences: a long one is truncated on the right (T inputs, T targets)", [] {
        const std::vector<int32_t> t = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
        const PreparedSeq p = prepare_sequence(seq_of(t), 4, 0);
        CHECK(str(p.input) == "1,2,3,4" && str(p.target) == "2,3,4,5" && str(p.mask) == "1,1,1,1", "%s / %s / %s",
              str(p.input).c_str(), str(p.target).c_str(), str(p.mask).c_str());
        CHECK(p.n_loss == 4 && p.n_real == 4, "n_loss %lld, n_real %d", (long long) p.n_loss, p.n_real);
        const std::vector<int32_t> exact = { 1, 2, 3, 4, 5 };
        const PreparedSeq q = prepare_sequence(seq_of(exact), 4, 0);
        CHECK(q.n_loss == 4 && q.n_real == 4 && q.target[3] == 5, "T + 1 tokens: n_loss %lld, n_real %d", (long long) q.n_loss, q.n_real);
    });
    run_case("sequences: a token's loss flag applies where it is the target (shifted by one)", [] {
        const std::vector<int32_t> t = { 10, 11, 12, 13, 14 };
        const std::vector<uint8_t> m = { 1, 0, 0, 1, 1 }; // the prompt 10..12, the reply 13, 14
        const PreparedSeq p = prepare_sequence(seq_of(t, &m), 6, 0);
        CHECK(str(p.mask) == "0,0,1,1,0,0", "mask %s", str(p.mask).c_str());
        CHECK(p.n_loss == 2, "n_loss %lld", (long long) p.n_loss);
    });
    run_case("sequences: fewer than two tokens carry no loss", [] {
        const std::vector<int32_t> one = { 3 }, none = {};
        const PreparedSeq a = prepare_sequence(seq_of(one), 4, 0), b = prepare_sequence(seq_of(none), 4, 0);
        CHECK(a.n_loss == 0 && a.n_real == 1 && a.input[0] == 3, "one token: n_loss %lld, n_real %d", (long long) a.n_loss, a.n_real);
        CHECK(b.n_loss == 0 && b.n_real == 0, "no token: n_loss %lld, n_real %d", (long long) b.n_loss, b.n_real);
    });
    run_case("sequences: the data fingerprint sees inputs, loss targets and order, not masked-out targets", [] {
        const std::vector<int32_t> t1 = { 1, 2, 3, 4 }, t2 = { 5, 6, 7 }, t1b = { 1, 2, 3, 9 };
        const std::vector<uint8_t> m_all = { 1, 1, 1, 1 }, m_cut = { 1, 1, 1, 0 };
        auto fp = [](std::vector<PreparedSeq> v) { return fingerprint(v); };
        const PreparedSeq a = prepare_sequence(seq_of(t1), 5, 0), b = prepare_sequence(seq_of(t2), 5, 0);
        CHECK(fp({ a, b }) == fp({ prepare_sequence(seq_of(t1), 5, 0), prepare_sequence(seq_of(t2), 5, 0) }), "not deterministic");
        CHECK(fp({ a, b }) != fp({ b, a }), "order not seen");
        CHECK(fp({ a }) != fp({ prepare_sequence(seq_of(t1b), 5, 0) }), "a changed token not seen");
        CHECK(fp({ a }) != fp({ prepare_sequence(seq_of(t1, &m_cut), 5, 0) }), "a changed mask not seen");
        // the last token is only a target: with its loss masked, changing it changes no input and no loss target
        CHECK(fp({ prepare_sequence(seq_of(t1, &m_cut), 3, 0) }) == fp({ prepare_sequence(seq_of(t1b, &m_cut), 3, 0) }),
              "a masked-out target changed the fingerprint");
        CHECK(fp({ prepare_sequence(seq_of(t1, &m_all), 5, 0) }) == fp({ a }), "an all-ones mask differs from none");
    });
    run_case("text windows: n_ctx + 1 tokens overlapping by one, every token after the first a target exactly once", [] {
        for (int n : { 2, 3, 9, 10, 17, 100 }) {
            for (int ctx : { 1, 4, 8 }) {
                std::vector<int32_t> starts(n, -1);
                const int32_t k = hone_text_windows(n, ctx, starts.data(), n);
                CHECK(k == (n - 2) / ctx + 1, "n %d ctx %d: %d windows", n, ctx, k);
                std::vector<int> targeted(n, 0);
                for (int w = 0; w < k; w++) {
                    CHECK(starts[w] == w * ctx, "n %d ctx %d: window %d starts at %d", n, ctx, w, starts[w]);
                    const int end = std::min(n, starts[w] + ctx + 1);
                    for (int i = starts[w] + 1; i < end; i++) targeted[i]++;
                }
                CHECK(targeted[0] == 0, "the first token is a target");
                for (int i = 1; i < n; i++) CHECK(targeted[i] == 1, "n %d ctx %d: token %d is a target %d times", n, ctx, i, targeted[i]);
            }
        }
    });
    run_case("text windows: fewer than 2 tokens or n_ctx < 1 give none; n_max bounds what is written, not the count", [] {
        CHECK(hone_text_windows(1, 4, nullptr, 0) == 0 && hone_text_windows(0, 4, nullptr, 0) == 0, "short text gave windows");
        CHECK(hone_text_windows(10, 0, nullptr, 0) == 0, "n_ctx 0 gave windows");
        int32_t starts[4] = { -1, -1, -1, -1 };
        CHECK(hone_text_windows(20, 2, starts, 2) == 10, "count with n_max 2");
        CHECK(starts[0] == 0 && starts[1] == 2 && starts[2] == -1, "wrote %d %d %d", starts[0], starts[1], starts[2]);
        CHECK(hone_text_windows(20, 2, nullptr, 0) == 10, "count without a buffer");
    });
    run_case("loss: micro-batch scales make the step's loss the mean over its loss tokens", [] {
        // 2 micro-batches of B = 2 sequences of T = 4; each micro-batch's loss as the graph
        // computes it: the masked cross-entropy summed over its positions divided by T * B.
        const int T = 4, B = 2;
        const std::vector<int32_t> t[4] = { { 1, 2, 3, 4, 5 }, { 1, 2 }, { 1, 2, 3 }, { 1 } };
        const std::vector<uint8_t> m0 = { 0, 0, 1, 1, 1 };
        std::vector<PreparedSeq> s;
        for (int i = 0; i < 4; i++) s.push_back(prepare_sequence(seq_of(t[i], i == 0 ? &m0 : nullptr), T, 0));
        int64_t n_loss = 0;
        double sum = 0.0, want = 0.0;
        auto ce = [](int seq, int pos) { return 0.5 + seq + 0.25 * pos; }; // any per-position loss
        for (int i = 0; i < 4; i++) {
            n_loss += s[i].n_loss;
            for (int j = 0; j < T; j++) if (s[i].mask[j]) want += ce(i, j);
        }
        CHECK(n_loss == 3 + 1 + 2 + 0, "loss tokens %lld", (long long) n_loss);
        want /= (double) n_loss;
        const float scale = loss_scale(T, B, n_loss);
        for (int mb = 0; mb < 2; mb++) {
            double rows = 0.0;
            for (int b = 0; b < B; b++) {
                for (int j = 0; j < T; j++) if (s[mb * B + b].mask[j]) rows += ce(mb * B + b, j);
            }
            sum += rows / (T * B) * scale;
        }
        CHECK(near(sum, want, 1e-6), "step loss %.9g, mean %.9g", sum, want);
        CHECK(loss_scale(T, B, 0) == 0.0f, "no loss tokens: scale %g", loss_scale(T, B, 0));
    });
    run_case("loss: gradient clipping scales a norm above the limit down to it, and nothing else", [] {
        CHECK(clip_factor(2.0f, 1.0f) == 0.5f, "norm 2, max 1: %g", clip_factor(2.0f, 1.0f));
        CHECK(clip_factor(0.5f, 1.0f) == 1.0f, "norm 0.5, max 1: %g", clip_factor(0.5f, 1.0f));
        CHECK(clip_factor(1.0f, 1.0f) == 1.0f, "norm at the limit: %g", clip_factor(1.0f, 1.0f));
        CHECK(clip_factor(100.0f, 0.0f) == 1.0f, "max 0 (no clipping): %g", clip_factor(100.0f, 0.0f));
    });
}

// ---- hyperparameters per architecture -------------------------------------------------------

// A GGUF header in memory with one architecture's keys: n_layer layers, 64 wide, 4 heads.
struct Header {
    std::unique_ptr<hone_model> m = std::make_unique<hone_model>();
    std::string a;
    Header(const std::string & arch, int n_layer = 4) : a(arch + ".") {
        m->gguf = gguf_init_empty();
        m->path = arch + "-test.gguf";
        gguf_set_val_str(m->gguf, "general.architecture", arch.c_str());
        u32("block_count", n_layer);
        u32("embedding_length", 64);
        u32("feed_forward_length", 128);
        u32("attention.head_count", 4);
    }
    Header & u32(const std::string & k, uint32_t v) { gguf_set_val_u32(m->gguf, (a + k).c_str(), v); return *this; }
    Header & f32(const std::string & k, float v) { gguf_set_val_f32(m->gguf, (a + k).c_str(), v); return *this; }
    Header & str(const std::string & k, const char * v) { gguf_set_val_str(m->gguf, (a + k).c_str(), v); return *this; }
    Header & flag(const std::string & k, bool v) { gguf_set_val_bool(m->gguf, (a + k).c_str(), v); return *this; }
    Header & i32s(const std::string & k, const std::vector<int32_t> & v) {
        gguf_set_arr_data(m->gguf, (a + k).c_str(), GGUF_TYPE_INT32, v.data(), v.size());
        return *this;
    }
    Header & remove(const std::string & k) { gguf_remove_key(m->gguf, (a + k).c_str()); return *this; }
    const Hparams & read() { read_hparams(*m); return m->hp; }
};

void hparams_cases() {
    run_case("hparams: llama's defaults (KV heads, head size, RoPE, epsilon, context) as llama.cpp's loader sets them", [] {
        Header h("llama");
        const Hparams & hp = h.read();
        CHECK(hp.desc->norms == arch::Norms::PRE && hp.rope_type == GGML_ROPE_TYPE_NORMAL, "norms %s rope %d", arch::name_of(hp.desc->norms), hp.rope_type);
        CHECK(hp.n_layer == 4 && hp.n_embd == 64 && hp.n_ff == 128 && hp.n_head == 4 && hp.n_head_kv == 4, "counts");
        CHECK(hp.head_dim == 16 && hp.n_rot == 16 && hp.n_ctx_train == 2048, "head_dim %d n_rot %d ctx %d", hp.head_dim, hp.n_rot, hp.n_ctx_train);
        CHECK(hp.norm_eps == 1e-5f && hp.rope_freq_base == 10000.0f && hp.rope_freq_scale == 1.0f, "eps %g base %g scale %g", hp.norm_eps,
              hp.rope_freq_base, hp.rope_freq_scale);
        CHECK(hp.desc->tensors.ffn_norm == "ffn_norm.weight", "ffn norm %s", hp.desc->tensors.ffn_norm.c_str());
        for (int il = 0; il < 4; il++) CHECK(hp.rope_l[il] && !hp.swa_l[il] && hp.n_head_kv_l[il] == 4, "layer %d", il);
    });
    run_case("hparams: grouped-query heads, key length, epsilon and RoPE base from the file", [] {
        Header h("qwen2");
        h.u32("attention.head_count_kv", 2).u32("attention.key_length", 32).u32("rope.dimension_count", 32);
        h.f32("attention.layer_norm_rms_epsilon", 1e-6f).f32("rope.freq_base", 1e6f).u32("context_length", 4096);
        const Hparams & hp = h.read();
        CHECK(hp.desc->tensors.qkv_bias && hp.rope_type == GGML_ROPE_TYPE_NEOX, "qkv bias / rope %d", hp.rope_type);
        CHECK(hp.n_head_kv == 2 && hp.head_dim == 32 && hp.n_rot == 32, "kv %d head_dim %d", hp.n_head_kv, hp.head_dim);
        CHECK(hp.norm_eps == 1e-6f && hp.rope_freq_base == 1e6f && hp.n_ctx_train == 4096, "eps %g base %g", hp.norm_eps, hp.rope_freq_base);
    });
    run_case("hparams: per-layer head and FFN counts (OpenELM) and an always-tied output", [] {
        Header h("openelm", 3);
        h.remove("attention.head_count").remove("feed_forward_length");
        h.i32s("attention.head_count", { 2, 4, 4 }).i32s("attention.head_count_kv", { 1, 2, 4 }).i32s("feed_forward_length", { 96, 128, 160 });
        h.u32("attention.key_length", 16);
        const Hparams & hp = h.read();
        CHECK(str(hp.n_head_l) == "2,4,4" && str(hp.n_head_kv_l) == "1,2,4" && str(hp.n_ff_l) == "96,128,160", "%s / %s / %s",
              str(hp.n_head_l).c_str(), str(hp.n_head_kv_l).c_str(), str(hp.n_ff_l).c_str());
        CHECK(hp.n_head == 2 && hp.n_ff == 96 && hp.desc->always_tied && hp.desc->qk_norm == arch::QkNorm::PER_HEAD, "first layer / traits");
    });
    run_case("hparams: Gemma 2's scales, soft caps and alternating windows with llama.cpp's defaults", [] {
        Header h("gemma2", 6);
        const Hparams & hp = h.read();
        CHECK(hp.desc->ffn == arch::Ffn::GEGLU && hp.desc->norms == arch::Norms::SANDWICH && near(hp.embedding_scale, 8.0), "geglu/sandwich/scale %g",
              hp.embedding_scale);
        CHECK(hp.final_softcap == 30.0f && hp.attn_softcap == 50.0f, "caps %g %g", hp.final_softcap, hp.attn_softcap);
        CHECK(hp.n_swa == 4096 && str(hp.swa_l) == "1,0,1,0,1,0", "window %d layers %s", hp.n_swa, str(hp.swa_l).c_str());
        CHECK(near(hp.q_scale, 0.25), "q_scale %g (1/sqrt(head size 16))", hp.q_scale);
        Header wide("gemma2", 6), big("gemma2", 46);
        wide.u32("attention.key_length", 64);
        big.u32("attention.key_length", 64);
        CHECK(near(wide.read().q_scale, 1.0 / 8.0), "q_scale %g (1/sqrt(head size 64))", wide.read().q_scale);
        CHECK(near(big.read().q_scale, 1.0 / 4.0), "27B: q_scale %g (1/sqrt(n_embd / n_head = 16))", big.read().q_scale);
        Header h3("gemma3", 7);
        h3.u32("attention.sliding_window", 512).f32("rope.freq_base", 1e6f);
        const Hparams & g3 = h3.read();
        CHECK(g3.final_softcap == 0.0f && g3.n_swa == 512 && str(g3.swa_l) == "1,1,1,1,1,0,1", "gemma3: cap %g window %d layers %s",
              g3.final_softcap, g3.n_swa, str(g3.swa_l).c_str());
        CHECK(g3.rope_base_l[0] == 10000.0f && g3.rope_base_l[5] == 1e6f, "gemma3 RoPE bases %g %g", g3.rope_base_l[0], g3.rope_base_l[5]);
    });
    run_case("hparams: SmolLM3 has no RoPE in every 4th layer", [] {
        Header h("smollm3", 8);
        CHECK(str(h.read().rope_l) == "1,1,1,0,1,1,1,0", "rope layers %s", str(h.read().rope_l).c_str());
    });
    run_case("hparams: Baichuan's positions by depth (32 layers RoPE, 40 ALiBi, other none)", [] {
        Header a("baichuan", 32), b("baichuan", 40), c("baichuan", 12);
        CHECK(a.read().rope_type == GGML_ROPE_TYPE_NORMAL && a.read().alibi_max_bias == 0.0f, "32 layers");
        CHECK(b.read().rope_type == -1 && b.read().alibi_max_bias == 8.0f, "40 layers: rope %d alibi %g", b.read().rope_type, b.read().alibi_max_bias);
        CHECK(c.read().rope_type == -1 && c.read().alibi_max_bias == 0.0f && !c.read().rope_l[0], "12 layers");
    });
    run_case("hparams: MiniCPM's scale defaults; Granite requires its logit scale", [] {
        Header h("minicpm", 4);
        const Hparams & hp = h.read();
        CHECK(hp.embedding_scale == 12.0f && near(hp.residual_scale, 1.4 / 2.0) && near(hp.logit_scale, 4.0), "%g %g %g", hp.embedding_scale,
              hp.residual_scale, hp.logit_scale);
        Header g("granite");
        expect_error(HONE_E_FORMAT, "granite.logit_scale", [&] { g.read(); });
        Header g2("granite");
        g2.f32("logit_scale", 8.0f).f32("embedding_scale", 12.0f);
        CHECK(g2.read().logit_scale == 8.0f && g2.read().residual_scale == 0.0f, "granite: %g %g", g2.read().logit_scale, g2.read().residual_scale);
    });
    run_case("hparams: M-RoPE needs its sections (Qwen2-VL, which also reads no epsilon)", [] {
        Header h("qwen2vl");
        h.f32("attention.layer_norm_rms_epsilon", 1e-6f);
        expect_error(HONE_E_FORMAT, "rope.dimension_sections", [&] { h.read(); });
        Header ok("qwen2vl");
        ok.f32("attention.layer_norm_rms_epsilon", 1e-6f).i32s("rope.dimension_sections", { 2, 3, 3, 0 });
        const Hparams & hp = ok.read();
        CHECK(hp.norm_eps == 0.0f && hp.n_pos_per_token() == 4, "eps %g pos %d", hp.norm_eps, hp.n_pos_per_token());
        CHECK(hp.rope_sections[0] == 2 && hp.rope_sections[1] == 3 && hp.rope_sections[3] == 0, "sections");
    });
    run_case("hparams: RoPE scaling: linear, none, YaRN (ext_factor 1, its original context, the attention factor); LongRoPE's type refused", [] {
        Header h("llama");
        h.f32("rope.scaling.factor", 4.0f).str("rope.scaling.type", "linear");
        CHECK(h.read().rope_freq_scale == 0.25f && h.read().rope_ext_factor == 0.0f, "scale %g", h.read().rope_freq_scale);
        Header none("llama");
        none.f32("rope.scaling.factor", 4.0f).str("rope.scaling.type", "none");
        CHECK(none.read().rope_freq_scale == 1.0f, "llama.cpp never scales with type none: %g", none.read().rope_freq_scale);
        Header y("llama");
        y.f32("rope.scaling.factor", 4.0f).str("rope.scaling.type", "yarn").u32("rope.scaling.original_context_length", 512).f32("rope.scaling.attn_factor", 0.8f);
        const Hparams & yp = y.read();
        CHECK(yp.rope_freq_scale == 0.25f && yp.rope_ext_factor == 1.0f && yp.n_ctx_orig == 512 && yp.rope_attn_factor == 0.8f,
              "scale %g ext %g orig %d attn %g", yp.rope_freq_scale, yp.rope_ext_factor, yp.n_ctx_orig, yp.rope_attn_factor);
        Header plain("llama");
        CHECK(plain.read().n_ctx_orig == plain.read().n_ctx_train, "the original context defaults to the training context");
        Header lr("llama");
        lr.str("rope.scaling.type", "longrope");
        expect_error(HONE_E_UNSUPPORTED, "rope scaling 'longrope'", [&] { lr.read(); });
    });
    run_case("hparams: Phi-3 reads with LongRoPE's factors (tensors the graph applies; test/native/rope-scaling.test.ts)", [] {
        Header h("phi3");
        ggml_context * meta = ggml_init({ ggml_tensor_overhead() * 2, nullptr, true });
        ggml_tensor * t = ggml_new_tensor_1d(meta, GGML_TYPE_F32, 8);
        ggml_set_name(t, "rope_factors_short.weight");
        gguf_add_tensor(h.m->gguf, t);
        CHECK(h.read().rope_type == GGML_ROPE_TYPE_NEOX, "phi3 with LongRoPE factors: rope type %d", h.read().rope_type);
        ggml_free(meta);
        Header plain("phi3");
        CHECK(near(plain.read().q_scale, 0.25) && plain.read().rope_type == GGML_ROPE_TYPE_NEOX, "phi3: q_scale %g", plain.read().q_scale);
    });
    run_case("hparams: refusals name the file and the key (missing count, head mismatch, odd rotary size)", [] {
        Header a("llama");
        a.remove("block_count");
        expect_error(HONE_E_FORMAT, "llama.block_count", [&] { a.read(); });
        Header b("llama");
        b.u32("attention.head_count_kv", 3);
        expect_error(HONE_E_FORMAT, "inconsistent head counts", [&] { b.read(); });
        Header c("llama");
        c.u32("rope.dimension_count", 15);
        expect_error(HONE_E_FORMAT, "llama-test.gguf: 'llama.rope.dimension_count' is 15", [&] { c.read(); });
        Header d("llama");
        d.u32("attention.head_count", 0);
        expect_error(HONE_E_UNSUPPORTED, "no attention or no FFN", [&] { d.read(); });
    });
    run_case("hparams: Qwen3.5's delta-net layers: three of every four by default, sizes that do not fit refused naming the keys", [] {
        auto qwen35 = [](uint32_t inner) {
            Header h("qwen35");
            h.i32s("rope.dimension_sections", { 2, 3, 3, 0 });
            for (const char * k : { "ssm.conv_kernel", "ssm.state_size", "ssm.group_count", "ssm.time_step_rank" }) h.u32(k, 4);
            h.u32("ssm.inner_size", inner);
            return h;
        };
        Header ok = qwen35(16);
        const Hparams & hp = ok.read();
        CHECK(hp.recurrent_l == std::vector<char>({ 1, 1, 1, 0 }) && hp.ssm_d_inner == 16 && hp.ssm_dt_rank == 4, "recurrent layers and sizes");
        Header bad = qwen35(24); // 4 value heads of 6, but state_size 4
        expect_error(HONE_E_FORMAT, "qwen35-test.gguf: inconsistent delta-net sizes: qwen35.ssm.conv_kernel 4, ssm.inner_size 24", [&] { bad.read(); });
    });
    run_case("hparams: Cohere 2 MoE's norm from the epsilon key the file has, its windows and RoPE per layer", [] {
        auto cohere2moe = [] {
            Header h("cohere2moe", 5);
            h.u32("expert_count", 4).u32("expert_used_count", 2).u32("leading_dense_block_count", 1);
            h.u32("attention.sliding_window", 3).u32("attention.sliding_window_pattern", 2).f32("logit_scale", 0.5f);
            return h;
        };
        Header rms = cohere2moe();
        rms.f32("attention.layer_norm_rms_epsilon", 1e-6f).f32("attention.layer_norm_epsilon", 1e-3f);
        const Hparams & r = rms.read();
        CHECK(!r.layer_norm && r.norm_eps == 1e-6f, "RMS with its epsilon: layer_norm %d eps %g", r.layer_norm, r.norm_eps);
        // the first of each 2 global; the dense layer 0 keeps RoPE, global layers 2 and 4 have none
        CHECK(r.swa_l == std::vector<char>({ 0, 1, 0, 1, 0 }) && r.rope_l == std::vector<char>({ 1, 1, 0, 1, 0 }) && r.n_swa == 3, "windows and RoPE");
        Header layer = cohere2moe();
        layer.f32("attention.layer_norm_epsilon", 1e-3f);
        const Hparams & l = layer.read();
        CHECK(l.layer_norm && l.norm_eps == 1e-3f, "LayerNorm with its epsilon: layer_norm %d eps %g", l.layer_norm, l.norm_eps);
        Header none = cohere2moe();
        expect_error(HONE_E_FORMAT, "cohere2moe-test.gguf: neither 'cohere2moe.attention.layer_norm_rms_epsilon' nor 'cohere2moe.attention.layer_norm_epsilon' is set",
                     [&] { none.read(); });
    });
    run_case("hparams: every trainable architecture reads from a minimal header", [] {
        // the keys each needs beyond the common ones (its description's), with example values
        auto extra = [](const arch::Desc & d, Header & h) {
            if (d.norm_kind == arch::NormKind::RMS_IF_KEY) h.f32("attention.layer_norm_rms_epsilon", 1e-5f); // one of two epsilons required
            for (const arch::RequiredKey & k : d.required_keys) {
                if (k.type == arch::KeyType::F32) h.f32(k.name, 1.0f);
                // Qwen3.5: 8 value heads of 8; a sigmoid router; ERNIE 4.5's only runnable MoE step; one dense
                // layer before the experts (Cohere 2 MoE's loader requires the key)
                const uint32_t u = k.name == "ssm.inner_size" ? 64 : k.name == "expert_gating_func" ? 2 :
                                   k.name == "interleave_moe_layer_step" || k.name == "leading_dense_block_count" ? 1 : 8;
                if (k.type == arch::KeyType::U32) h.u32(k.name, u);
                // windowed heads of 8 (Gemma 4) rotate at most 8
                if (k.name == "attention.key_length_swa") h.u32("rope.dimension_count_swa", 8);
                if (k.type == arch::KeyType::BOOL) h.flag(k.name, true);
                if (k.type == arch::KeyType::I32_ARRAY) h.i32s(k.name, k.name == "rope.dimension_sections" ? std::vector<int32_t>{ 2, 3, 3, 0 } : std::vector<int32_t>{ 1, 0, 1, 0 });
            }
        };
        const std::vector<std::string> names = trainable_architectures();
        CHECK(names.size() >= 30, "%zu architectures", names.size());
        for (const std::string & name : names) {
            Header h(name);
            extra(*arch::find(name), h);
            try {
                const Hparams & hp = h.read();
                CHECK(hp.arch_name == name && hp.n_layer == 4 && (int) hp.rope_l.size() == 4, "%s: read back %s", name.c_str(), hp.arch_name.c_str());
            } catch (const HoneError & e) {
                throw Failure{ strfmt("%s: %s", name.c_str(), e.what()) };
            }
        }
    });
}

// ---- checkpoint state -----------------------------------------------------------------------

fs::path temp_root() {
#ifndef _WIN32
    const long pid = (long) getpid();
#else
    const long pid = 0;
#endif
    const fs::path p = fs::temp_directory_path() / ("hone-engine-tests-" + std::to_string(pid));
    fs::create_directories(p);
    return p;
}

void write_file(const fs::path & p, const std::string & text) {
    fs::create_directories(p.parent_path());
    std::ofstream f(p, std::ios::binary);
    f << text;
}

void checkpoint_cases(const fs::path & root) {
    hone_train_params p = hone_train_default_params();
    p.n_batch = 4;
    p.n_ubatch = 2;
    p.lr_schedule = HONE_LR_LINEAR;
    p.warmup_steps = 1;
    p.seed = 1234;
    p.pack = false; // unpacked, a micro-batch is a fixed number of sequences: the cursor counts them
    RunPosition pos;
    pos.step = 17;
    pos.micro = 1;
    pos.loss_sum = 1.25;
    pos.tokens = 4096;
    pos.elapsed_s = 12.5;
    pos.segment = 2;
    pos.segment_start = 10;
    DataIdentity d;
    d.known = true;
    d.n_steps = 30;
    d.n_train = 9;
    d.n_eval = 3;
    d.train_fp = 0xFEDCBA9876543210ULL; // the high bit set: hex, not a JSON number that loses it
    d.eval_fp = 0x0123456789ABCDEFULL;
    const json state = encode_state(p, pos, 15, d, json{ { "size", 1 } }, json{ { "rank", 8 } }, json{ { "name", "run" } });

    run_case("checkpoint: state.json round-trips the run position and the data identity", [&] {
        write_file(root / "a" / "state.json", state.dump(2) + "\n");
        const json s = read_state((root / "a").string());
        const RunPosition q = decode_position(s);
        CHECK(q.step == 17 && q.micro == 1 && q.loss_sum == 1.25 && q.tokens == 4096 && q.elapsed_s == 12.5,
              "position %lld %d %g %lld %g", (long long) q.step, q.micro, q.loss_sum, (long long) q.tokens, q.elapsed_s);
        CHECK(decode_updates(s) == 15, "AdamW updates %lld", (long long) decode_updates(s));
        CHECK(q.segment == 2 && q.segment_start == 10, "segment %d from %lld", q.segment, (long long) q.segment_start);
        const DataIdentity e = decode_data(s);
        CHECK(e.known && e.n_steps == 30 && e.n_train == 9 && e.n_eval == 3, "data %lld %d %d", (long long) e.n_steps, e.n_train, e.n_eval);
        CHECK(e.train_fp == d.train_fp && e.eval_fp == d.eval_fp, "fingerprints %016llx %016llx", (unsigned long long) e.train_fp,
              (unsigned long long) e.eval_fp);
        CHECK(s.at("config").at("name") == "run" && s.at("adapter").at("rank") == 8 && s.at("model").at("size") == 1, "given fields");
    });
    run_case("checkpoint: state.json records the data cursor, epoch and the next step's learning rate", [&] {
        // 7 steps into the segment and one micro-batch of 2: 7 * 4 + 2 sequences drawn
        CHECK(state.at("data").at("cursor") == 30, "cursor %s", state.at("data").at("cursor").dump().c_str());
        CHECK(state.at("rng").at("epoch") == 28 / 9, "epoch %s", state.at("rng").at("epoch").dump().c_str());
        // packed, a micro-batch holds however many sequences fit: the cursor counts the steps' only
        hone_train_params packed = p;
        packed.pack = true;
        CHECK(encode_state(packed, pos, 15, d, json{}, json{}, json{}).at("data").at("cursor") == 28, "packed cursor");
        const float next = state.at("schedule").at("next_lr").get<float>();
        CHECK(next == segment_lr(p, 17, 10, 30) && next > 0.0f, "next_lr %g, %g", next, segment_lr(p, 17, 10, 30));
        CHECK(state.at("schedule").at("type") == "linear" && state.at("train_params").at("lr_schedule") == "linear", "schedule name");
        RunPosition done = pos;
        done.step = 30;
        CHECK(encode_state(p, done, 15, d, json{}, json{}, json{}).at("schedule").at("next_lr") == 0.0f, "a finished run has a next lr");
    });
    run_case("checkpoint: a truncated, foreign or newer state.json is refused", [&] {
        const std::string text = state.dump(2);
        write_file(root / "cut" / "state.json", text.substr(0, text.size() / 2));
        expect_error(HONE_E_FORMAT, "not valid JSON", [&] { read_state((root / "cut").string()); });
        write_file(root / "other" / "state.json", "{\"format\": \"something\", \"version\": 1}");
        expect_error(HONE_E_FORMAT, "not a Hone checkpoint state file", [&] { read_state((root / "other").string()); });
        json newer = state;
        newer["version"] = 99;
        write_file(root / "newer" / "state.json", newer.dump());
        expect_error(HONE_E_FORMAT, "version 99", [&] { read_state((root / "newer").string()); });
        fs::create_directories(root / "empty");
        expect_error(HONE_E_FORMAT, "state.json is missing", [&] { read_state((root / "empty").string()); });
        expect_error(HONE_E_IO, "not found", [&] { read_state((root / "absent").string()); });
    });
    run_case("checkpoint: a missing field fails decoding; a checkpoint from before segments is segment 0", [&] {
        json partial = state;
        partial.erase("partial_step");
        bool threw = false;
        try { decode_position(partial); } catch (const nlohmann::json::exception &) { threw = true; }
        CHECK(threw, "decoded without partial_step");
        json old = state;
        old.erase("segment");
        const RunPosition q = decode_position(old);
        CHECK(q.segment == 0 && q.segment_start == 0 && q.step == 17, "segment %d from %lld", q.segment, (long long) q.segment_start);
    });
}

} // namespace

// ---- Metal's placement rules (patch 0011) and its switch --------------------------------------

void metal_cases() {
    run_case("metal: HONE_METAL_OUT_PROD accepts unset, 1 and 0 and refuses anything else by name", [] {
        CHECK(metal_out_prod_enabled(nullptr) && metal_out_prod_enabled("") && metal_out_prod_enabled("1"), "on unless 0");
        CHECK(!metal_out_prod_enabled("0"), "0 turns it off");
        expect_error(HONE_E_INVALID_ARG, "HONE_METAL_OUT_PROD is 'no'", [] { metal_out_prod_enabled("no"); });
    });
    // The optimizer graph is not scheduled (it runs on the adapter's backend), so the placement
    // test's op report cannot show it: ask the rules directly about its nodes.
    run_case("metal: the optimizer's ops (optimizer.cpp's graphs) are accepted on apple7; AdamW is refused on apple6", [] {
        ggml_init_params ip = { 16 * ggml_tensor_overhead() + 4096, nullptr, true };
        ggml_context * ctx = ggml_init(ip);
        ggml_tensor * w = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 8, 64);
        ggml_tensor * g = ggml_dup_tensor(ctx, w), * m = ggml_dup_tensor(ctx, w), * v = ggml_dup_tensor(ctx, w);
        ggml_tensor * pars = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 7);
        ggml_set_param(w);
        ggml_tensor * clip = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 1);
        ggml_tensor * clipped = ggml_mul(ctx, g, clip);
        ggml_tensor * step = ggml_opt_step_adamw(ctx, w, clipped, m, v, pars);
        ggml_tensor * norm = ggml_sum(ctx, ggml_sqr(ctx, g)); // the gradient norm, as the optimizer builds it
        ggml_tensor * total = ggml_add(ctx, norm, norm);
        ggml_backend_t apple7 = metal_rules_backend_init("apple7", 1), apple6 = metal_rules_backend_init("apple6", 1);
        for (ggml_tensor * t : { clipped, step, norm, norm->src[0], total }) {
            CHECK(ggml_backend_supports_op(apple7, t), "%s refused on apple7", ggml_op_desc(t));
        }
        CHECK(!ggml_backend_supports_op(apple6, step), "OPT_STEP_ADAMW needs simdgroup reductions");
        ggml_backend_free(apple7);
        ggml_backend_free(apple6);
        ggml_free(ctx);
    });
    run_case("metal: an unknown GPU family is refused, naming the known ones", [] {
        expect_error(HONE_E_INVALID_ARG, "known: apple7, metal3, apple6", [] { metal_rules_backend_init("m5", 1); });
    });
}

// ---- Selective recomputation: which activations the backward rebuilds ---------------------------

namespace {

// A LoRA'd SwiGLU block on a normalised input, its graph built as the trainer builds one (no
// memory: only the structure): n = rms_norm(x)·wn, gate = Wg·n + P·n, up = Wu·n,
// act = swiglu(gate, up), loss = sum(D·act) with P and D trainable.
struct SwigluBlock {
    ggml_context * ctx;
    ggml_cgraph * gb;
    int n_forward = 0;
    ggml_tensor * n, * gate, * up, * act, * scaled;
    explicit SwigluBlock(int64_t tokens) {
        ctx = ggml_init({ 256 * ggml_tensor_overhead() + 2 * ggml_graph_overhead_custom(512, true), nullptr, true });
        ggml_tensor * x = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, tokens);
        ggml_set_input(x);
        ggml_tensor * wn = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 64);
        ggml_tensor * wg = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 64, 96), * wu = ggml_dup_tensor(ctx, wg), * p = ggml_dup_tensor(ctx, wg);
        ggml_tensor * d = ggml_new_tensor_2d(ctx, GGML_TYPE_F32, 96, 8);
        ggml_set_param(p);
        ggml_set_param(d);
        n = ggml_mul(ctx, ggml_rms_norm(ctx, x, 1e-6f), wn);
        gate = ggml_add(ctx, ggml_mul_mat(ctx, wg, n), ggml_mul_mat(ctx, p, n));
        up = ggml_mul_mat(ctx, wu, n);
        act = ggml_swiglu_split(ctx, gate, up);
        ggml_set_name(n, "n");
        ggml_set_name(gate, "gate");
        ggml_set_name(act, "act");
        scaled = ggml_scale(ctx, ggml_mul_mat(ctx, d, act), 0.5f);
        ggml_tensor * loss = ggml_sum(ctx, ggml_sqr(ctx, scaled));
        ggml_set_loss(loss);
        ggml_cgraph * gf = ggml_new_graph_custom(ctx, 512, true);
        ggml_build_forward_expand(gf, loss);
        gb = ggml_graph_dup(ctx, gf, true);
        ggml_build_backward_expand(ctx, gb, nullptr);
        for (int i = 0; i < ggml_graph_n_nodes(gb); i++) if (ggml_graph_node(gb, i) == loss) n_forward = i + 1;
    }
    ~SwigluBlock() { ggml_free(ctx); }
    // the backward's readers of t's original, and of clones of it
    std::pair<int, int> readers(const ggml_tensor * t) const {
        int orig = 0, clone = 0;
        for (int i = n_forward; i < ggml_graph_n_nodes(gb); i++) {
            const ggml_tensor * b = ggml_graph_node(gb, i);
            for (int s = 0; s < GGML_MAX_SRC; s++) {
                if (!b->src[s]) continue;
                if (b->src[s] == t) orig++;
                else if (b->src[s]->op == t->op && std::strcmp(b->src[s]->name, (std::string(t->name) + " (re)").c_str()) == 0) clone++;
            }
        }
        return { orig, clone };
    }
};

} // namespace

// Patch 0023's log-sum-exp output of the fused forward: the CPU writes it (the reference a GPU's
// forward is compared with, test-backend-ops), Metal refuses the node that asks for it, and the
// engine asks only GPU backends for it.
void attention_lse_cases() {
    run_case("attention lse: the CPU forward writes each row's base-2 log-sum-exp (grouped heads, two sequences, more keys than queries)", [] {
        const int64_t D = 16, N = 7, M = 11, H = 4, HK = 2, S = 2;
        const float scale = 0.3f;
        ggml_context * ctx = ggml_init({ 16 * ggml_tensor_overhead() + ggml_graph_overhead(), nullptr, true });
        ggml_tensor * q = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, D, N, H, S);
        ggml_tensor * k = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, D, M, HK, S);
        ggml_tensor * v = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, D, M, HK, S);
        ggml_tensor * mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, M, N);
        ggml_tensor * lse = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, N, H, S);
        ggml_tensor * kqv = ggml_flash_attn_ext(ctx, q, k, v, mask, scale, 0.0f, 0.0f);
        ggml_flash_attn_ext_set_prec(kqv, GGML_PREC_F32);
        ggml_flash_attn_ext_set_causal_exact(kqv);
        ggml_flash_attn_ext_set_lse(kqv, lse);
        ggml_cgraph * g = ggml_new_graph(ctx);
        ggml_build_forward_expand(g, kqv);
        ggml_backend_t cpu = ggml_backend_cpu_init();
        ggml_backend_cpu_set_n_threads(cpu, 3);
        ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors(ctx, cpu);
        std::vector<float> qv(ggml_nelements(q)), kv(ggml_nelements(k)), vv(ggml_nelements(v));
        uint32_t seed = 7;
        auto rnd = [&] { seed = seed * 1664525u + 1013904223u; return (float) (seed >> 8) / (float) (1u << 24) * 4.0f - 2.0f; };
        for (auto * x : { &qv, &kv, &vv }) for (float & e : *x) e = rnd();
        ggml_backend_tensor_set(q, qv.data(), 0, ggml_nbytes(q));
        ggml_backend_tensor_set(k, kv.data(), 0, ggml_nbytes(k));
        ggml_backend_tensor_set(v, vv.data(), 0, ggml_nbytes(v));
        std::vector<ggml_fp16_t> mv(ggml_nelements(mask), ggml_fp32_to_fp16(-INFINITY)); // key j visible to query i up to i + (M - N)
        for (int64_t i = 0; i < N; i++) for (int64_t j = 0; j <= i + (M - N); j++) mv[i * M + j] = ggml_fp32_to_fp16(0.0f);
        ggml_backend_tensor_set(mask, mv.data(), 0, ggml_nbytes(mask));
        CHECK(ggml_backend_graph_compute(cpu, g) == GGML_STATUS_SUCCESS, "the forward failed");
        std::vector<float> got(ggml_nelements(lse));
        ggml_backend_tensor_get(lse, got.data(), 0, ggml_nbytes(lse));
        double worst = 0.0;
        for (int64_t s = 0; s < S; s++) for (int64_t h = 0; h < H; h++) for (int64_t i = 0; i < N; i++) {
            double sum = 0.0;
            for (int64_t j = 0; j <= i + (M - N); j++) {
                double dot = 0.0;
                for (int64_t e = 0; e < D; e++) dot += (double) qv[((s * H + h) * N + i) * D + e] * kv[((s * HK + h / (H / HK)) * M + j) * D + e];
                sum += std::exp(scale * dot);
            }
            worst = std::max(worst, std::fabs(got[(s * H + h) * N + i] - std::log2(sum)));
        }
        CHECK(worst < 1e-4, "largest difference from log2(sum exp(scale q.k)): %g", worst);
        ggml_backend_buffer_free(buf);
        ggml_backend_free(cpu);
        ggml_free(ctx);
    });
    run_case("attention lse: Metal's rules refuse a forward that must write it; the engine asks no CPU backend for it", [] {
        ggml_context * ctx = ggml_init({ 16 * ggml_tensor_overhead(), nullptr, true });
        ggml_tensor * q = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 64, 8, 4, 1);
        ggml_tensor * k = ggml_new_tensor_4d(ctx, GGML_TYPE_F32, 64, 8, 2, 1);
        ggml_tensor * mask = ggml_new_tensor_2d(ctx, GGML_TYPE_F16, 8, 8);
        ggml_tensor * kqv = ggml_flash_attn_ext(ctx, q, k, ggml_dup_tensor(ctx, k), mask, 0.125f, 0.0f, 0.0f);
        ggml_flash_attn_ext_set_causal_exact(kqv);
        ggml_tensor * lse = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 8, 4, 1);
        ggml_backend_t apple7 = metal_rules_backend_init("apple7", 1);
        CHECK(ggml_backend_supports_op(apple7, kqv), "apple7 takes the forward without it");
        ggml_flash_attn_ext_set_lse(kqv, lse);
        CHECK(!ggml_backend_supports_op(apple7, kqv), "apple7 would not write it");
        ggml_flash_attn_ext_set_lse(kqv, nullptr);
        CHECK(!give_attention_lse(apple7, kqv, lse) && kqv->src[5] == nullptr, "a CPU-type backend is not asked for it");
        ggml_backend_free(apple7);
        ggml_free(ctx);
    });
}

// The masks the fused attention reads, uploaded as a trainer uploads them, against the promise
// each layer's FLASH_ATTN_EXT node carries: a layer promised an exactly causal mask (whose CUDA
// forward and backward then hide keys by position, never reading it) must be given exactly that.
void attention_mask_cases() {
    run_case("fused attention: a layer promised an exactly causal mask gets one; a windowed layer is not promised it", [] {
        Header h("gemma3", 7);
        h.u32("attention.sliding_window", 3);
        const Hparams & hp = h.read();
        const int T = 9;
        ggml_init_params ip = { 64 * ggml_tensor_overhead(), nullptr, true };
        ggml_context * ctx = ggml_init(ip);
        ForwardInputs in = make_forward_inputs(ctx, hp, T, 1);
        ggml_backend_buffer_t buf = ggml_backend_alloc_ctx_tensors_from_buft(ctx, ggml_backend_cpu_buffer_type());
        set_attention_masks(in, hp, T);
        auto exactly_causal = [&](ggml_tensor * m) {
            std::vector<ggml_fp16_t> v(ggml_nelements(m));
            ggml_backend_tensor_get(m, v.data(), 0, v.size() * sizeof(ggml_fp16_t));
            for (int q = 0; q < T; q++) {
                for (int k = 0; k < T; k++) {
                    const float x = ggml_fp16_to_fp32(v[(size_t) q * T + k]);
                    if (k > q ? !(std::isinf(x) && x < 0) : x != 0.0f) return false;
                }
            }
            return true;
        };
        int promised = 0;
        for (int il = 0; il < hp.n_layer; il++) {
            ggml_tensor * m = hp.swa_l[il] ? in.kq_mask_swa_f16 : in.kq_mask_f16;
            const bool exact = attention_mask_exactly_causal(hp, il);
            promised += exact;
            CHECK(exact == exactly_causal(m), "layer %d (%s): promised %d", il, hp.swa_l[il] ? "windowed" : "full", (int) exact);
        }
        CHECK(promised == 1, "%d full-attention layers of gemma3's 7 promised (expected 1)", promised);
        ggml_backend_buffer_free(buf);
        ggml_free(ctx);
    });
}

void selective_recompute_cases() {
    run_case("selective recomputation: the norm and SwiGLU are rebuilt; products and what only they feed are kept", [] {
        SwigluBlock g(32);
        const auto keep = selective_keep_set(g.gb, g.n_forward, 0);
        CHECK(!keep.count(g.n) && !keep.count(g.n->src[0]), "the normalised input and its rms_norm are rebuilt from the input");
        CHECK(!keep.count(g.act), "SwiGLU's output is rebuilt from gate and up, which its backward keeps");
        CHECK(keep.count(g.gate), "gate (a sum of two products nothing else keeps) is kept");
        CHECK(keep.count(g.up), "a product is never redone");
        CHECK(keep.count(g.scaled), "a scale of a product nothing else keeps is kept (redoing it would keep the product)");
    });
    run_case("selective recomputation: the backward reads the clones, not the originals", [] {
        SwigluBlock g(32);
        const int n_clones = recompute_activations(g.ctx, g.gb, g.n_forward, selective_keep_set(g.gb, g.n_forward, 0));
        CHECK(n_clones == 3, "%d clones (rms_norm, its product with the weight, SwiGLU)", n_clones);
        for (const ggml_tensor * t : { g.n, g.act }) {
            const auto r = g.readers(t);
            CHECK(r.first == 0 && r.second > 0, "%s: %d backward readers of the original, %d of the clone", t->name, r.first, r.second);
        }
        CHECK(g.readers(g.gate).first > 0, "gate's original is read by SwiGLU's backward");
    });
    run_case("selective recomputation: tensors smaller than the bound are kept", [] {
        SwigluBlock g(32);
        const auto keep = selective_keep_set(g.gb, g.n_forward, 64 * 32 + 1); // n (64 x 32) just under it, act (96 x 32) over
        CHECK(keep.count(g.n), "the normalised input under the bound is kept");
        CHECK(!keep.count(g.act), "SwiGLU's output over the bound is rebuilt");
    });
    run_case("selective recomputation: always on the CPU, only where the plain graph does not fit on a GPU, as the environment asks", [] {
        CHECK(selective_recompute_mode(nullptr, false) == SelectiveMode::ON, "unset, CPU: on");
        CHECK(selective_recompute_mode("", false) == SelectiveMode::ON, "empty, CPU: on");
        CHECK(selective_recompute_mode(nullptr, true) == SelectiveMode::AUTO, "unset, GPU: auto");
        for (bool gpu : { false, true }) {
            CHECK(selective_recompute_mode("0", gpu) == SelectiveMode::OFF, "0: off (gpu %d)", gpu);
            CHECK(selective_recompute_mode("1", gpu) == SelectiveMode::ON, "1: on (gpu %d)", gpu);
            CHECK(selective_recompute_mode("auto", gpu) == SelectiveMode::AUTO, "auto (gpu %d)", gpu);
        }
    });
}

int main() {
    metal_cases();
    schedule_cases();
    data_order_cases();
    packing_cases();
    sequence_cases();
    hparams_cases();
    selective_recompute_cases();
    attention_mask_cases();
    attention_lse_cases();
    const fs::path root = temp_root();
    checkpoint_cases(root);
    std::error_code ec;
    fs::remove_all(root, ec);
    return n_failed ? 1 : 0;
}
