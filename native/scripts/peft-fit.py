#!/usr/bin/env python3
"""The longest sequence PyTorch + PEFT trains within a memory cap: the counterpart of the
attn-fit stage's Hone figure. Same model, LoRA and optimizer as bench-peft.py (bf16 weights,
SDPA attention, r 8 alpha 16 on q/k/v/o/gate/up/down, AdamW), one sequence per step.
The cap is PyTorch's per-process memory fraction, so it bounds what the caching allocator
holds (not the CUDA context, which the caller subtracts from the card's size, as for Hone).
Doubles the length from --start until a step runs out of memory or passes --max, then bisects
to --grain or a sixteenth of the length, whichever is larger (long trials take a while).
Prints one JSON line per trial and a last line with the result.
usage: peft-fit.py SHAPE --cap-mib N [--checkpointing] [--start 1024] [--grain 256]"""
import argparse
import gc
import json

import torch
from peft import LoraConfig, get_peft_model
from transformers import AutoModelForCausalLM

from bench_peft_shapes import SHAPES

ap = argparse.ArgumentParser()
ap.add_argument("shape", choices=SHAPES)
ap.add_argument("--cap-mib", type=int, required=True)
ap.add_argument("--checkpointing", action="store_true", help="activation checkpointing (HF gradient_checkpointing)")
ap.add_argument("--start", type=int, default=1024)
ap.add_argument("--grain", type=int, default=256)
ap.add_argument("--max", type=int, default=65536)
a = ap.parse_args()

total = torch.cuda.get_device_properties(0).total_memory
torch.cuda.set_per_process_memory_fraction(min(1.0, a.cap_mib * 2**20 / total))

cls, kw = SHAPES[a.shape]
config = cls(**kw, max_position_embeddings=a.max)
with torch.device("cuda"):
    model = AutoModelForCausalLM.from_config(config, attn_implementation="sdpa").to(torch.bfloat16)
if a.checkpointing:
    model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.enable_input_require_grads()
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0,
                                         target_modules=["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]))
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)


def trains(ctx):
    """Two optimizer steps at ctx tokens (the second runs with the optimizer's state allocated)."""
    gc.collect()  # what a step that ran out of memory left behind
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    ids = torch.randint(0, config.vocab_size, (1, ctx), device="cuda")
    ok = True
    try:
        for _ in range(2):
            out = model(input_ids=ids, labels=ids)
            out.loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
            del out
        torch.cuda.synchronize()
    except torch.OutOfMemoryError:
        ok = False
    opt.zero_grad(set_to_none=True)
    print(json.dumps({"ctx": ctx, "fits": ok, "peak_mib": round(torch.cuda.max_memory_allocated() / 2**20)}), flush=True)
    return ok


lo, hi = 0, a.start
while hi <= a.max and trains(hi):
    lo, hi = hi, hi * 2
while hi <= a.max and hi - lo > max(a.grain, lo // 16):
    mid = (lo + hi) // (2 * a.grain) * a.grain
    if trains(mid):
        lo = mid
    else:
        hi = mid
print(json.dumps({"trainer": "peft", "shape": a.shape, "checkpointing": a.checkpointing, "cap_mib": a.cap_mib,
                  "longest_ctx": lo, "refused_at": hi if hi <= a.max else None, "max_tried": a.max, "torch": torch.__version__}), flush=True)
