#!/usr/bin/env python3
"""Where one training step's GPU time goes, kernel by kernel, from Nsight Compute's raw CSV
(`ncu --csv --page raw --print-units base --metrics gpu__time_duration.sum,...`). Unlike
hone-train's --profile, which synchronises after every node, these are the kernels' own
durations. Steps are told apart by the optimizer: a step ends with its AdamW kernels.
usage: kernel-summary.py NCU.csv [top] [step-wall-ms]"""
import csv
import re
import sys

rows = list(csv.reader(open(sys.argv[1], errors="replace")))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 24
wall_ms = float(sys.argv[3]) if len(sys.argv) > 3 else None
head_at = next(i for i, r in enumerate(rows) if "Kernel Name" in r)
head = rows[head_at]
col_name, col_time = head.index("Kernel Name"), head.index("gpu__time_duration.sum")
col_grid = head.index("launch__grid_size") if "launch__grid_size" in head else None
kernels = []
for r in rows[head_at + 1:]:
    if len(r) <= col_time or not re.fullmatch(r"[0-9.]+", r[col_time].replace(",", "")):
        continue  # the units row, or a line ncu wrote between kernels
    kernels.append((r[col_name], float(r[col_time].replace(",", "")) / 1e6,
                    r[col_grid] if col_grid is not None else ""))

# split into steps at the end of each optimizer phase: AdamW kernels, one per tensor, with the
# gradient's scaling (a MUL) launched between them
ends, last_opt = [], None
for i, k in enumerate(kernels):
    if "adamw" in k[0].lower():
        if last_opt is not None and i - last_opt > 3:
            ends.append(last_opt)
        last_opt = i
if last_opt is not None:
    ends.append(last_opt)
if not ends:
    sys.exit(f"no optimizer kernels among {len(kernels)} kernels: no complete step profiled")
starts = [0] + [e + 1 for e in ends[:-1]]
steps = [kernels[a:e + 1] for a, e in zip(starts, ends)]
step = steps[-1]
total = sum(k[1] for k in step)
line = f"{len(kernels)} kernels profiled, {len(steps)} complete steps; the last: {len(step)} kernels, {total:.2f} ms of kernel time"
if wall_ms:
    line += f" against {wall_ms:.2f} ms of wall time unprofiled ({100 * total / wall_ms:.1f}% busy)"
print(line)


def short(name):
    name = re.sub(r"\(.*", "", name)  # parameters
    return name[:90]


for title, key in (("by kernel", lambda k: short(k[0])), ("by kernel and grid", lambda k: f"{short(k[0])[:70]} {k[2]}")):
    groups = {}
    for k in step:
        g = groups.setdefault(key(k), [0, 0.0])
        g[0] += 1
        g[1] += k[1]
    print(f"  {title}:")
    for name, (count, ms) in sorted(groups.items(), key=lambda kv: -kv[1][1])[:top]:
        print(f"    {ms:9.3f} ms {100 * ms / total:5.1f}% {count:6d} x {1000 * ms / count:8.1f} us  {name}")
