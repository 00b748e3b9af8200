/**
 * The schema of ops.json (docs/ops-json.md) as data, and a small validator: every required
 * field present with its type, no undocumented field, arrays and maps checked element by
 * element. Returns the problems found, each with its path (empty: valid).
 */

export type Schema =
  | 'string' | 'integer' | 'number' | 'boolean' | 'null'
  | 'object' // any JSON object (a part another page documents)
  | { anyOf: Schema[] }
  | { array: Schema }
  | { map: Schema } // an object whose keys are free (backend names) and values of one schema
  | { object: Record<string, Schema>; optional?: Record<string, Schema> };

const int = 'integer' as const;
const num = 'number' as const;
const str = 'string' as const;
const bool = 'boolean' as const;
const orNull = (s: Schema): Schema => ({ anyOf: [s, 'null'] });
const shape: Schema = { array: int };

const memoryItem: Schema = { object: { what: str, backend: str, pool: str, bytes: int, mapped: bool, trainer: bool } };
const memoryPool: Schema = {
  object: {
    pool: str, plan_bytes: int, resident_bytes: int, mapped_bytes: int, free_bytes: int, total_bytes: int, limit_bytes: int, fits: bool,
    measured_peak_bytes: orNull(int), measured_over_plan: orNull(num), measured_mapped_bytes: orNull(int),
  },
};

/** run.json's "memory" and the first part of ops.json's. */
export const memorySchema: Schema = {
  object: { items: { array: memoryItem }, backends: { array: memoryPool }, limit_bytes: int, kv_cache_bytes: int, mode: str, mode_reason: str, ubatch: int, ubatch_reason: str },
};

const node: Schema = {
  object: {
    i: int, pass: str, op: str, name: str, backend: str, type: str, shape, layer: int, weight: orNull(str), flops: num, compute: bool,
    src: { array: { object: { name: str, type: str, shape, backend: str } } },
  },
  optional: { time_ms: orNull(num), runs: int, cpu_reason: str },
};

export const opsSchema: Schema = {
  object: {
    schema: str,
    dry_run: bool,
    backends: { array: str },
    memory: {
      object: {
        ...(memorySchema as { object: Record<string, Schema> }).object,
        compute_buffer: { map: int },
        graph_tensor_bytes_before_reuse: { map: int },
      },
    },
    graph: { object: { forward_nodes: int, backward_nodes: int, optimizer_nodes: int, trainable_tensors: int } },
    n_nodes: int,
    n_compute_nodes: int,
    n_splits: int,
    n_copies: int,
    copy_bytes: int,
    share: { map: { object: { nodes: int, node_share: num, flops: num, flops_share: num } } },
    by_op: { array: { object: { op: str, backend: str, src0_type: str, count: int } } },
    transitions: { array: { object: { at: int, from: str, to: str, op: str, name: str } } },
    copies: { array: { object: { tensor: str, from: str, to: str, bytes: int, first_use: int } } },
    cpu_fallbacks: { array: { object: { i: int, op: str, name: str, layer: int, reason: str } } },
    gradient_waste_nodes: int,
    gradient_waste_flops: num,
    gradient_waste: { array: { object: { tensor: str, grad: str, op: str, bytes: int, flops: num } } },
    gradient_waste_backward_nodes: { array: { object: { i: int, op: str, name: str, layer: int, bytes: int, flops: num } } },
    profile: orNull({
      object: {
        steps_profiled: int, steps_unprofiled: int, step_s_profiled: orNull(num), step_s_unprofiled: orNull(num), slowdown: orNull(num),
        node_time_s: num, by_op: { array: { object: { op: str, backend: str, runs: int, total_ms: num } } },
      },
    }),
    nodes: { array: node },
  },
};

function typeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function check(v: unknown, s: Schema, path: string, out: string[]): void {
  if (out.length > 20) return; // enough to see what is wrong
  if (typeof s === 'string') {
    const t = typeOf(v);
    const ok = t === s || (s === 'number' && t === 'integer') || (s === 'object' && t === 'object');
    if (!ok) out.push(`${path}: expected ${s}, got ${t}`);
    return;
  }
  if ('anyOf' in s) {
    const sub = s.anyOf.map((alt) => { const o: string[] = []; check(v, alt, path, o); return o; });
    if (!sub.some((o) => o.length === 0)) out.push(...sub.sort((a, b) => a.length - b.length)[0]);
    return;
  }
  if ('array' in s) {
    if (!Array.isArray(v)) { out.push(`${path}: expected array, got ${typeOf(v)}`); return; }
    v.forEach((e, i) => check(e, s.array, `${path}[${i}]`, out));
    return;
  }
  if (typeOf(v) !== 'object') { out.push(`${path}: expected object, got ${typeOf(v)}`); return; }
  const o = v as Record<string, unknown>;
  if ('map' in s) {
    for (const [k, e] of Object.entries(o)) check(e, s.map, `${path}.${k}`, out);
    return;
  }
  for (const [k, sub] of Object.entries(s.object)) {
    if (!(k in o)) out.push(`${path}.${k}: missing`);
    else check(o[k], sub, `${path}.${k}`, out);
  }
  for (const [k, sub] of Object.entries(s.optional ?? {})) if (k in o) check(o[k], sub, `${path}.${k}`, out);
  for (const k of Object.keys(o)) if (!(k in s.object) && !(k in (s.optional ?? {}))) out.push(`${path}.${k}: not in the documented schema`);
}

/** Problems of `doc` against `schema` (default: ops.json's), each naming its path; empty when valid. */
export function validate(doc: unknown, schema: Schema = opsSchema): string[] {
  const out: string[] = [];
  check(doc, schema, '$', out);
  return out;
}
