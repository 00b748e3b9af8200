// Hone engine: C-style API over ggml/llama.cpp for LoRA training on a resident GGUF base.
// Opaque handles with init/free pairs, params structs with a defaults function, errors as
// {code, message} filled into a caller-owned hone_error. No global state.
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    HONE_OK = 0,
    HONE_E_INVALID_ARG = 1, // a parameter is out of range or inconsistent
    HONE_E_IO = 2,          // a file cannot be read or written (missing, permissions, disk full)
    HONE_E_FORMAT = 3,      // a file is not what it claims (not GGUF, truncated, wrong version)
    HONE_E_UNSUPPORTED = 4, // valid input the engine cannot handle yet (architecture, op)
    HONE_E_MEMORY = 5,      // an allocation failed or the plan does not fit
    HONE_E_CANCELLED = 6,   // the progress callback asked to stop
    HONE_E_INTERNAL = 7,    // a bug: please report
    HONE_E_MISMATCH = 8,    // an adapter does not fit this base (architecture, tensor names or shapes)
} hone_status;

// A stable snake_case name for a status ("ok", "invalid_argument", "io_error", ...): the
// `code` of errors that cross process boundaries.
const char * hone_status_name(int status);

typedef struct {
    int  code;           // hone_status
    char message[1024];  // names the problem and where it is
} hone_error;

typedef struct hone_model   hone_model;
typedef struct hone_adapter hone_adapter;
typedef struct hone_trainer hone_trainer;

// ---- model ------------------------------------------------------------------------------

typedef struct {
    const char * path;    // GGUF file
    const char * backend; // "auto" (GPU if present, else CPU), "cpu", "cuda", "metal"
    int n_threads;        // CPU threads; <= 0: all hardware threads
    const char * gpu_precision; // "bf16" (default): GPU matrix products in BF16 with F32 accumulation
                                // on tensor cores; "f32": F32 throughout. Ignored on the CPU.
} hone_model_params;

hone_model_params hone_model_default_params(void);
hone_status hone_model_load(const hone_model_params * params, hone_model ** out, hone_error * err);
void        hone_model_free(hone_model * model);

typedef struct {
    char    arch[32];        // general.architecture
    char    name[128];       // general.name, or the file name
    char    backend[32];     // the backend the weights live on ("CPU", "CUDA0", ...)
    char    gpu_precision[8]; // "bf16" or "f32" on a GPU backend that honours it, "" elsewhere
    int32_t n_layer, n_embd, n_ff, n_head, n_head_kv, head_dim, n_vocab, n_ctx_train;
    bool    tied_output;     // output head shares token_embd
    int64_t n_params;        // base parameters
    int64_t weight_bytes;    // bytes of the resident base weights
} hone_model_info;

void hone_model_get_info(const hone_model * model, hone_model_info * info);

// Tokenizes with the model's own tokenizer. Returns the number of tokens, or -needed when
// n_max is too small.
int32_t hone_model_tokenize(const hone_model * model, const char * text, size_t len, bool add_bos,
                            int32_t * tokens, int32_t n_max);
int32_t hone_model_token_bos(const hone_model * model);
int32_t hone_model_token_eos(const hone_model * model);

// ---- adapter ----------------------------------------------------------------------------

// Target modules, as a bit mask.
enum {
    HONE_TARGET_ATTN_Q   = 1 << 0,
    HONE_TARGET_ATTN_K   = 1 << 1,
    HONE_TARGET_ATTN_V   = 1 << 2,
    HONE_TARGET_ATTN_OUT = 1 << 3,
    HONE_TARGET_FFN_GATE = 1 << 4,
    HONE_TARGET_FFN_UP   = 1 << 5,
    HONE_TARGET_FFN_DOWN = 1 << 6,
    HONE_TARGET_OUTPUT   = 1 << 7,
};

// Parses "attn_q,attn_k,..." (or "all") into a mask; unknown names are an error naming them.
hone_status hone_parse_targets(const char * list, uint32_t * mask, hone_error * err);
// Writes the comma-separated names of a mask.
void        hone_format_targets(uint32_t mask, char * buf, size_t size);

typedef struct {
    int32_t  rank;     // r, 1..min(n_in, n_out) of every targeted layer
    float    alpha;    // scale = alpha / rank
    uint32_t targets;  // HONE_TARGET_* mask
    uint64_t seed;     // A ~ Kaiming-uniform(seed), B = 0
} hone_adapter_params;

hone_adapter_params hone_adapter_default_params(void);
hone_status hone_adapter_init(hone_model * model, const hone_adapter_params * params, hone_adapter ** out, hone_error * err);
// Loads a llama.cpp LoRA GGUF (F32/F16 tensors) for this model. An adapter made for another
// architecture or other shapes is refused (HONE_E_MISMATCH) naming every tensor that does not
// fit, with its shape and the one the base needs.
hone_status hone_adapter_load(hone_model * model, const char * path, hone_adapter ** out, hone_error * err);
// Writes a llama.cpp LoRA GGUF (temp file + rename: no partial file under `path`) with a hone.*
// block: the base file's name and fingerprint, rank and targets and, once a trainer has used
// the adapter, its run config, steps, last train/eval loss and data digests
// (docs/adapter-format.md).
hone_status hone_adapter_save(const hone_adapter * adapter, const char * path, hone_error * err);
void        hone_adapter_free(hone_adapter * adapter);
int64_t     hone_adapter_n_params(const hone_adapter * adapter);

// ---- data -------------------------------------------------------------------------------

// One training sequence: tokens[0..n) with loss_mask[i] != 0 when tokens[i] is a target
// (predicted from tokens[0..i)). loss_mask[0] is ignored.
typedef struct {
    const int32_t * tokens;
    const uint8_t * loss_mask; // NULL: every token after the first carries loss
    int32_t n_tokens;
} hone_sequence;

// Plain text is cut into windows of n_ctx + 1 tokens that overlap by one (window k holds tokens
// [k * n_ctx, min(n_tokens, k * n_ctx + n_ctx + 1))), so every token after the first is a target
// exactly once and nothing is truncated. Writes up to n_max window starts into `starts` (may be
// NULL) and returns the number of windows (0 for fewer than 2 tokens).
int32_t hone_text_windows(int32_t n_tokens, int32_t n_ctx, int32_t * starts, int32_t n_max);

// Whether packing (hone_train_params.pack) would put two of these sequences in one row of n_ctx
// positions: the two shortest fit together. Where it would not (every sequence fills most of a
// row, as text windows do), callers leave pack off and keep the exactly causal attention.
// `lengths`: each sequence's tokens (an input row holds min(n, n_ctx) of them).
bool hone_packing_helps(const int32_t * lengths, int32_t n, int32_t n_ctx);

// The context proposed for sequences of these token counts: the smallest multiple of 64 (the
// fused attention's tile) that holds 99% of them whole (n <= n_ctx + 1 tokens), at least 64 and
// at most `cap` (0: no cap; a cap below 64 is the cap). 0 when there are no sequences.
int32_t hone_suggest_context(const int32_t * lengths, int32_t n, int32_t cap);

// ---- training ---------------------------------------------------------------------------
//
// Loss: the loss of an optimizer step is the sum of per-token cross-entropy (natural log)
// over the loss-carrying tokens of all its micro-batches, divided by the number of those
// tokens. Padding carries no loss and is never attended to (sequences are right-padded and
// attention is causal; packed, attention stays within each sequence of a row). Sequences longer than n_ctx + 1 tokens keep their first n_ctx + 1
// (inputs tokens[0..n_ctx), targets tokens[1..n_ctx]); the rest is dropped.
// Gradients of the micro-batches of a step are summed in F32 accumulators and zeroed after
// every optimizer step, so accumulation gives the update of one batch holding them all.
// docs/training.md has the full definitions.

typedef enum {
    HONE_LR_CONSTANT = 0, // lr after warm-up
    HONE_LR_LINEAR = 1,   // linear decay to lr_min
    HONE_LR_COSINE = 2,   // half-cosine decay to lr_min
} hone_lr_schedule;

// "constant", "linear" or "cosine" as a hone_lr_schedule; -1 for any other name (or NULL). The one
// parser of schedule names: hone-train's config, the Node binding and checkpoints use it.
int32_t hone_lr_schedule_from_name(const char * name);
// The name of a hone_lr_schedule ("?" for a value that is none).
const char * hone_lr_schedule_name(int32_t schedule);

typedef struct {
    int32_t n_ctx;          // tokens per sequence (longer sequences are truncated on the right)
    int32_t n_batch;        // sequences per optimizer step (unless n_batch_tokens is set)
    int32_t n_batch_tokens; // > 0: a step takes sequences in data order while their real tokens (min(n, n_ctx)
                            // each) fit in this budget, at least one; epochs still count sequences. 0: n_batch
    int32_t n_ubatch;       // rows per micro-batch (unpacked: sequences; n_batch must be a multiple); 0: automatic, the
                            // most rows, up to n_step_rows, whose memory plan fits (hone_trainer_memory_report's
                            // "ubatch" and "ubatch_reason" say which and why)
    int32_t n_steps;        // optimizer steps; 0: use n_epochs
    int32_t n_epochs;       // passes over the data when n_steps == 0
    float   lr;             // peak AdamW learning rate
    int32_t lr_schedule;    // hone_lr_schedule, applied after warm-up
    int32_t warmup_steps;   // steps 1..W run at lr * step / W (0: no warm-up); W < steps
    float   lr_min;         // floor of linear/cosine decay, 0 <= lr_min <= lr
    float   weight_decay;   // AdamW decoupled weight decay (scaled by the step's lr, as PyTorch's AdamW)
    float   beta1, beta2, eps;
    float   max_grad_norm;  // clip the step's global gradient L2 norm to this; 0: no clipping
    uint64_t seed;          // data order
    int32_t eval_every;     // evaluate the held-out sequences every K steps and after the last; 0: after the last only
    const char * checkpoint_dir;  // NULL: no checkpoints; else <checkpoint_dir>/<step>/ (created as needed)
    int32_t checkpoint_every;     // steps between checkpoints; 0: only when stopped (cancel or pause)
    int32_t keep_checkpoints;     // newest checkpoints kept; 0: keep all
    const char * run_config_json; // caller's configuration (a JSON object), stored verbatim in every
                                  // checkpoint's state.json as "config"; NULL: {}
    bool dry_run;           // build and schedule the graphs and plan memory, allocate no compute buffer (the
                            // gradient accumulators and optimizer state are allocated: adapter-sized); such a
                            // trainer reports (op report, memory plan) but cannot train; the plan is not enforced
    bool profile;           // per-node wall time in the op report: every other step is profiled (each node
                            // synchronised), and the report compares profiled with unprofiled step time
    int64_t memory_limit;   // bytes the trainer may allocate in each memory pool (system memory, each GPU) on top
                            // of the model and adapter; 0: the pool's free memory. hone_trainer_init refuses a
                            // plan that does not fit (HONE_E_MEMORY, naming the sizes and what to lower)
    bool recompute;         // activation recomputation (gradient checkpointing): only each layer's output lives
                            // until the backward pass, which recomputes the rest a layer at a time; less memory,
                            // about one more forward pass of time. Same gradients.
    bool pack;              // (default true) packing: a step's sequences share rows of n_ctx positions (first-fit decreasing;
                            // attention never crosses from one to the next, positions restart at each), so a
                            // step processes fewer padding positions. Same loss and gradients as unpacked, up to
                            // the order of sums. Off for architectures that carry state along the sequence
                            // (delta-net layers): hone_trainer_packs says which it is.
    int32_t n_step_rows;    // the most rows a step fills (hone_step_rows), the bound of the automatic micro-batch;
                            // 0: n_batch (unpacked steps of n_batch sequences)
} hone_train_params;

hone_train_params hone_train_default_params(void);

// The most rows a step fills over the first epoch's steps (at most 256 of them) of sequences of
// these token counts, as `p` takes them (n_ctx, n_batch or n_batch_tokens, seed, and pack: the
// caller's resolved choice): the bound hone_train_params.n_step_rows of the automatic micro-batch.
// 0 when there are no sequences.
int32_t hone_step_rows(const int32_t * lengths, int32_t n, const hone_train_params * p);

typedef struct {
    int32_t step;          // optimizer step just finished, 1-based
    int32_t n_steps;       // total steps planned
    float   loss;          // mean cross-entropy over the step's loss tokens
    float   lr;            // learning rate used for this step
    float   grad_norm;     // global L2 norm of the step's gradient before clipping
    float   clip_scale;    // factor applied to the gradient (1: not clipped)
    int64_t tokens;        // real (non-padding) input tokens processed so far, loss-carrying or not
    int64_t positions;     // positions processed so far: the real tokens and the padding that filled rows
    int64_t loss_tokens;   // loss-carrying tokens in this step
    double  tokens_per_s;  // real tokens per second of this step (padding never counts)
    double  row_fill;      // this step's real tokens / its processed positions (1: no padding)
    double  elapsed_s;     // training time so far (including runs this one resumed)
} hone_step_event;

typedef struct {
    int32_t step;          // optimizer steps done when evaluated
    float   eval_loss;     // mean cross-entropy over all loss tokens of the held-out sequences
    int64_t loss_tokens;   // loss-carrying tokens evaluated
    int32_t n_sequences;   // held-out sequences evaluated
} hone_eval_event;

typedef struct {
    const char * path;     // the checkpoint folder, complete when this event is sent
    int32_t step;          // optimizer steps done
    int32_t micro_batch;   // micro-batches of step + 1 already accumulated (0: at a step boundary)
} hone_checkpoint_event;

// A checkpoint that could not be written (disk full, permission): training goes on with its
// state in memory, the partial folder is removed, and the next checkpoint tries again.
typedef struct {
    int32_t step;          // optimizer steps done
    int32_t micro_batch;   // as hone_checkpoint_event
    int32_t code;          // hone_status (HONE_E_IO for a full disk)
    const char * message;  // names the file and the cause
} hone_checkpoint_failure;

// What the trainer should do next; polled after every micro-batch.
typedef enum {
    HONE_TRAIN_CONTINUE = 0,
    HONE_TRAIN_STOP = 1,  // finish the current optimizer step, write a checkpoint, return HONE_E_CANCELLED
    HONE_TRAIN_PAUSE = 2, // write a checkpoint after the current micro-batch (even mid-step), return HONE_E_CANCELLED
} hone_train_control;

// Return false to stop: the engine writes a checkpoint (if checkpoint_dir is set) and returns HONE_E_CANCELLED.
typedef bool (*hone_progress_cb)(const hone_step_event * event, void * user_data);

typedef struct {
    hone_progress_cb on_step;                                                 // after every optimizer step
    void (*on_eval)(const hone_eval_event * event, void * user_data);         // after every evaluation
    void (*on_checkpoint)(const hone_checkpoint_event * event, void * user_data); // after every checkpoint
    int32_t (*poll)(void * user_data);                                        // a hone_train_control
    void * user_data;
    void (*on_checkpoint_failed)(const hone_checkpoint_failure * failure, void * user_data); // NULL: not told
} hone_train_callbacks;

hone_status hone_trainer_init(hone_model * model, hone_adapter * adapter, const hone_train_params * params,
                              hone_trainer ** out, hone_error * err);
// Loads a checkpoint written by a trainer with the same params (checkpoint/eval settings and
// run_config_json may differ) into this trainer: adapter, AdamW moments and step count,
// partial gradients of a mid-step checkpoint, schedule and data position. Every mismatch is
// reported in one error. The next hone_trainer_train continues the run where it stopped and
// checks that it is given the same data. On an error the trainer may hold part of the
// checkpoint: free it.
hone_status hone_trainer_resume(hone_trainer * trainer, const char * checkpoint_dir, hone_error * err);
// Starts a new schedule segment from a checkpoint written at a step boundary (a finished run
// always leaves one at its last step): the adapter, AdamW's moments and update count carry over;
// the steps or epochs, schedule, warm-up and data of this trainer's params describe the new
// segment, whose steps are counted on from the checkpoint's. Unlike hone_trainer_resume, the
// result is not the same as having planned the longer run from the start.
hone_status hone_trainer_continue(hone_trainer * trainer, const char * checkpoint_dir, hone_error * err);
// Trains on `train` (evaluating on `eval`, which may be empty) until n_steps; HONE_E_CANCELLED
// when stopped through the callbacks (after writing a checkpoint).
hone_status hone_trainer_train(hone_trainer * trainer, const hone_sequence * train, int32_t n_train,
                               const hone_sequence * eval, int32_t n_eval, const hone_train_callbacks * callbacks,
                               hone_error * err);
// Writes a checkpoint of the trainer's state now (not while it trains): the retry after a
// checkpoint failed, e.g. when a stop could not write one. Copies its folder into `path`.
hone_status hone_trainer_save_checkpoint(hone_trainer * trainer, char * path, size_t path_size, hone_error * err);
// Optimizer steps done (after a resume: the checkpoint's).
int32_t     hone_trainer_step(const hone_trainer * trainer);
// Whether the trainer packs sequences into rows: params.pack, unless the architecture carries
// state along the sequence (then the trainer keeps one sequence per row).
bool        hone_trainer_packs(const hone_trainer * trainer);
void        hone_trainer_free(hone_trainer * trainer);

// ---- op report --------------------------------------------------------------------------

// The training graph as scheduled: every node's op, backend, types, shapes and layer, the
// aggregates, split transitions, copies, CPU-fallback reasons and gradient waste, as JSON
// (schema: docs/ops-json.md). *json is malloc'd: free it with hone_string_free.
hone_status hone_trainer_op_report(hone_trainer * trainer, char ** json, hone_error * err);
// The memory plan beside the measured peak per memory pool (ops.json's "memory" without the
// graph-derived parts), as JSON; free with hone_string_free.
hone_status hone_trainer_memory_report(hone_trainer * trainer, char ** json, hone_error * err);
// HONE_E_MEMORY with the sizes and what to lower when the plan does not fit (a dry run is not
// refused by hone_trainer_init: this says whether a real run would be).
hone_status hone_trainer_check_memory(const hone_trainer * trainer, hone_error * err);
void        hone_string_free(char * s);

// ---- capabilities -----------------------------------------------------------------------

// What this build can do, as JSON (docs/capabilities.md): the backends present (name, kind,
// free and total memory), the architectures the training graph supports, and the default of
// every training option — the one place front ends and hone-train take them from. malloc'd:
// free it with hone_string_free.
char * hone_capabilities_json(void);

// ---- evaluation -------------------------------------------------------------------------

// Runs the training graph's forward pass (with the adapter, if any) on one sequence and
// writes n_tokens * n_vocab logits (row-major by position).
hone_status hone_forward_logits(hone_model * model, hone_adapter * adapter, const int32_t * tokens, int32_t n_tokens,
                                float * logits, hone_error * err);

// Runs llama.cpp inference (llama_decode, F32 KV cache, no flash attention) with the adapter
// file applied through llama.cpp's own loader, writing n_tokens * n_vocab logits.
hone_status hone_reference_logits(const char * model_path, const char * adapter_path, const int32_t * tokens,
                                  int32_t n_tokens, int n_threads, float * logits, hone_error * err);

// ---- merge ------------------------------------------------------------------------------
// A LoRA merged into its base as a new GGUF: every adapted tensor becomes W + s * B·A with
// s = scale * alpha / r (llama.cpp's own scale: alpha = adapter.lora.alpha, r = lora_b's rows;
// alpha 0: s = scale), the product llama.cpp adds at inference, so the merged model without an
// adapter computes what the base computes with it. Adapted tensors are re-quantized to their
// base type, or to `type`; a row length the type's block does not divide falls back as
// llama-quantize does (on_note says so). Every other tensor is copied byte for byte and every
// metadata key is kept, plus hone.merged.* (docs/adapter-format.md). Streamed tensor by tensor:
// memory for a few tensors, not the model. Written to <out_path>.tmp and renamed: a failed or
// cancelled merge leaves nothing under out_path and removes the temporary file.
// An adapter for another architecture or shapes is refused (HONE_E_MISMATCH, naming each).

typedef struct {
    const char * model_path;   // the base GGUF
    const char * adapter_path; // a llama.cpp LoRA GGUF (F32, F16 or quantized A/B)
    const char * out_path;     // the merged GGUF
    const char * type;         // NULL or "": each merged tensor keeps its base type; "q4_k_m" (Q4_K),
                               // "q5_k_m" (Q5_K), "q8_0" or "f16": merged tensors in that type
    float scale;               // the adapter's strength, as llama.cpp's adapter scale (1: as trained)
    int n_threads;             // <= 0: all hardware threads
} hone_merge_params;

hone_merge_params hone_merge_default_params(void);

typedef struct {
    int32_t done;          // tensors written, 1..total
    int32_t total;         // tensors of the model
    const char * tensor;   // the tensor just written
    bool merged;           // it carried a LoRA (else it was copied)
} hone_merge_progress;

typedef struct {
    bool (*on_progress)(const hone_merge_progress * progress, void * user_data); // after every tensor; false: cancel
    void (*on_note)(const char * message, void * user_data); // a fallback type, a base other than the adapter's
    void * user_data;
} hone_merge_callbacks;

typedef struct {
    int64_t bytes;      // size of the merged file
    int32_t merged;     // tensors with a LoRA added
    int32_t copied;     // tensors copied byte for byte
    int32_t fallbacks;  // merged tensors written in another type than asked
} hone_merge_result;

// HONE_E_CANCELLED when on_progress returned false.
hone_status hone_merge(const hone_merge_params * params, const hone_merge_callbacks * callbacks, hone_merge_result * result,
                       hone_error * err);

// ---- data: rendering examples into tokens and a loss mask -------------------------------
// A renderer holds a model's chat template (Jinja, run by llama.cpp's common/ engine) and
// tokenizer. It turns one example into the text the model sees, its tokens, and a loss mask.
// docs/rendering.md describes the fallback template and how assistant spans are found.

typedef struct hone_renderer hone_renderer;
typedef struct hone_rendered hone_rendered;

typedef enum {
    HONE_LOSS_ASSISTANT = 0, // chat: each assistant turn (content, tool calls) and its end-of-turn token; text: every token
    HONE_LOSS_ALL = 1,       // every token of every example
} hone_loss_mode;

typedef struct {
    const char * chat_template; // Jinja source used instead of the model's; NULL: the model's own, or the plain fallback
    int32_t loss;               // hone_loss_mode
    bool ignore_weights;        // false: an assistant message with "weight": 0 carries no loss
} hone_render_params;

hone_render_params hone_render_default_params(void);
hone_status hone_renderer_init(hone_model * model, const hone_render_params * params, hone_renderer ** out, hone_error * err);
void        hone_renderer_free(hone_renderer * renderer);

typedef struct {
    char source[16];           // where the template came from: "model", "override" or "fallback"
    bool supports_tools;       // the template describes `tools`
    bool supports_tool_calls;  // the template renders assistant tool calls
    bool supports_system_role; // false: a system message is merged into the first user message
} hone_renderer_info;

void        hone_renderer_get_info(const hone_renderer * renderer, hone_renderer_info * info);
// The Jinja source in use (valid while the renderer lives).
const char * hone_renderer_template(const hone_renderer * renderer);

// Renders one example given as JSON: {"messages": [...], "tools": [...]} (OpenAI chat shape;
// string content; tool_calls with JSON-text arguments; optional per-message "weight": 0|1)
// or {"text": "..."} (BOS + text + EOS, every token carries loss). Errors name the message.
hone_status hone_render(hone_renderer * renderer, const char * example_json, size_t len, hone_rendered ** out, hone_error * err);
int32_t         hone_rendered_n_tokens(const hone_rendered * r);
const int32_t * hone_rendered_tokens(const hone_rendered * r);
const uint8_t * hone_rendered_loss_mask(const hone_rendered * r);   // 1: token i carries loss
const char *    hone_rendered_text(const hone_rendered * r, size_t * len);
// 2 * n_tokens: token i covers bytes [spans[2i], spans[2i+1]) of the text.
const int32_t * hone_rendered_token_spans(const hone_rendered * r);
void            hone_rendered_free(hone_rendered * r);

// ---- chat: generation with and without an adapter ---------------------------------------
// llama.cpp inference on a GGUF base with an optional LoRA (llama.cpp's own adapter loader), for
// trying a trained adapter: a conversation is rendered through the model's chat template with
// the generation prompt (a model without one: the plain fallback training uses, "### User:" /
// "### Assistant:", docs/rendering.md), and the reply streams out piece by piece. The adapter's
// scale is set per generation (0: the base alone), so one loaded model answers both ways.
// docs/chat.md describes it.

typedef struct hone_chat hone_chat;

typedef struct {
    const char * model_path;   // the base GGUF
    const char * adapter_path; // a llama.cpp LoRA GGUF for this base; NULL or "": none
    const char * backend;      // "cpu" (default), "auto" (a GPU if present, else CPU), "cuda", "metal"
    int n_threads;             // CPU threads; <= 0: all hardware threads
    int32_t n_ctx;             // tokens of conversation + reply; 0: the model's training context, at most 4096
} hone_chat_params;

typedef struct {
    int32_t max_tokens;   // reply tokens at most, >= 1 (a reply that fills the context ends there: stop "context")
    float adapter_scale;  // the adapter's strength, >= 0 (0: the base; 1: as trained); ignored without one
    bool greedy;          // true: the most likely token each step (deterministic); false: sampled
    float temperature;    // sampled: softmax temperature, > 0
    float top_p;          // sampled: nucleus mass kept, 0 < top_p <= 1
    uint32_t seed;        // sampled: the same seed (and inputs) gives the same reply
} hone_chat_sampling;

typedef struct {
    char backend[32];          // where the model runs ("CPU", "CUDA0", ...)
    char template_source[16];  // "model" (its own chat template) or "fallback" (it has none)
    int32_t n_ctx;             // the context's tokens
    bool has_adapter;
} hone_chat_info;

typedef struct {
    int32_t prompt_tokens;     // tokens of the rendered conversation
    int32_t reply_tokens;      // tokens generated (an end-of-turn token not counted)
    char stop[16];             // why it ended: "eos" (the model ended its turn), "max_tokens", "context" (full), "stopped" (on_piece)
    char template_source[16];  // as hone_chat_info
} hone_chat_result;

// One piece of the reply: UTF-8, never a partial character; return false to stop generating
// (the result then says "stopped"; not an error).
typedef bool (*hone_chat_piece_cb)(const char * text, size_t len, void * user_data);

hone_chat_params   hone_chat_default_params(void);
hone_chat_sampling hone_chat_default_sampling(void);
// Loads the model (and the adapter: one for another base is refused, HONE_E_MISMATCH or
// HONE_E_FORMAT with llama.cpp's reason) and creates the inference context.
hone_status hone_chat_init(const hone_chat_params * params, hone_chat ** out, hone_error * err);
void        hone_chat_free(hone_chat * chat);
void        hone_chat_get_info(const hone_chat * chat, hone_chat_info * info);
// Generates a reply to `messages_json`, a JSON array [{"role": "system"|"user"|"assistant",
// "content": "..."}] that ends with a user message. Each call starts from an empty context.
// Ends at an end-of-generation token, max_tokens or a full context; a conversation longer than
// the context is refused naming both sizes.
hone_status hone_chat_generate(hone_chat * chat, const char * messages_json, size_t len, const hone_chat_sampling * sampling,
                               hone_chat_piece_cb on_piece, void * user_data, hone_chat_result * result, hone_error * err);

#ifdef __cplusplus
}
#endif
