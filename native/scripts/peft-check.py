#!/usr/bin/env python3
"""Hone's PEFT export against transformers + PEFT (docs/export.md), in two steps around the export.

  peft-check.py make DIR --llama-src SRC   small Hugging Face llama and qwen2 models with random weights
                                           (config only, nothing downloaded), a SentencePiece tokenizer
                                           trained on made-up words, converted to GGUF by SRC's
                                           convert_hf_to_gguf.py, and token sequences to train and score
  peft-check.py check DIR                  each HF model with DIR/<arch>/peft (Hone's export) loaded by
                                           PEFT: its cross-entropy on the sequences against Hone's
                                           (hone-train score, with and without the adapter); prints one
                                           JSON line per model and exits 1 unless every one passes

Between them, device-peft.sh trains each GGUF with hone-train, scores it and exports PEFT with `hone export`.
"""
import argparse
import hashlib
import json
import math
import random
import subprocess
import sys
from pathlib import Path

import torch

# Tiny shapes: llama with grouped KV heads (8 heads, 4 KV heads), so un-permuting K with the KV head
# count is tested; qwen2 with tied embeddings and Q/K/V biases (not permuted by the converter).
ARCHS = {
    "llama": ("LlamaConfig", dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=8,
                                  num_key_value_heads=4, tie_word_embeddings=False)),
    "qwen2": ("Qwen2Config", dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                                  num_key_value_heads=2, tie_word_embeddings=True)),
}
VOCAB = 512
SEQUENCES, LENGTH = 8, 48
# Cross-entropy difference allowed between Hone (llama.cpp's graph, F32, CPU) and transformers (F32, CPU),
# in nats per token: both sum the same products in another order.
TOLERANCE = 1e-3
# logits: the largest |Hone - transformers| over every position and vocabulary entry, relative to
# the largest |logit|; both sides F32 on a CPU, so a few ulps of accumulation order apart
LOGIT_TOLERANCE = 1e-4


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tokenizer(folder: Path, seed: int) -> None:
    """A SentencePiece model of made-up words (the converter needs a tokenizer; the check uses token ids)."""
    import sentencepiece as spm

    rng = random.Random(seed)
    syllables = ["ka", "lo", "mi", "ne", "tu", "ra", "shi", "po", "de", "ven", "al", "or", "ix", "um", "bre", "sta"]
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 4))) for _ in range(600)]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(4, 16))) for _ in range(4000)]
    spm.SentencePieceTrainer.train(sentence_iterator=iter(lines), model_prefix=str(folder / "tokenizer"), vocab_size=VOCAB,
                                   model_type="unigram", byte_fallback=True, character_coverage=1.0, hard_vocab_limit=False,
                                   unk_id=0, bos_id=1, eos_id=2, pad_id=-1, num_threads=1, minloglevel=2)
    (folder / "tokenizer.vocab").unlink(missing_ok=True)


def make(out: Path, llama_src: Path) -> None:
    import transformers
    from transformers import AutoModelForCausalLM

    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    seqs = [[rng.randrange(3, VOCAB) for _ in range(LENGTH)] for _ in range(SEQUENCES)]
    (out / "tokens.jsonl").write_text("".join(json.dumps({"tokens": s}) + "\n" for s in seqs))
    manifest = {"transformers": transformers.__version__, "torch": torch.__version__, "models": {}}
    for i, (arch, (config_name, shape)) in enumerate(ARCHS.items()):
        hf = out / arch / "hf"
        hf.mkdir(parents=True, exist_ok=True)
        torch.manual_seed(100 + i)
        config = getattr(transformers, config_name)(**shape, vocab_size=VOCAB, max_position_embeddings=256, rms_norm_eps=1e-5,
                                                    initializer_range=0.1, bos_token_id=1, eos_token_id=2)
        model = AutoModelForCausalLM.from_config(config, dtype=torch.float32)
        model.save_pretrained(hf, safe_serialization=True)
        tokenizer(hf, 200 + i)
        gguf = out / arch / "base.gguf"
        subprocess.run([sys.executable, str(llama_src / "convert_hf_to_gguf.py"), str(hf), "--outfile", str(gguf), "--outtype", "f32"],
                       check=True, stdout=subprocess.DEVNULL)
        manifest["models"][arch] = {"config": config_name, "shape": shape, "gguf": gguf.name, "gguf_sha256": sha256(gguf)}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def logits_of(model, seq: list[int]) -> torch.Tensor:
    """The logits of every position but the last (the ones hone-train score computes), F32."""
    with torch.no_grad():
        return model(input_ids=torch.tensor([seq])).logits[0, :-1].float()


def nll(model, seq: list[int]) -> float:
    """Cross-entropy of every next token, summed, in double precision (as hone-train score)."""
    logp = logits_of(model, seq).double().log_softmax(-1)
    return float(-logp.gather(1, torch.tensor(seq[1:]).unsqueeze(1)).sum())


def hone_logits(path: Path, seqs: list[list[int]], vocab: int) -> list[torch.Tensor]:
    """hone-train score --logits-out: F32 rows, sequence after sequence, len(seq) - 1 rows each."""
    flat = torch.frombuffer(bytearray(path.read_bytes()), dtype=torch.float32)
    out, at = [], 0
    for s in seqs:
        n = (len(s) - 1) * vocab
        out.append(flat[at:at + n].view(len(s) - 1, vocab))
        at += n
    assert at == flat.numel(), f"{path}: {flat.numel()} floats, {at} expected"
    return out


def logit_diff(ours: list[torch.Tensor], theirs: list[torch.Tensor]) -> float:
    worst = max(float((a - b).abs().max()) for a, b in zip(ours, theirs))
    return worst / max(float(b.abs().max()) for b in theirs)


def check(out: Path) -> bool:
    from peft import PeftModel
    from transformers import AutoModelForCausalLM

    torch.set_num_threads(4)
    seqs = [json.loads(line)["tokens"] for line in (out / "tokens.jsonl").read_text().splitlines()]
    ok = True
    for arch in ARCHS:
        folder = out / arch
        hone = json.loads((folder / "hone-score.json").read_text())
        base = AutoModelForCausalLM.from_pretrained(folder / "hf", dtype=torch.float32).eval()
        hf_base = [nll(base, s) for s in seqs]
        vocab = base.config.vocab_size
        logits_base = logit_diff(hone_logits(folder / "logits-base.f32", seqs, vocab), [logits_of(base, s) for s in seqs])
        tuned = PeftModel.from_pretrained(base, folder / "peft").eval()
        hf_tuned = [nll(tuned, s) for s in seqs]
        hf_tuned_logits = [logits_of(tuned, s) for s in seqs]
        logits_tuned = logit_diff(hone_logits(folder / "logits-adapter.f32", seqs, vocab), hf_tuned_logits)
        # how far the adapter moves the logits (so a no-op export cannot pass)
        logits_effect = logit_diff(hone_logits(folder / "logits-base.f32", seqs, vocab), hf_tuned_logits)
        tokens = [len(s) - 1 for s in seqs]

        def per_token(a, b):
            return max(abs(x - y) / n for x, y, n in zip(a, b, tokens))

        diff_base = per_token(hf_base, hone["base"])
        diff_tuned = per_token(hf_tuned, hone["adapter"])
        effect = per_token(hone["adapter"], hone["base"])
        passed = (diff_base <= TOLERANCE and diff_tuned <= TOLERANCE and effect >= 10 * TOLERANCE
                  and logits_base <= LOGIT_TOLERANCE and logits_tuned <= LOGIT_TOLERANCE and logits_effect >= 100 * LOGIT_TOLERANCE)
        ok = ok and passed
        print(json.dumps({
            "arch": arch,
            "pass": passed,
            "tolerance_nats_per_token": TOLERANCE,
            # the largest per-sequence difference of mean cross-entropy (nats per token)
            "max_abs_diff_base": diff_base,
            "max_abs_diff_with_adapter": diff_tuned,
            "adapter_effect": effect,
            "logit_tolerance_relative": LOGIT_TOLERANCE,
            # max |Hone - transformers| over all logits / max |logit|
            "logits_rel_diff_base": logits_base,
            "logits_rel_diff_with_adapter": logits_tuned,
            "logits_adapter_effect": logits_effect,
            "mean_nll_hone_adapter": sum(hone["adapter"]) / sum(tokens),
            "mean_nll_hf_peft": sum(hf_tuned) / sum(tokens),
            "mean_nll_hone_base": sum(hone["base"]) / sum(tokens),
            "mean_nll_hf_base": sum(hf_base) / sum(tokens),
            "target_modules": json.loads((folder / "peft" / "adapter_config.json").read_text())["target_modules"],
        }), flush=True)
        if not all(math.isfinite(x) for x in hf_tuned):
            ok = False
    return ok


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=["make", "check"])
    ap.add_argument("dir", type=Path)
    ap.add_argument("--llama-src", type=Path)
    a = ap.parse_args()
    if a.step == "make":
        if not a.llama_src:
            ap.error("make needs --llama-src (the llama.cpp source with convert_hf_to_gguf.py)")
        make(a.dir, a.llama_src)
        return 0
    return 0 if check(a.dir) else 1


if __name__ == "__main__":
    sys.exit(main())
