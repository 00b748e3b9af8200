#!/usr/bin/env python3
"""PyTorch + PEFT on the real-lengths data (real_lengths.py), the same LoRA as bench-peft.py:
real (non-padding) tokens per second and peak memory, one JSON line per mode.
  eager     one example per forward, no padding, an optimizer step every --batch examples
  compiled  the same under torch.compile(dynamic=True) (lengths vary every step)
  packed    examples packed first-fit decreasing into rows of --ctx tokens, each row one
            forward with position ids restarting at every example and a block-diagonal causal
            4D mask (SDPA), an optimizer step every --batch examples
usage: bench-peft-real.py SHAPE DATA.jsonl MODE [--ctx 1024] [--batch 32] [--steps 4]"""
import argparse
import json
import time

import torch

from bench_peft_shapes import SHAPES, lora_model
from real_lengths import read

ap = argparse.ArgumentParser()
ap.add_argument("shape", choices=SHAPES)
ap.add_argument("data")
ap.add_argument("mode", choices=["eager", "compiled", "packed"])
ap.add_argument("--ctx", type=int, default=1024)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--steps", type=int, default=4)
ap.add_argument("--warmup", type=int, default=1)
a = ap.parse_args()

model, opt = lora_model(a.shape, a.ctx)
fwd = torch.compile(model, dynamic=True) if a.mode == "compiled" else model
data = [e for e in read(a.data)]
for e in data:  # the rows Hone trains: at most ctx + 1 tokens
    e["tokens"], e["loss_mask"] = e["tokens"][: a.ctx + 1], e["loss_mask"][: a.ctx + 1]


def labels_of(e):
    return [t if m else -100 for t, m in zip(e["tokens"], e["loss_mask"])]


def pack(batch):
    """First-fit decreasing, as Hone packs: rows of (examples) within ctx tokens."""
    rows, room = [], []
    for e in sorted(batch, key=lambda e: -len(e["tokens"])):
        n = len(e["tokens"])
        for i, r in enumerate(room):
            if r >= n:
                rows[i].append(e)
                room[i] -= n
                break
        else:
            rows.append([e])
            room.append(a.ctx + 1 - n)
    return rows


def row_inputs(row):
    ids, pos, labels, seg = [], [], [], []
    for s, e in enumerate(row):
        ids += e["tokens"]
        pos += list(range(len(e["tokens"])))
        lab = labels_of(e)
        lab[0] = -100  # not predicted from the previous example's last token
        labels += lab
        seg += [s] * len(e["tokens"])
    n = len(ids)
    seg_t = torch.tensor(seg, device="cuda")
    causal = torch.ones(n, n, dtype=torch.bool, device="cuda").tril()
    mask = (causal & (seg_t[:, None] == seg_t[None, :]))[None, None]
    t = lambda x: torch.tensor([x], device="cuda")
    return dict(input_ids=t(ids), position_ids=t(pos), labels=t(labels), attention_mask=mask)


def step(batch):
    if a.mode == "packed":
        parts = [row_inputs(r) for r in pack(batch)]
    else:
        parts = [dict(input_ids=torch.tensor([e["tokens"]], device="cuda"), labels=torch.tensor([labels_of(e)], device="cuda")) for e in batch]
    for p in parts:
        fwd(**p).loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return sum(len(e["tokens"]) for e in batch)


batches = [data[i * a.batch:(i + 1) * a.batch] for i in range((a.warmup + a.steps))]
t0 = time.perf_counter()
for b in batches[: a.warmup]:
    step(b)
torch.cuda.synchronize()
warm = time.perf_counter() - t0
torch.cuda.reset_peak_memory_stats()
t0 = time.perf_counter()
real = sum(step(b) for b in batches[a.warmup:])
torch.cuda.synchronize()
dt = time.perf_counter() - t0
print(json.dumps({"trainer": f"peft-{a.mode}", "shape": a.shape, "ctx": a.ctx, "batch": a.batch, "real_tokens": real,
                  "real_tokens_per_s": round(real / dt), "warmup_s": round(warm, 1), "peak_mib": round(torch.cuda.max_memory_allocated() / 2**20),
                  "torch": torch.__version__}), flush=True)
