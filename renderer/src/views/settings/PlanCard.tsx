/**
 * The live memory plan: per pool what training would allocate against free memory, a warning
 * before a run that would not fit, and the op placement the run would get (how many ops on the
 * GPU, which fall back to the CPU and the backend's reason), before anything trains.
 */
import { useApp } from '../../app/context.tsx';
import { Badge, Card } from '../../components/layout.tsx';
import { PoolBars } from '../../components/pool-bars.tsx';
import { ShareList } from '../../components/share-list.tsx';
import { BusyOrError, EmptyState, Loading, Notice } from '../../components/status.tsx';
import { formatPercent } from '../../lib/format.ts';
import { backendShares } from '../../lib/ops-rows.ts';
import { selectGpuNodeShare, selectPlanFresh, selectPlanOps, selectRunSettings } from '../../store/selectors.ts';

export function PlanCard() {
  const plan = useApp((s) => s.plan.result);
  const fresh = useApp(selectPlanFresh);
  const ops = useApp(selectPlanOps);
  const gpuShare = useApp((s) => (s.ops.source === 'plan' ? selectGpuNodeShare(s) : null));
  const ready = useApp((s) => selectRunSettings(s) != null);
  const data = plan.data;
  const updating = plan.status === 'loading' || (!fresh && data != null);

  return (
    <Card
      title="Memory plan"
      className="plan-card"
      actions={data && (updating ? <Badge tone="info">updating…</Badge> : data.fits ? <Badge tone="ok">fits</Badge> : <Badge tone="bad">does not fit</Badge>)}
    >
      <div data-testid="plan" aria-busy={updating} aria-live="polite">
        {!ready && (
          <EmptyState title="Nothing to plan yet" icon="chip">
            Choose a model and data: the plan shows the memory the run needs and where its ops run, before it trains.
          </EmptyState>
        )}
        {ready && plan.status === 'loading' && !data && <Loading label="Planning memory and op placement…" />}
        {ready && plan.status === 'error' && <BusyOrError error={plan.error!} title="The plan failed" waiting="The plan is made when the current run ends (one job at a time)." />}
        {ready && data && (
          <div className={`stack ${updating ? 'stale' : ''}`}>
            {!data.fits && (
              <Notice kind="warning" title="This run would not fit">
                {data.notFit ?? 'Lower the context, the micro-batch, the rank or the number of target modules, or choose another backend.'}
              </Notice>
            )}
            <PoolBars pools={data.pools} />
            {ops?.memory.mode && <MemoryMode mode={ops.memory.mode} reason={ops.memory.mode_reason} />}
            {ops?.memory.ubatch ? <MicroBatch rows={ops.memory.ubatch} reason={ops.memory.ubatch_reason} /> : null}
            {ops && (
              <div className="placement">
                <p className="field-label">Op placement</p>
                <ShareList shares={backendShares(ops)} />
                {gpuShare != null && ops.backends.length > 1 && <p className="small">{formatPercent(gpuShare, 1)} of ops run on the GPU.</p>}
                {ops.cpu_fallbacks.length > 0 ? (
                  <Notice kind="warning" title={`${ops.cpu_fallbacks.length} op(s) fall back to the CPU`}>
                    <FallbackReasons reasons={ops.cpu_fallbacks.map((f) => f.reason)} />
                    <a href="#/ops">See every op</a>
                  </Notice>
                ) : ops.backends.length > 1 ? (
                  <p className="small text-ok">No op falls back to the CPU.</p>
                ) : (
                  <p className="small muted">
                    Every op runs on the CPU (the only backend). <a href="#/ops">See every op</a>
                  </p>
                )}
              </div>
            )}
            <p className="muted small">
              Planned in {Math.round(data.elapsedMs)} ms{data.cached ? ' (model from cache)' : ''}.
            </p>
          </div>
        )}
      </div>
    </Card>
  );
}

const MODE_NAMES = { plain: 'Plain graph', selective: 'Selective recomputation', recompute: 'Every layer recomputed' } as const;
const MODE_COSTS = { plain: '', selective: '; the same gradients', recompute: '; the same gradients, about one more forward pass a step' } as const;

/** Which memory mode the trainer chose (the cheapest that fits, on a GPU) and why. */
function MemoryMode({ mode, reason }: { mode: keyof typeof MODE_NAMES; reason: string }) {
  return (
    <p className="small" data-testid="memory-mode">
      <span className="field-label">Memory mode: </span>
      {MODE_NAMES[mode]} <span className="muted">({reason}{MODE_COSTS[mode]})</span>
    </p>
  );
}

/** The micro-batch the run trains with: asked for, or the trainer's automatic choice and why. */
function MicroBatch({ rows, reason }: { rows: number; reason: string }) {
  return (
    <p className="small" data-testid="micro-batch">
      <span className="field-label">Micro-batch: </span>
      {rows} row{rows === 1 ? '' : 's'} <span className="muted">({reason})</span>
    </p>
  );
}

function FallbackReasons({ reasons }: { reasons: string[] }) {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return (
    <ul className="reason-list">
      {[...counts.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 4)
        .map(([r, n]) => (
          <li key={r}>
            <span className="num">{n}×</span> {r}
          </li>
        ))}
    </ul>
  );
}
