#!/usr/bin/env python3
"""Where a profiled hone-train step spends its time: ops.json from --profile, grouped by op
and src0 type, the largest first. usage: profile-summary.py DIR/ops.json [top]"""
import json
import sys

ops = json.load(open(sys.argv[1]))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
groups = {}
for n in ops["nodes"]:
    t = n.get("time_ms")
    if t is None:
        continue
    key = n["op"] + (" " + n["src"][0]["type"] if n["src"] else "")
    g = groups.setdefault(key, [0, 0.0])
    g[0] += 1
    g[1] += t
total = sum(v[1] for v in groups.values())
p = ops.get("profile") or {}
print(f"profiled step {p.get('step_s_profiled')} s, unprofiled {p.get('step_s_unprofiled')} s (slowdown {p.get('slowdown')}); node time {total:.1f} ms per micro-batch")
for key, (count, ms) in sorted(groups.items(), key=lambda kv: -kv[1][1])[:top]:
    print(f"    {key:32s} {count:6d} nodes {ms:9.2f} ms {100 * ms / total:5.1f}%")
# The heaviest ops' costliest node shapes: which tensors an op's time goes to.
for op in (sys.argv[3].split(",") if len(sys.argv) > 3 else []):
    shapes = {}
    for n in ops["nodes"]:
        if n["op"] != op or n.get("time_ms") is None:
            continue
        key = f"{n['name'].split('-')[0][:28]:28s} {n['shape']} <- " + " ".join(str(s["shape"]) for s in n["src"])
        g = shapes.setdefault(key, [0, 0.0])
        g[0] += 1
        g[1] += n["time_ms"]
    print(f"  {op}, by name and shape:")
    for key, (count, ms) in sorted(shapes.items(), key=lambda kv: -kv[1][1])[:6]:
        print(f"    {count:5d} x {ms / count:7.3f} ms = {ms:8.2f} ms  {key}")
