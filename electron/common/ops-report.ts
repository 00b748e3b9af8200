/**
 * ops.json (docs/ops-json.md) as types: where every op of the training graph runs, the memory
 * plan, CPU fallbacks with the backend's reason. `plan()` returns one as `PlanResult.ops` and
 * `runs.opReport()` one of a run; `asOpsReport` checks the schema tag before a front end reads
 * one. No platform imports.
 */

export const OPS_SCHEMA = 'hone.ops/1';

export interface OpsMemoryItem {
  what: 'weights' | 'adapter' | 'gradient_accumulators' | 'optimizer_state' | 'optimizer_graphs' | 'compute_buffer' | 'cpu_work_buffer' | string;
  backend: string;
  pool: string;
  bytes: number;
  mapped: boolean;
  trainer: boolean;
}

export interface OpsMemoryPool {
  pool: string;
  plan_bytes: number;
  resident_bytes: number;
  mapped_bytes: number;
  free_bytes: number;
  total_bytes: number;
  limit_bytes: number;
  fits: boolean;
  measured_peak_bytes: number | null;
  measured_over_plan: number | null;
  measured_mapped_bytes: number | null;
}

export interface OpsNodeSource {
  name: string;
  type: string;
  shape: number[];
  backend: string;
}

export interface OpsNode {
  i: number;
  pass: 'forward' | 'backward' | 'optimizer' | string;
  op: string;
  name: string;
  backend: string;
  type: string;
  shape: number[];
  layer: number;
  weight: string | null;
  flops: number;
  compute: boolean;
  src: OpsNodeSource[];
  cpu_reason?: string;
  time_ms?: number | null;
  runs?: number;
}

export interface OpsReport {
  schema: string;
  dry_run: boolean;
  backends: string[];
  memory: {
    items: OpsMemoryItem[];
    backends: OpsMemoryPool[];
    limit_bytes: number;
    kv_cache_bytes: number;
    /** The memory mode the trainer chose (the cheapest whose plan fits, on a GPU), and why. */
    mode: 'plain' | 'selective' | 'recompute';
    mode_reason: string;
    /** The rows a micro-batch holds, and why: asked for, or the trainer's automatic choice. */
    ubatch: number;
    ubatch_reason: string;
    compute_buffer: Record<string, number>;
    graph_tensor_bytes_before_reuse: Record<string, number>;
  };
  graph: { forward_nodes: number; backward_nodes: number; optimizer_nodes: number; trainable_tensors: number };
  n_nodes: number;
  n_compute_nodes: number;
  n_splits: number;
  n_copies: number;
  copy_bytes: number;
  share: Record<string, { nodes: number; node_share: number; flops: number; flops_share: number }>;
  by_op: Array<{ op: string; backend: string; src0_type: string; count: number }>;
  transitions: Array<{ at: number; from: string; to: string; op: string; name: string }>;
  copies: Array<{ tensor: string; from: string; to: string; bytes: number; first_use: number }>;
  cpu_fallbacks: Array<{ i: number; op: string; name: string; layer: number; reason: string }>;
  gradient_waste_nodes: number;
  gradient_waste_flops: number;
  gradient_waste: Array<{ tensor: string; grad: string; op: string; bytes: number; flops: number }>;
  gradient_waste_backward_nodes: Array<{ i: number; op: string; name: string; layer: number; bytes: number; flops: number }>;
  profile: {
    steps_profiled: number;
    steps_unprofiled: number;
    step_s_profiled: number | null;
    step_s_unprofiled: number | null;
    slowdown: number | null;
    node_time_s: number;
    by_op: Array<{ op: string; backend: string; runs: number; total_ms: number }>;
  } | null;
  nodes: OpsNode[];
}

/** The value as an ops report when it carries this schema's tag and its main arrays, else null. */
export function asOpsReport(v: unknown): OpsReport | null {
  if (!v || typeof v !== 'object') return null;
  const r = v as Partial<OpsReport>;
  if (r.schema !== OPS_SCHEMA || !Array.isArray(r.nodes) || !Array.isArray(r.backends) || !r.share || typeof r.share !== 'object') return null;
  return r as OpsReport;
}
