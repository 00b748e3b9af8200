#!/usr/bin/env python3
"""PyTorch + PEFT baseline for the CUDA training benchmark: a bf16 LoRA with the same rank,
alpha, targets and sequence as hone-train, on random weights of the same model config.
Prints one JSON line per run: tokens/s, ms/step and peak memory.
usage: bench-peft.py SHAPE [--compile] [--steps N] [--ctx 2048]"""
import argparse
import json
import time

import torch

from bench_peft_shapes import SHAPES, lora_model

ap = argparse.ArgumentParser()
ap.add_argument("shape", choices=SHAPES)
ap.add_argument("--compile", action="store_true")
ap.add_argument("--steps", type=int, default=10)
ap.add_argument("--ctx", type=int, default=2048)
a = ap.parse_args()

model, opt = lora_model(a.shape, a.ctx)
vocab_size = model.config.vocab_size
step_fn = model
if a.compile:
    step_fn = torch.compile(model)

ids = torch.randint(0, vocab_size, (1, a.ctx), device="cuda")


def step():
    out = step_fn(input_ids=ids, labels=ids)
    out.loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
    return out.loss


for _ in range(3):  # warm-up (and compilation)
    step()
torch.cuda.synchronize()
torch.cuda.reset_peak_memory_stats()
t0 = time.perf_counter()
for _ in range(a.steps):
    loss = step()
torch.cuda.synchronize()
dt = (time.perf_counter() - t0) / a.steps
print(json.dumps({"trainer": "peft-compiled" if a.compile else "peft-eager", "shape": a.shape, "ctx": a.ctx,
                  "tokens_per_s": round(a.ctx / dt), "ms_per_step": round(dt * 1000, 1),
                  "peak_mib": round(torch.cuda.max_memory_allocated() / 2**20), "loss": round(float(loss), 4),
                  "torch": torch.__version__}), flush=True)
