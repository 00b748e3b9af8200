// hone-train: the engine without Node, for headless runs, GPU boxes and benchmarks.
#include "args.h"
#include "commands.h"
#include "hone_json.h"

#include <cstdio>
#include <cstring>
#include <string>
#ifndef _WIN32
#include <sys/resource.h>
#endif

static const char * USAGE =
    "usage:\n"
    "  hone-train --model M.gguf --data D --out DIR [--rank 8 --alpha 16 --targets attn_q,... --lr 1e-4\n"
    "             --steps N | --epochs N --ctx 256|auto --batch 1 --ubatch auto --seed 42 --backend auto|cpu|cuda|metal\n"
    "             --threads N --weight-decay 0 --schedule constant|linear|cosine --warmup 0 --lr-min 0\n"
    "             --max-grad-norm 1 (0: off) --eval-data FILE | --eval-split 0.1 --eval-every K\n"
    "             --checkpoint-every K --keep-checkpoints 3 --gpu-precision bf16|f32 --json]\n"
    "             [--dry-run (ops.json + memory plan, nothing trained) --profile (per-op times) --memory-limit 8G]\n"
    "             [--recompute (activation recomputation: less memory for about one more forward pass)]\n"
    "             [--pack true|false (default true: a step's sequences share rows where two fit in one)]\n"
    "             [--batch-tokens N (a step: the sequences that fit in N real tokens, instead of --batch of them)]\n"
    "             (D: plain text, or JSONL with a \"text\" or \"tokens\" field per line; chat, instruction,\n"
    "             JSON and CSV data: `hone train`, which renders examples through the chat template)\n"
    "  hone-train --resume DIR/checkpoints/STEP [--out DIR --threads N --json ...]\n"
    "             (Ctrl-C: finish the step, checkpoint, exit 0; twice: stop after the micro-batch)\n"
    "  hone-train make-model --arch NAME --embd N --layers N --heads N --kv-heads N --ff N\n"
    "             [--head-dim N] --vocab-from VOCAB.gguf [--type f32|f16|q8_0|q4_k_m] [--tied] [--ffn-biases]\n"
    "             [--chat-template-file T.jinja] [--kv name=N,...] [--experts N --experts-used N --expert-ff N | --shared-ff N (granitemoe)]\n"
    "             [--rope-yarn FACTOR:ORIGINAL_CTX[:ATTN_FACTOR] | --longrope ORIGINAL_CTX] [--ssm-conv N --ssm-state N --ssm-groups N --ssm-heads N]\n"
    "             --out M.gguf\n"
    "             (any trainable architecture in its description's layout; see `architectures`)\n"
    "  hone-train architectures [--json]   (the trainable architectures and what each is)\n"
    "  hone-train check-forward --model M.gguf [--adapter A.gguf | --perturb-b SIGMA] --text \"...\" [--backend B --gpu-precision P] [--json]\n"
    "  hone-train check-grad --model M.gguf [--adapter A.gguf] [--targets ...] [--elements 4 --seed 1 --eps 1e-2\n"
    "             --bound 1e-2 --floor 1e-3 --perturb-b 0.05 --text \"...\"] [--json]\n"
    "  hone-train scan --model M.gguf [--json]   (ops of llama.cpp's graph without a backward)\n"
    "  hone-train probe-arch --arch NAME --vocab-from VOCAB.gguf --out M.gguf [--experts] [--json]\n"
    "             (a tiny model of any architecture llama.cpp loads, made by answering its loader; then scanned)\n"
    "  hone-train render --model M.gguf --data EXAMPLES.jsonl [--chat-template-file T.jinja] [--loss assistant|all]\n"
    "             [--ignore-weights]   (one JSON line per example: text, tokens, loss mask, token byte spans)\n"
    "  hone-train score --model M.gguf [--adapter A.gguf] --data D [--ctx 256] [--json]\n"
    "  hone-train merge --model M.gguf --adapter A.gguf --out MERGED.gguf [--type q4_k_m|q5_k_m|q8_0|f16] [--scale 1]\n"
    "             [--threads N] [--json]   (base + scale * B·A as a new GGUF; untouched tensors copied)\n"
    "  hone-train compare-logits --model A.gguf [--adapter X.gguf] --model-b B.gguf [--adapter-b Y.gguf] --text \"...\" [--json]\n"
    "             (llama.cpp's logits of both on the same tokens, and how far apart they are)\n"
    "  hone-train chat --model M.gguf [--adapter A.gguf --scale 1] --prompt \"...\" [--system \"...\"] [--max-tokens 256]\n"
    "             [--greedy | --temperature T --top-p 0.95 --seed 42] [--backend cpu|auto|cuda|metal --threads N --ctx N] [--json]\n"
    "             (a reply through the chat template, streamed; Ctrl-C stops it)\n";

// Linux: VmHWM of this process image (getrusage's ru_maxrss also counts the parent's memory
// when forked from a large process such as Node, and keeps it across exec).
double peak_rss_mib() {
#if defined(__linux__)
    if (FILE * f = fopen("/proc/self/status", "r")) {
        char line[256];
        long kb = -1;
        while (fgets(line, sizeof(line), f)) {
            if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
        }
        fclose(f);
        if (kb >= 0) return kb / 1024.0;
    }
#endif
#ifndef _WIN32
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
#ifdef __APPLE__
    return ru.ru_maxrss / (1024.0 * 1024.0);
#else
    return ru.ru_maxrss / 1024.0;
#endif
#else
    return 0.0;
#endif
}

int report_error(bool json, const char * code, const std::string & message) {
    if (json) {
        printf("%s\n", JsonObject().str("type", "error").str("code", code).str("message", message).dump().c_str());
        fflush(stdout);
    }
    fprintf(stderr, "hone-train: error: %s\n", message.c_str());
    return 1;
}

int main(int argc, char ** argv) {
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))) {
        fputs(USAGE, stdout);
        return 0;
    }
    try {
        if (argc >= 2 && !strcmp(argv[1], "make-model")) return cmd_make_model(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "check-forward")) return cmd_check_forward(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "probe-arch")) return cmd_probe_arch(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "check-grad")) return cmd_check_grad(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "scan")) return cmd_scan(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "architectures")) return cmd_architectures(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "render")) return cmd_render(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "score")) return cmd_score(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "merge")) return cmd_merge(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "compare-logits")) return cmd_compare_logits(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "chat")) return cmd_chat(argc, argv);
        if (argc >= 2 && !strcmp(argv[1], "train")) return cmd_train(argc - 1, argv + 1);
        return cmd_train(argc, argv);
    } catch (const UsageError & e) {
        fprintf(stderr, "hone-train: %s\n%s", e.what(), USAGE);
        return 2;
    }
}
