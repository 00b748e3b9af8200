#!/usr/bin/env python3
"""One-line summary of a hone-train run: ops.json (where ops ran) and the --json step events.
usage: ops-summary.py DIR/ops.json [steps.jsonl]"""
import json
import statistics
import sys

ops = json.load(open(sys.argv[1]))
share = ", ".join(f"{b} {v['nodes']} nodes ({100 * v['flops_share']:.1f}% flops)" for b, v in ops["share"].items())
fallbacks = {}
for f in ops["cpu_fallbacks"]:
    fallbacks[f["reason"]] = fallbacks.get(f["reason"], 0) + 1
msg = f"{ops['n_compute_nodes']} compute nodes: {share}; splits {ops['n_splits']}, copies {ops['n_copies']} ({ops['copy_bytes'] / 2**20:.0f} MiB); waste {ops['gradient_waste_nodes']}"
if len(sys.argv) > 2:
    steps = [json.loads(l) for l in open(sys.argv[2]) if l.startswith('{"type":"step"')]
    if steps:
        tps = [s["tokens_per_s"] for s in steps[1:]] or [steps[0]["tokens_per_s"]]
        msg += f"; {len(steps)} steps, loss {steps[0]['loss']:.3f} -> {steps[-1]['loss']:.3f}, median {statistics.median(tps):.0f} tok/s after the first"
        if "row_fill" in steps[-1]:  # real tokens / positions: tok/s counts real tokens only
            msg += f", rows {100 * statistics.median(s['row_fill'] for s in steps):.0f}% full"
mem = ops.get("memory")
if mem:
    bufs = ", ".join(f"{b['what']}{'' if b['what'] != 'compute_buffer' else ' ' + b['backend']} {b['bytes'] / 2**20:.0f}" for b in mem["items"])
    comp = ", ".join(f"{k} {v / 2**20:.0f}" for k, v in mem["compute_buffer"].items())
    kinds = ", ".join(f"{k} {v / 2**20:.0f}" for k, v in mem["graph_tensor_bytes_before_reuse"].items())
    if "ubatch" in mem:
        msg += f"\n    micro-batch {mem['ubatch']} ({mem['ubatch_reason']}); mode {mem.get('mode')}"
    msg += f"\n    memory MiB: {bufs}; compute buffer {comp}; graph tensors before reuse: {kinds}"
    for p in mem["backends"]:
        measured = "not measured" if p["measured_peak_bytes"] is None else f"measured peak {p['measured_peak_bytes'] / 2**20:.0f} ({p['measured_over_plan']:.3f} x plan)"
        msg += f"\n    {p['pool']}: plan {p['plan_bytes'] / 2**20:.0f} MiB of {p['limit_bytes'] / 2**20:.0f} free, fits {p['fits']}; {measured}"
print(msg)
for reason, n in sorted(fallbacks.items(), key=lambda x: -x[1])[:8]:
    print(f"    {n} x CPU: {reason[:200]}")
