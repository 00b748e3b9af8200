/**
 * The memory plan per pool: what training would allocate (by kind) against what it may use (free
 * memory or the memory limit), and what is already resident or mapped beside it.
 */
import type { PlanPool } from '../../../electron/common/runs.ts';
import { formatBytes } from '../lib/format.ts';

/** The plan's item kinds (docs/ops-json.md memory.items[].what) in the four groups a person reads. */
const GROUPS = [
  { label: 'Gradients', cls: 'seg-adapter', kinds: ['gradient_accumulators'] },
  { label: 'Optimizer', cls: 'seg-optimizer', kinds: ['optimizer_state', 'optimizer_graphs'] },
  { label: 'Compute', cls: 'seg-compute', kinds: ['compute_buffer', 'cpu_work_buffer'] },
] as const;
const KNOWN: readonly string[] = GROUPS.flatMap((g) => g.kinds);

export function planGroups(pool: PlanPool): Array<{ label: string; cls: string; bytes: number }> {
  const planned = pool.items.filter((i) => i.trainer);
  const sum = (kinds: readonly string[]) => planned.filter((i) => kinds.includes(i.what)).reduce((a, i) => a + i.bytes, 0);
  const other = planned.filter((i) => !KNOWN.includes(i.what)).reduce((a, i) => a + i.bytes, 0);
  const out: Array<{ label: string; cls: string; bytes: number }> = GROUPS.map((g) => ({ label: g.label, cls: g.cls, bytes: sum(g.kinds) }));
  if (other) out.push({ label: 'Other', cls: 'seg-weights', bytes: other });
  return out;
}

export function PoolBars({ pools }: { pools: PlanPool[] }) {
  return (
    <div className="pools">
      {pools.map((pool) => {
        const groups = planGroups(pool);
        const room = pool.limitBytes || pool.freeBytes;
        const scale = Math.max(room, pool.planBytes, 1);
        const summary = `${pool.pool}: training allocates ${formatBytes(pool.planBytes)} of ${room ? formatBytes(room) : 'unknown'} available${pool.fits ? '' : ', which does not fit'}`;
        return (
          <div className={`pool ${pool.fits ? '' : 'pool-over'}`} key={pool.pool} data-testid={`pool-${pool.pool}`}>
            <div className="pool-head">
              <span className="pool-name">{pool.pool}</span>
              <span className="pool-total">
                {formatBytes(pool.planBytes)} <span className="muted">of {room ? `${formatBytes(room)} ${pool.limitBytes < pool.freeBytes ? 'limit' : 'free'}` : 'unknown free memory'}</span>
              </span>
            </div>
            <div className="pool-bar" role="img" aria-label={summary}>
              {groups.map((g) =>
                g.bytes ? <span key={g.label} className={`seg ${g.cls}`} style={{ width: `${Math.max(0.6, (g.bytes / scale) * 100)}%` }} title={`${g.label}: ${formatBytes(g.bytes)}`} /> : null,
              )}
            </div>
            <ul className="pool-legend">
              {groups.map((g) => (
                <li key={g.label}>
                  <span className={`swatch ${g.cls}`} aria-hidden="true" />
                  {g.label} <span className="num">{formatBytes(g.bytes)}</span>
                </li>
              ))}
              <li>
                <span className="swatch seg-weights" aria-hidden="true" />
                Resident <span className="num">{formatBytes(pool.residentBytes)}</span>
                {pool.mappedBytes > 0 && <span className="muted">+ {formatBytes(pool.mappedBytes)} mapped</span>}
              </li>
            </ul>
          </div>
        );
      })}
    </div>
  );
}

export function ProgressBar({ value, label }: { value: number | null; label: string }) {
  const pct = value == null ? 0 : Math.round(value * 1000) / 10;
  return (
    <div className="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={value == null ? undefined : pct}>
      <span className="progress-fill" style={{ width: `${pct}%` }} />
    </div>
  );
}
