// The Ops table: grouping, the fallbacks filter, sorting, and what the model's graph says.
import { describe, expect, it } from 'vitest';
import { backendShares, opsRows, targetsInGraph } from '../../renderer/src/lib/ops-rows.ts';
import type { OpsView } from '../../renderer/src/store/slices/ops.ts';
import { node, opsReport } from './data.ts';

const view = (over: Partial<OpsView> = {}): OpsView => ({ fallbacksOnly: false, grouping: 'op', sortKey: 'flops', sortDir: 'desc', query: '', ...over });
const q4 = [{ name: 'w', type: 'q4_K', shape: [512, 1536, 1, 1], backend: 'CUDA0' }, { name: 'x', type: 'f32', shape: [512, 64, 1, 1], backend: 'CUDA0' }];
const reason = 'CUDA0: OUT_PROD with src0 q4_K [512,1536,1,1], src1 f32 [512,64,1,1] not supported';

const report = opsReport(
  [
    node(0, { op: 'MUL_MAT', backend: 'CUDA0', flops: 6000, src: q4 }),
    node(1, { op: 'MUL_MAT', backend: 'CUDA0', flops: 6000, src: q4 }),
    node(2, { op: 'OUT_PROD', backend: 'CPU', flops: 3000, src: q4, cpu_reason: reason }),
    node(3, { op: 'ADD', backend: 'CUDA0', flops: 1000 }),
    node(4, { op: 'VIEW', backend: 'CUDA0', flops: 0, compute: false }),
    node(5, { op: 'MUL_MAT', backend: 'CUDA0', flops: 10, weight: 'blk.0.attn_q.weight' }),
    node(6, { op: 'MUL_MAT', backend: 'CUDA0', flops: 10, weight: 'blk.0.ffn_gate_up.weight' }),
  ],
  ['CUDA0', 'CPU'],
);

describe('opsRows', () => {
  it('groups compute nodes by op, backend and source types, leaving views out', () => {
    const rows = opsRows(report, view());
    expect(rows.map((r) => `${r.op}@${r.backend}×${r.count}`)).toEqual(['MUL_MAT@CUDA0×2', 'OUT_PROD@CPU×1', 'ADD@CUDA0×1', 'MUL_MAT@CUDA0×2']);
    expect(rows.reduce((a, r) => a + r.count, 0)).toBe(report.n_compute_nodes);
    expect(rows[0].flopsShare).toBeCloseTo(12000 / 16020, 6);
    expect(rows[0].srcTypes).toBe('q4_K × f32');
  });

  it('carries the backend’s own reason on a fallback and filters to fallbacks only', () => {
    const only = opsRows(report, view({ fallbacksOnly: true }));
    expect(only).toHaveLength(1);
    expect(only[0]).toMatchObject({ op: 'OUT_PROD', backend: 'CPU', fallback: reason, fallbacks: 1 });
  });

  it('sorts by the chosen column in both directions, and lists single nodes', () => {
    expect(opsRows(report, view({ sortKey: 'op', sortDir: 'asc' })).map((r) => r.op)).toEqual(['ADD', 'MUL_MAT', 'MUL_MAT', 'OUT_PROD']);
    const nodes = opsRows(report, view({ grouping: 'node', sortKey: 'flops', sortDir: 'asc' }));
    expect(nodes).toHaveLength(6);
    expect(nodes[0].flops).toBe(10);
    expect(nodes[nodes.length - 1].flops).toBe(6000);
  });

  it('filters by text over op, backend, types and names', () => {
    expect(opsRows(report, view({ query: 'q4_k' })).map((r) => r.op).sort()).toEqual(['MUL_MAT', 'OUT_PROD']);
  });
});

describe('targetsInGraph and backendShares', () => {
  it('names the LoRA targets the model has, a fused gate/up as both', () => {
    expect(targetsInGraph(report)?.sort()).toEqual(['attn_q', 'ffn_gate', 'ffn_up']);
    expect(targetsInGraph(null)).toBeNull();
  });

  it('lists backends in the scheduler’s order with their shares', () => {
    const shares = backendShares(report);
    expect(shares.map((s) => s.backend)).toEqual(['CUDA0', 'CPU']);
    expect(shares[1].nodes).toBe(1);
    expect(shares[0].nodeShare + shares[1].nodeShare).toBeCloseTo(1, 12);
  });
});
