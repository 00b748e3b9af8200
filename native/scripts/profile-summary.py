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
