#!/usr/bin/env python3
"""Token sequences with the lengths of real chat data, for the real-lengths benchmark
(device-cuda.sh stage real-lengths; bench-peft-real.py reads the same file).

Two length distributions, each a log-normal clipped to [16, max] (token ids are random; only
the lengths matter to speed):
  instruct   median 180, 90th percentile 500, maximum 800 tokens: single-turn instruction data
             (Alpaca-style) through a 150k-entry (Qwen) tokenizer, as measured on a real
             999-example Alpaca file for issue 54 (mean about 240 tokens).
  multiturn  median 700, 90th percentile 2000, maximum 4096: multi-turn conversations, several
             exchanges of the ShareGPT kind (vLLM paper, Kwon et al. 2023: ShareGPT's mean
             input 161 and output 338 tokens per exchange).
Each example has a prompt (the first quarter of its tokens, no loss) and a reply (loss), as
a rendered chat example has.
usage: real_lengths.py {instruct|multiturn} N OUT.jsonl [--vocab 151936] [--seed 1]"""
import argparse
import json
import math
import random

DISTRIBUTIONS = {  # median, 90th percentile, maximum
    "instruct": (180, 500, 800),
    "multiturn": (700, 2000, 4096),
}
Z90 = 1.2815515655446004  # the standard normal's 90th percentile


def lengths(name, n, seed=1):
    median, p90, top = DISTRIBUTIONS[name]
    mu, sigma = math.log(median), math.log(p90 / median) / Z90
    rng = random.Random(seed)
    return [max(16, min(top, round(rng.lognormvariate(mu, sigma)))) for _ in range(n)]


def examples(name, n, vocab, seed=1):
    rng = random.Random(seed + 1)
    for length in lengths(name, n, seed):
        tokens = [rng.randrange(1, vocab) for _ in range(length)]
        prompt = length // 4
        yield {"tokens": tokens, "loss_mask": [0] * prompt + [1] * (length - prompt)}


def read(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("dist", choices=DISTRIBUTIONS)
    ap.add_argument("n", type=int)
    ap.add_argument("out")
    ap.add_argument("--vocab", type=int, default=151936)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    with open(a.out, "w") as f:
        for ex in examples(a.dist, a.n, a.vocab, a.seed):
            f.write(json.dumps(ex) + "\n")
    ls = sorted(len(e["tokens"]) for e in read(a.out))
    print(json.dumps({"dist": a.dist, "n": len(ls), "median": ls[len(ls) // 2], "p90": ls[int(len(ls) * 0.9)], "max": ls[-1],
                      "mean": round(sum(ls) / len(ls), 1)}))
