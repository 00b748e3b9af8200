#!/usr/bin/env python3
"""PyTorch + PEFT baseline for the CUDA training benchmark: a bf16 LoRA with the same rank,
alpha, targets and sequence as hone-train, on random weights of the same model config.
Prints one JSON line per run: tokens/s, ms/step and peak memory.
usage: bench-peft.py SHAPE [--compile] [--steps N] [--ctx 2048]"""
import argparse
import json
import time

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

from bench_peft_shapes import SHAPES

ap = argparse.ArgumentParser()
ap.add_argument("shape", choices=SHAPES)
ap.add_argument("--compile", action="store_true")
ap.add_argument("--steps", type=int, default=10)
ap.add_argument("--ctx", type=int, default=2048)
a = ap.parse_args()

cls, kw = SHAPES[a.shape]
config = cls(**kw, max_position_embeddings=max(4096, a.ctx))
with torch.device("cuda"):
    model = AutoModelForCausalLM.from_config(config, attn_implementation="sdpa").to(torch.bfloat16)
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0,
                                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]))
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
step_fn = model
if a.compile:
    step_fn = torch.compile(model)

ids = torch.randint(0, config.vocab_size, (1, a.ctx), device="cuda")


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
