/**
 * The Ops view's table rows from an ops report: compute nodes grouped by op, backend and source
 * types (or one row per node), filtered and sorted. CPU fallbacks carry the backend's own reason.
 */
import type { OpsNode, OpsReport } from '../../../electron/common/ops-report.ts';
import type { OpsView } from '../store/slices/ops.ts';

export interface OpsRow {
  key: string;
  op: string;
  backend: string;
  /** Source types joined: `q4_K × f32`. */
  srcTypes: string;
  /** The first node's source shapes: `[64,64,1,1] × [64,32,1,1]`. */
  shapes: string;
  count: number;
  flops: number;
  flopsShare: number;
  /** Summed profiled time, null when not profiled. */
  timeMs: number | null;
  /** The first fallback reason among the row's nodes, null when none fell back. */
  fallback: string | null;
  /** How many of the row's nodes are CPU fallbacks. */
  fallbacks: number;
  /** One node: its name, pass and layer; a group: its first node's. */
  name: string;
  pass: string;
  layer: number;
}

const shapeText = (shape: number[]) => `[${shape.join(',')}]`;
const srcTypesOf = (n: OpsNode) => (n.src.length ? n.src.map((s) => s.type).join(' × ') : '–');
const shapesOf = (n: OpsNode) => (n.src.length ? n.src.map((s) => shapeText(s.shape)).join(' × ') : shapeText(n.shape));

function rowOf(n: OpsNode, key: string, totalFlops: number): OpsRow {
  return {
    key,
    op: n.op,
    backend: n.backend,
    srcTypes: srcTypesOf(n),
    shapes: shapesOf(n),
    count: 1,
    flops: n.flops,
    flopsShare: totalFlops > 0 ? n.flops / totalFlops : 0,
    timeMs: typeof n.time_ms === 'number' ? n.time_ms : null,
    fallback: n.cpu_reason ?? null,
    fallbacks: n.cpu_reason ? 1 : 0,
    name: n.name,
    pass: n.pass,
    layer: n.layer,
  };
}

export function opsRows(report: OpsReport | null, view: OpsView): OpsRow[] {
  if (!report) return [];
  const nodes = report.nodes.filter((n) => n.compute);
  const totalFlops = nodes.reduce((a, n) => a + n.flops, 0);
  let rows: OpsRow[];
  if (view.grouping === 'node') {
    rows = nodes.map((n) => rowOf(n, `n${n.i}`, totalFlops));
  } else {
    const groups = new Map<string, OpsRow>();
    for (const n of nodes) {
      const key = `${n.op}|${n.backend}|${srcTypesOf(n)}`;
      const g = groups.get(key);
      if (!g) {
        groups.set(key, rowOf(n, key, totalFlops));
        continue;
      }
      g.count++;
      g.flops += n.flops;
      g.flopsShare = totalFlops > 0 ? g.flops / totalFlops : 0;
      if (typeof n.time_ms === 'number') g.timeMs = (g.timeMs ?? 0) + n.time_ms;
      if (n.cpu_reason) {
        g.fallbacks++;
        g.fallback ??= n.cpu_reason;
      }
    }
    rows = [...groups.values()];
  }
  if (view.fallbacksOnly) rows = rows.filter((r) => r.fallbacks > 0);
  const q = view.query.trim().toLowerCase();
  if (q) rows = rows.filter((r) => `${r.op} ${r.backend} ${r.srcTypes} ${r.name}`.toLowerCase().includes(q));
  const dir = view.sortDir === 'asc' ? 1 : -1;
  const value = (r: OpsRow): number | string => {
    switch (view.sortKey) {
      case 'op': return r.op;
      case 'backend': return r.backend;
      case 'count': return r.count;
      case 'time': return r.timeMs ?? -1;
      default: return r.flops;
    }
  };
  return rows.sort((a, b) => {
    const va = value(a), vb = value(b);
    const c = typeof va === 'string' ? va.localeCompare(vb as string) : va - (vb as number);
    return c !== 0 ? c * dir : a.key.localeCompare(b.key);
  });
}

/** Target modules the model has: the base weights the training graph reads, by LoRA target name. */
export function targetsInGraph(report: OpsReport | null): string[] | null {
  if (!report) return null;
  const found = new Set<string>();
  const fused: Record<string, string[]> = { attn_qkv: ['attn_q', 'attn_k', 'attn_v'], ffn_gate_up: ['ffn_gate', 'ffn_up'] };
  for (const n of report.nodes) {
    const m = n.weight && /(?:^|\.)(attn_qkv|attn_q|attn_k|attn_v|attn_output|ffn_gate_up|ffn_gate|ffn_up|ffn_down|output)\.weight$/.exec(n.weight);
    if (!m) continue;
    for (const t of fused[m[1]] ?? [m[1]]) found.add(t);
  }
  return [...found];
}

/** Share of compute nodes and FLOPs per backend, GPU first and the CPU last (as `backends` orders them). */
export function backendShares(report: OpsReport | null): Array<{ backend: string; nodes: number; nodeShare: number; flopsShare: number }> {
  if (!report) return [];
  const order = [...report.backends, ...Object.keys(report.share).filter((b) => !report.backends.includes(b))];
  return order
    .filter((b) => report.share[b])
    .map((b) => ({ backend: b, nodes: report.share[b].nodes, nodeShare: report.share[b].node_share, flopsShare: report.share[b].flops_share }));
}
