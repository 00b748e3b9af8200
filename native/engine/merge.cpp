// Merging a LoRA into its base: a new GGUF whose adapted tensors are W + scale * alpha / r * B·A,
// written tensor by tensor. The base is read from its file (the header through gguf's no_alloc
// reader, each tensor's bytes at its offset), so memory holds a few tensors, never the model.
// Adapted tensors are dequantized to F32, merged and quantized again with ggml's quantizers;
// every other tensor and every metadata key is copied as it is.
#include "error.h"
#include "hone_tools.h"
#include "gguf_file.h"
#include "lora.h"

#include "ggml.h"
#include "gguf.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#ifndef _WIN32
#include <unistd.h>
#endif

namespace fs = std::filesystem;
using namespace hone;

namespace {

struct File {
    FILE * f = nullptr;
    explicit File(FILE * f) : f(f) {}
    ~File() { if (f) fclose(f); }
    File(const File &) = delete;
    File & operator=(const File &) = delete;
};

void seek(FILE * f, uint64_t at, const std::string & path) {
#ifdef _WIN32
    const int rc = _fseeki64(f, (__int64) at, SEEK_SET);
#else
    const int rc = fseeko(f, (off_t) at, SEEK_SET);
#endif
    if (rc != 0) fail(HONE_E_IO, "%s: cannot seek to byte %llu: %s", path.c_str(), (unsigned long long) at, strerror(errno));
}

void read_at(FILE * f, uint64_t at, void * dst, size_t n, const std::string & path) {
    seek(f, at, path);
    if (fread(dst, 1, n, f) != n) fail(HONE_E_IO, "%s: cannot read %zu bytes at byte %llu (truncated?)", path.c_str(), n, (unsigned long long) at);
}

// The --type names and the ggml type each merged tensor is quantized to.
bool parse_type(const std::string & s, ggml_type & t) {
    if (s == "q4_k_m") t = GGML_TYPE_Q4_K;
    else if (s == "q5_k_m") t = GGML_TYPE_Q5_K;
    else if (s == "q8_0") t = GGML_TYPE_Q8_0;
    else if (s == "f16") t = GGML_TYPE_F16;
    else return false;
    return true;
}

bool can_quantize(ggml_type t) {
    if (t == GGML_TYPE_F32 || t == GGML_TYPE_F16 || t == GGML_TYPE_BF16) return true;
    return ggml_get_type_traits(t)->from_float_ref != nullptr && !ggml_quantize_requires_imatrix(t);
}

// The type a merged tensor of ne0 columns is written in when `want` is asked, falling back as
// llama-quantize does for a row length the block size does not divide; `why` says what happened.
ggml_type output_type(ggml_type want, int64_t ne0, std::string & why) {
    ggml_type t = want;
    if (!can_quantize(t)) {
        why = strfmt("%s cannot be re-quantized without an importance matrix", ggml_type_name(t));
        t = GGML_TYPE_Q4_K;
    }
    const int64_t blck = ggml_blck_size(t);
    if (ne0 % blck != 0) {
        why += strfmt("%s%lld columns are not a multiple of %s's block of %lld", why.empty() ? "" : "; ", (long long) ne0, ggml_type_name(t), (long long) blck);
        switch (t) {
            case GGML_TYPE_IQ1_S: case GGML_TYPE_IQ1_M: case GGML_TYPE_IQ2_XXS: case GGML_TYPE_IQ2_XS: case GGML_TYPE_IQ2_S:
            case GGML_TYPE_IQ3_XXS: case GGML_TYPE_IQ3_S: case GGML_TYPE_IQ4_XS: t = GGML_TYPE_IQ4_NL; break;
            case GGML_TYPE_Q2_K: case GGML_TYPE_Q3_K: case GGML_TYPE_TQ1_0: case GGML_TYPE_TQ2_0: t = GGML_TYPE_Q4_0; break;
            case GGML_TYPE_Q4_K: t = GGML_TYPE_Q5_0; break;
            case GGML_TYPE_Q5_K: t = GGML_TYPE_Q5_1; break;
            case GGML_TYPE_Q6_K: t = GGML_TYPE_Q8_0; break;
            default: t = GGML_TYPE_F16; break;
        }
        if (ne0 % ggml_blck_size(t) != 0) t = GGML_TYPE_F16;
    }
    return t;
}

// Row-wise F32 <-> any type ggml converts.
void to_f32(ggml_type t, const uint8_t * src, float * dst, int64_t n, const char * name) {
    if (t == GGML_TYPE_F32) memcpy(dst, src, (size_t) n * sizeof(float));
    else if (t == GGML_TYPE_F16) ggml_fp16_to_fp32_row((const ggml_fp16_t *) src, dst, n);
    else if (t == GGML_TYPE_BF16) ggml_bf16_to_fp32_row((const ggml_bf16_t *) src, dst, n);
    else if (ggml_get_type_traits(t)->to_float) ggml_get_type_traits(t)->to_float(src, dst, n);
    else fail(HONE_E_UNSUPPORTED, "tensor '%s' has type %s, which ggml cannot convert to F32", name, ggml_type_name(t));
}

void parallel_rows(int64_t n_rows, int n_threads, const std::function<void(int64_t, int64_t)> & f) {
    const int n = (int) std::max<int64_t>(1, std::min<int64_t>(n_threads, n_rows));
    if (n == 1) { f(0, n_rows); return; }
    std::vector<std::thread> ts;
    const int64_t per = (n_rows + n - 1) / n;
    for (int i = 0; i < n; i++) {
        const int64_t r0 = i * per, r1 = std::min(n_rows, r0 + per);
        if (r0 < r1) ts.emplace_back(f, r0, r1);
    }
    for (auto & t : ts) t.join();
}

// A LoRA tensor's values as F32 (the adapter may store F32, F16 or a quantized type).
std::vector<float> lora_f32(const ggml_tensor * t) {
    std::vector<float> v(ggml_nelements(t));
    to_f32(t->type, (const uint8_t *) t->data, v.data(), (int64_t) v.size(), t->name);
    return v;
}

// Copies the adapter's scalar and string hone.* keys to the merged file as hone.merged.adapter.*.
void copy_adapter_keys(gguf_context * out, const gguf_context * ad) {
    for (int64_t i = 0; i < gguf_get_n_kv(ad); i++) {
        const std::string key = gguf_get_key(ad, i);
        if (key.rfind("hone.", 0) != 0) continue;
        const std::string to = "hone.merged.adapter." + key.substr(5);
        switch (gguf_get_kv_type(ad, i)) {
            case GGUF_TYPE_UINT32: gguf_set_val_u32(out, to.c_str(), gguf_get_val_u32(ad, i)); break;
            case GGUF_TYPE_INT32: gguf_set_val_i32(out, to.c_str(), gguf_get_val_i32(ad, i)); break;
            case GGUF_TYPE_UINT64: gguf_set_val_u64(out, to.c_str(), gguf_get_val_u64(ad, i)); break;
            case GGUF_TYPE_INT64: gguf_set_val_i64(out, to.c_str(), gguf_get_val_i64(ad, i)); break;
            case GGUF_TYPE_FLOAT32: gguf_set_val_f32(out, to.c_str(), gguf_get_val_f32(ad, i)); break;
            case GGUF_TYPE_FLOAT64: gguf_set_val_f64(out, to.c_str(), gguf_get_val_f64(ad, i)); break;
            case GGUF_TYPE_BOOL: gguf_set_val_bool(out, to.c_str(), gguf_get_val_bool(ad, i)); break;
            case GGUF_TYPE_STRING: gguf_set_val_str(out, to.c_str(), gguf_get_val_str(ad, i)); break;
            default: break; // arrays: none in Hone's block
        }
    }
}

struct Plan {
    const ggml_tensor * w = nullptr;   // base tensor (metadata)
    const AdapterPair * pair = nullptr; // null: copied
    ggml_type type;                    // written type
    float scale = 0.0f;                // merged: the factor of B·A
};

} // namespace

extern "C" {

hone_merge_params hone_merge_default_params(void) {
    hone_merge_params p;
    p.model_path = nullptr;
    p.adapter_path = nullptr;
    p.out_path = nullptr;
    p.type = nullptr;
    p.scale = 1.0f;
    p.n_threads = 0;
    return p;
}

hone_status hone_merge(const hone_merge_params * params, const hone_merge_callbacks * callbacks, hone_merge_result * result, hone_error * err) {
    std::string tmp; // removed on every failure, so nothing partial is left beside the output
    const hone_status st = guard(err, [&] {
        HONE_CHECK_ARG(params && params->model_path && params->adapter_path && params->out_path, "model, adapter and output paths are required");
        const hone_merge_params & p = *params;
        const hone_merge_callbacks cb = callbacks ? *callbacks : hone_merge_callbacks{};
        const std::string model_path = p.model_path, adapter_path = p.adapter_path, out_path = p.out_path;
        const std::string type_name = p.type ? p.type : "";
        ggml_type user_type = GGML_TYPE_COUNT;
        if (!type_name.empty() && !parse_type(type_name, user_type)) {
            fail(HONE_E_INVALID_ARG, "unknown merge type '%s' (q4_k_m, q5_k_m, q8_0 or f16; none: each tensor keeps its base type)", type_name.c_str());
        }
        HONE_CHECK_ARG(p.scale == p.scale && p.scale > -1e6f && p.scale < 1e6f, "the adapter scale must be a finite number (got %g)", p.scale);
        const int n_threads = p.n_threads > 0 ? p.n_threads : (int) std::max(1u, std::thread::hardware_concurrency());
        std::error_code ec;
        for (const std::string & in : { model_path, adapter_path }) {
            if (fs::exists(out_path, ec) && fs::equivalent(in, out_path, ec)) fail(HONE_E_INVALID_ARG, "%s: the output would overwrite an input of the merge", out_path.c_str());
        }
        const fs::path out_dir = fs::absolute(utf8_path(out_path), ec).parent_path();
        if (!fs::is_directory(out_dir, ec)) fail(HONE_E_IO, "%s: the output folder %s does not exist", out_path.c_str(), utf8_string(out_dir).c_str());

        // The base: header and tensor metadata only.
        ggml_context * base_meta = nullptr;
        gguf_context * base = open_gguf_checked(model_path, &base_meta);
        struct BaseCloser { gguf_context * g; ggml_context * c; ~BaseCloser() { gguf_free(g); if (c) ggml_free(c); } } base_closer{ base, base_meta };
        if (gguf_u32(base, "split.count", false, 1) > 1) fail(HONE_E_UNSUPPORTED, "%s: a split GGUF (one of several files) cannot be merged; join it with llama-gguf-split first", model_path.c_str());
        const std::string base_arch = gguf_str(base, "general.architecture");
        if (base_arch.empty()) fail(HONE_E_FORMAT, "%s: no general.architecture: not a model file", model_path.c_str());

        // The adapter: small, read whole.
        ggml_context * ad_meta = nullptr;
        gguf_context * probe = open_gguf_checked(adapter_path, &ad_meta);
        gguf_free(probe);
        if (ad_meta) ggml_free(ad_meta);
        ad_meta = nullptr;
        gguf_context * ad = gguf_init_from_file(adapter_path.c_str(), { false, &ad_meta });
        if (!ad) fail(HONE_E_FORMAT, "%s: cannot read the adapter's tensors", adapter_path.c_str());
        struct AdCloser { gguf_context * g; ggml_context * c; ~AdCloser() { gguf_free(g); if (c) ggml_free(c); } } ad_closer{ ad, ad_meta };
        const std::vector<AdapterPair> pairs = match_adapter(adapter_path, ad, ad_meta, base_arch, "the model " + model_path,
                                                             [&](const std::string & n) -> const ggml_tensor * { return ggml_get_tensor(base_meta, n.c_str()); });
        const float alpha = gguf_f32(ad, "adapter.lora.alpha", 0.0f);
        auto note = [&](const std::string & m) { if (cb.on_note) cb.on_note(m.c_str(), cb.user_data); };

        // What the adapter says it was trained on, against this base: a different file is allowed
        // (a LoRA trained on a Q4_K_M base merged into its F16 original), and said.
        const FileFingerprint base_fp = gguf_fingerprint(model_path, base);
        const std::string trained_fp = gguf_str(ad, "hone.base.fingerprint");
        if (!trained_fp.empty() && trained_fp != hex64(base_fp.hash)) {
            note(strfmt("the adapter was trained on %s (fingerprint %s), not on this file (%s, %s); the shapes fit, so it is merged",
                        gguf_str(ad, "hone.base.file", "another file").c_str(), trained_fp.c_str(), utf8_string(utf8_path(model_path).filename()).c_str(),
                        hex64(base_fp.hash).c_str()));
        }

        std::map<std::string, const AdapterPair *> by_base;
        std::string unsupported;
        for (const AdapterPair & ap : pairs) {
            if (ends_with(ap.base, "token_embd.weight")) {
                unsupported += strfmt("\n  '%s': a LoRA on the token embedding is not merged yet", ap.base.c_str());
            }
            const std::string stem = ap.base.size() > 7 && ap.base.compare(ap.base.size() - 7, 7, ".weight") == 0 ? ap.base.substr(0, ap.base.size() - 7) : ap.base;
            if (ggml_get_tensor(base_meta, (stem + ".scale").c_str())) {
                unsupported += strfmt("\n  '%s': the base scales this product by '%s.scale', which the merge does not fold in", ap.base.c_str(), stem.c_str());
            }
            by_base[ap.base] = &ap;
        }
        if (!unsupported.empty()) fail(HONE_E_UNSUPPORTED, "%s cannot be merged into %s:%s", adapter_path.c_str(), model_path.c_str(), unsupported.c_str());

        // The output's header: every key of the base, the merge's own note, each tensor in the
        // type it will be written in.
        const int64_t n_tensors = gguf_get_n_tensors(base);
        gguf_context * out = gguf_init_empty();
        ggml_context * out_meta = ggml_init({ ggml_tensor_overhead() * (size_t) (n_tensors + 1), nullptr, true });
        struct OutCloser { gguf_context * g; ggml_context * c; ~OutCloser() { gguf_free(g); ggml_free(c); } } out_closer{ out, out_meta };
        gguf_set_kv(out, base);
        for (int64_t i = gguf_get_n_kv(out) - 1; i >= 0; i--) {
            const std::string key = gguf_get_key(out, i);
            if (key.rfind("hone.merged.", 0) == 0) gguf_remove_key(out, key.c_str()); // an earlier merge's note
        }
        if (gguf_get_alignment(base) != GGUF_DEFAULT_ALIGNMENT) {
            // gguf's writer lays data out at its default alignment: say so in the header too
            gguf_remove_key(out, "general.alignment");
            note(strfmt("the base aligns tensor data to %zu bytes; the merged file uses GGUF's default of %d", gguf_get_alignment(base), GGUF_DEFAULT_ALIGNMENT));
        }
        gguf_set_val_str(out, "hone.merged.adapter_file", utf8_string(utf8_path(adapter_path).filename()).c_str());
        gguf_set_val_str(out, "hone.merged.adapter_fingerprint", hex64(gguf_fingerprint(adapter_path, ad).hash).c_str());
        gguf_set_val_str(out, "hone.merged.base_file", utf8_string(utf8_path(model_path).filename()).c_str());
        gguf_set_val_str(out, "hone.merged.base_fingerprint", hex64(base_fp.hash).c_str());
        gguf_set_val_f32(out, "hone.merged.scale", p.scale);
        gguf_set_val_f32(out, "hone.merged.alpha", alpha);
        gguf_set_val_u32(out, "hone.merged.tensors", (uint32_t) pairs.size());
        gguf_set_val_str(out, "hone.merged.type", type_name.empty() ? "base" : type_name.c_str());
        copy_adapter_keys(out, ad);

        std::vector<Plan> plan((size_t) n_tensors);
        int32_t n_fallback = 0;
        for (int64_t i = 0; i < n_tensors; i++) {
            const char * name = gguf_get_tensor_name(base, i);
            Plan & pl = plan[(size_t) i];
            pl.w = ggml_get_tensor(base_meta, name);
            auto it = by_base.find(name);
            pl.pair = it == by_base.end() ? nullptr : it->second;
            pl.type = pl.w->type;
            if (pl.pair) {
                const ggml_type bt = pl.w->type;
                if (bt != GGML_TYPE_F32 && bt != GGML_TYPE_F16 && bt != GGML_TYPE_BF16 && !ggml_get_type_traits(bt)->to_float) {
                    fail(HONE_E_UNSUPPORTED, "%s: tensor '%s' has type %s, which ggml cannot convert to F32 to merge", model_path.c_str(), name, ggml_type_name(bt));
                }
                const ggml_type want = user_type != GGML_TYPE_COUNT ? user_type : pl.w->type;
                std::string why;
                pl.type = output_type(want, pl.w->ne[0], why);
                if (pl.type != want) {
                    n_fallback++;
                    note(strfmt("%s: %s: written as %s instead of %s (as llama-quantize falls back)", name, why.c_str(), ggml_type_name(pl.type), ggml_type_name(want)));
                }
                const float rank = (float) pl.pair->b->ne[0];
                pl.scale = alpha != 0.0f ? p.scale * alpha / rank : p.scale; // llama.cpp's llama_adapter_lora_weight::get_scale
            }
            ggml_tensor * t = ggml_new_tensor(out_meta, pl.type, GGML_MAX_DIMS, pl.w->ne);
            ggml_set_name(t, name);
            gguf_add_tensor(out, t);
        }
        for (const Plan & pl : plan) if (pl.pair) ggml_quantize_init(pl.type);

        // Written under a temporary name beside the output, renamed when complete.
        tmp = out_path + ".tmp";
        File fin(ggml_fopen(model_path.c_str(), "rb")); // UTF-8 paths on every platform
        if (!fin.f) fail(HONE_E_IO, "%s: cannot open for reading: %s", model_path.c_str(), strerror(errno));
        File fout(ggml_fopen(tmp.c_str(), "wb"));
        if (!fout.f) fail(HONE_E_IO, "%s: cannot create: %s", tmp.c_str(), strerror(errno));
        auto write = [&](const void * data, size_t n) {
            if (n && fwrite(data, 1, n, fout.f) != n) fail(HONE_E_IO, "%s: cannot write (disk full?): %s", tmp.c_str(), strerror(errno));
        };
        std::vector<uint8_t> header(gguf_get_meta_size(out));
        gguf_get_meta_data(out, header.data());
        write(header.data(), header.size());
        uint64_t written = header.size();
        const uint64_t base_data = gguf_get_data_offset(base);

        std::vector<uint8_t> raw, packed;
        std::vector<float> w;
        int32_t merged = 0, copied = 0;
        for (int64_t i = 0; i < n_tensors; i++) {
            const Plan & pl = plan[(size_t) i];
            const char * name = gguf_get_tensor_name(base, i);
            const uint64_t at = header.size() + gguf_get_tensor_offset(out, i);
            static const uint8_t zeros[64] = { 0 };
            while (written < at) { const size_t n = (size_t) std::min<uint64_t>(sizeof(zeros), at - written); write(zeros, n); written += n; }
            const uint64_t src = base_data + gguf_get_tensor_offset(base, i);
            const size_t size = gguf_get_tensor_size(base, i);
            if (!pl.pair) {
                // byte for byte, in pieces
                raw.resize(std::min<size_t>(size, 16u << 20));
                for (size_t off = 0; off < size; off += raw.size()) {
                    const size_t n = std::min(raw.size(), size - off);
                    read_at(fin.f, src + off, raw.data(), n, model_path);
                    write(raw.data(), n);
                }
                written += size;
                copied++;
            } else {
                const ggml_tensor * t = pl.w;
                const int64_t n_in = t->ne[0], n_out = ggml_nrows(t);
                raw.resize(size);
                read_at(fin.f, src, raw.data(), size, model_path);
                w.resize((size_t) (n_in * n_out));
                const size_t in_row = ggml_row_size(t->type, n_in), out_row = ggml_row_size(pl.type, n_in);
                const std::vector<float> A = lora_f32(pl.pair->a), B = lora_f32(pl.pair->b);
                const int64_t r = pl.pair->a->ne[1];
                packed.resize(out_row * (size_t) n_out);
                // W[o][i] += scale * sum_k B[o][k] A[k][i]  (A: r rows of n_in, B: n_out rows of r)
                parallel_rows(n_out, n_threads, [&](int64_t r0, int64_t r1) {
                    std::vector<float> delta((size_t) n_in);
                    for (int64_t o = r0; o < r1; o++) {
                        float * row = w.data() + o * n_in;
                        to_f32(t->type, raw.data() + o * in_row, row, n_in, name);
                        std::fill(delta.begin(), delta.end(), 0.0f);
                        for (int64_t k = 0; k < r; k++) {
                            const float c = B[(size_t) (o * r + k)];
                            const float * a = A.data() + k * n_in;
                            for (int64_t j = 0; j < n_in; j++) delta[j] += c * a[j];
                        }
                        for (int64_t j = 0; j < n_in; j++) row[j] += pl.scale * delta[j];
                    }
                    ggml_quantize_chunk(pl.type, w.data(), packed.data(), r0 * n_in, r1 - r0, n_in, nullptr);
                });
                write(packed.data(), packed.size());
                written += packed.size();
                merged++;
            }
            hone_merge_progress ev{ (int32_t) (i + 1), (int32_t) n_tensors, name, pl.pair != nullptr };
            const bool go_on = !cb.on_progress || cb.on_progress(&ev, cb.user_data);
            if (!go_on) {
                fail(HONE_E_CANCELLED, "merge cancelled after %lld of %lld tensors; nothing was written to %s", (long long) (i + 1), (long long) n_tensors, out_path.c_str());
            }
        }
        if (fflush(fout.f) != 0) fail(HONE_E_IO, "%s: cannot write (disk full?): %s", tmp.c_str(), strerror(errno));
#ifndef _WIN32
        fsync(fileno(fout.f));
#endif
        const int rc = fclose(fout.f);
        fout.f = nullptr;
        if (rc != 0) fail(HONE_E_IO, "%s: cannot write (disk full?): %s", tmp.c_str(), strerror(errno));
        fs::rename(tmp, out_path, ec);
        if (ec) fail(HONE_E_IO, "%s: cannot move the merged model into place: %s", out_path.c_str(), ec.message().c_str());
        tmp.clear();
        if (result) {
            result->bytes = (int64_t) written;
            result->merged = merged;
            result->copied = copied;
            result->fallbacks = n_fallback;
        }
    });
    if (!tmp.empty()) {
        std::error_code ec;
        fs::remove(tmp, ec);
    }
    return st;
}

} // extern "C"
