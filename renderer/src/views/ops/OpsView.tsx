/**
 * Ops: the training graph's op report, for the plan (before training) or a run. A bar per
 * backend, splits and host↔device copies per step, CPU fallbacks with the backend's own reason,
 * gradient-waste nodes, and every op grouped or one per node, sortable, "fallbacks only".
 */
import { useEffect } from 'react';
import { loadRunOps } from '../../actions/run.ts';
import { useApp, useEnv } from '../../app/context.tsx';
import { Checkbox, SelectField } from '../../components/fields.tsx';
import { Badge, Card, PageHeader, Stat } from '../../components/layout.tsx';
import { ShareList } from '../../components/share-list.tsx';
import { EmptyState, ErrorNotice, Loading, Notice } from '../../components/status.tsx';
import { VirtualTable, type Column } from '../../components/virtual-table.tsx';
import { formatBytes, formatCount, formatFlops, formatPercent } from '../../lib/format.ts';
import type { OpsRow } from '../../lib/ops-rows.ts';
import { selectActiveOps, selectBackendShares, selectGpuFlopsShare, selectGpuNodeShare, selectOpsRows } from '../../store/selectors.ts';
import type { OpsSortKey } from '../../store/slices/ops.ts';

const columns = (grouped: boolean): Column<OpsRow>[] => [
  { key: 'op', header: 'Op', width: 'minmax(130px, 1.2fr)', sortKey: 'op', render: (r) => <code>{r.op}</code>, title: (r) => (grouped ? undefined : r.name) },
  { key: 'backend', header: 'Backend', width: '110px', sortKey: 'backend', render: (r) => <Badge tone={r.backend === 'CPU' ? (r.fallbacks ? 'warn' : 'neutral') : 'accent'}>{r.backend}</Badge> },
  grouped
    ? { key: 'count', header: 'Nodes', width: '76px', align: 'end', sortKey: 'count', render: (r) => <span className="num">{formatCount(r.count)}</span> }
    : { key: 'name', header: 'Tensor', width: 'minmax(150px, 1.4fr)', render: (r) => <span className="mono">{r.name}</span>, title: (r) => `${r.pass}, layer ${r.layer}` },
  { key: 'src', header: 'Source types', width: 'minmax(110px, 1fr)', render: (r) => <span className="mono">{r.srcTypes}</span> },
  { key: 'shapes', header: 'Shapes', width: 'minmax(150px, 1.6fr)', render: (r) => <span className="mono small">{r.shapes}</span>, title: (r) => r.shapes },
  {
    key: 'flops',
    header: 'FLOPs',
    width: '120px',
    align: 'end',
    sortKey: 'flops',
    render: (r) => (
      <span className="flops-cell">
        <span className="flops-bar" aria-hidden="true" style={{ width: `${Math.min(100, r.flopsShare * 100)}%` }} />
        <span className="num">{formatPercent(r.flopsShare, 1)}</span>
      </span>
    ),
    title: (r) => formatFlops(r.flops),
  },
  { key: 'time', header: 'Time', width: '84px', align: 'end', sortKey: 'time', render: (r) => <span className="num">{r.timeMs == null ? '–' : `${r.timeMs.toFixed(2)} ms`}</span> },
  { key: 'reason', header: 'Why on the CPU', width: 'minmax(200px, 2.4fr)', render: (r) => (r.fallback ? <span className="reason">{r.fallback}</span> : <span className="muted">–</span>), title: (r) => r.fallback ?? undefined },
];

export function OpsView() {
  const env = useEnv();
  const source = useApp((s) => s.ops.source);
  const runId = useApp((s) => s.run.id);
  const runOps = useApp((s) => s.ops.run);
  const opsRunId = useApp((s) => s.ops.runId);
  const planStatus = useApp((s) => s.plan.result);
  const report = useApp(selectActiveOps);
  const setOpsSource = useApp((s) => s.setOpsSource);

  useEffect(() => {
    if (source === 'run' && runId && (opsRunId !== runId || runOps.status === 'idle')) void loadRunOps(env, runId);
  }, [source, runId, opsRunId, runOps.status, env]);

  const status = source === 'plan' ? planStatus : runOps;
  return (
    <div className="view">
      <PageHeader
        title="Ops"
        subtitle="Where every op of the training graph runs, and why any falls back to the CPU."
        actions={
          <div className="segmented" role="radiogroup" aria-label="Report of">
            <button type="button" role="radio" aria-checked={source === 'plan'} className={source === 'plan' ? 'on' : ''} onClick={() => setOpsSource('plan')}>
              Plan
            </button>
            <button type="button" role="radio" aria-checked={source === 'run'} className={source === 'run' ? 'on' : ''} onClick={() => setOpsSource('run')} disabled={!runId}>
              Run
            </button>
          </div>
        }
      />
      {status.status === 'loading' && !report && <Loading label={source === 'plan' ? 'Planning…' : "Reading the run's op report…"} />}
      {status.status === 'error' && <ErrorNotice error={status.error!} title={source === 'plan' ? 'The plan failed' : "The run's op report could not be read"} />}
      {!report && status.status !== 'loading' && status.status !== 'error' && (
        <Card>
          <EmptyState title={source === 'plan' ? 'No plan yet' : 'No op report for this run yet'} icon="ops">
            {source === 'plan'
              ? 'Choose a model and data: the plan builds the training graph and shows where each op would run, before anything trains.'
              : 'The report is written once the graph is built; it appears here as the run starts.'}
          </EmptyState>
        </Card>
      )}
      {report && <OpsReportBody dryRun={report.dry_run} />}
    </div>
  );
}

function OpsReportBody({ dryRun }: { dryRun: boolean }) {
  const report = useApp(selectActiveOps)!;
  const rows = useApp(selectOpsRows);
  const view = useApp((s) => s.ops.view);
  const gpuShare = useApp(selectGpuNodeShare);
  const gpuFlops = useApp(selectGpuFlopsShare);
  const shares = useApp(selectBackendShares);
  const setOpsView = useApp((s) => s.setOpsView);
  const multi = report.backends.length > 1;
  const onSort = (key: string) => setOpsView({ sortKey: key as OpsSortKey, sortDir: view.sortKey === key && view.sortDir === 'desc' ? 'asc' : 'desc' });
  return (
    <>
      <div className="grid-2 grid-ops">
        <Card title={dryRun ? 'Placement (planned)' : 'Placement (as run)'}>
          <dl className="stats stats-3">
            <Stat label="Compute ops" value={formatCount(report.n_compute_nodes)} hint={`of ${formatCount(report.n_nodes)} nodes`} />
            <Stat label={multi ? `On ${report.backends[0]}` : 'On the GPU'} value={multi ? formatPercent(gpuShare, 1) : '–'} hint={multi ? `${formatPercent(gpuFlops, 1)} of FLOPs` : 'no GPU backend'} />
            <Stat label="CPU fallbacks" value={formatCount(report.cpu_fallbacks.length)} tone={report.cpu_fallbacks.length ? 'warn' : 'ok'} />
            <Stat label="Splits per step" value={formatCount(report.n_splits)} hint="backend boundaries" />
            <Stat label="Copies per step" value={formatCount(report.copies.length)} hint={formatBytes(report.copy_bytes)} />
            <Stat label="Gradient waste" value={formatCount(report.gradient_waste_nodes)} tone={report.gradient_waste_nodes ? 'bad' : 'ok'} hint="nodes; must be 0" />
          </dl>
          <ShareList shares={shares} wide nodeShare />
        </Card>
        <Card title="CPU fallbacks">
          {report.cpu_fallbacks.length === 0 ? (
            <p className="muted">{multi ? 'None: every op runs on the GPU backend.' : 'The CPU is the only backend here, so nothing falls back.'}</p>
          ) : (
            <FallbackGroups fallbacks={report.cpu_fallbacks} />
          )}
          {report.gradient_waste_nodes > 0 && (
            <Notice kind="warning" title={`${report.gradient_waste_nodes} backward node(s) compute gradients nobody uses`}>
              {report.gradient_waste.slice(0, 4).map((w) => `${w.tensor} (${w.op}, ${formatBytes(w.bytes)})`).join('; ')}
            </Notice>
          )}
          {report.copies.length > 0 && (
            <details className="details-block">
              <summary>{report.copies.length} host↔device copies per step</summary>
              <ul className="line-list">
                {report.copies.slice(0, 50).map((c, i) => (
                  <li key={i} className="mono small">
                    {c.tensor}: {c.from} → {c.to}, {formatBytes(c.bytes)}
                  </li>
                ))}
              </ul>
            </details>
          )}
        </Card>
      </div>
      <Card
        title={`Ops (${formatCount(rows.length)} ${view.grouping === 'op' ? 'groups' : 'nodes'})`}
        actions={
          <div className="toolbar">
            <input className="input input-search" type="search" placeholder="Filter by op, tensor or type" aria-label="Filter ops" value={view.query} onChange={(e) => setOpsView({ query: e.currentTarget.value })} />
            <Checkbox label="Fallbacks only" checked={view.fallbacksOnly} onChange={(v) => setOpsView({ fallbacksOnly: v })} />
            <div className="inline-select">
              <SelectField label="Rows" value={view.grouping} options={[{ value: 'op', label: 'Grouped by op' }, { value: 'node', label: 'One per node' }]} onChange={(v) => setOpsView({ grouping: v })} />
            </div>
          </div>
        }
      >
        <VirtualTable
          rows={rows}
          columns={columns(view.grouping === 'op')}
          rowKey={(r) => r.key}
          label="Ops of the training graph"
          maxHeight={440}
          rowClass={(r) => (r.fallbacks ? 'row-fallback' : undefined)}
          sort={{ key: view.sortKey, dir: view.sortDir, onSort }}
          empty={view.fallbacksOnly ? 'No op falls back to the CPU' : 'No op matches the filter'}
        />
      </Card>
    </>
  );
}

function FallbackGroups({ fallbacks }: { fallbacks: Array<{ op: string; reason: string; name: string; layer: number }> }) {
  const groups = new Map<string, { reason: string; ops: Map<string, number>; count: number }>();
  for (const f of fallbacks) {
    const g = groups.get(f.reason) ?? { reason: f.reason, ops: new Map(), count: 0 };
    g.count++;
    g.ops.set(f.op, (g.ops.get(f.op) ?? 0) + 1);
    groups.set(f.reason, g);
  }
  return (
    <ul className="fallbacks" data-testid="fallbacks" tabIndex={0} aria-label="CPU fallbacks by reason">
      {[...groups.values()]
        .sort((a, b) => b.count - a.count)
        .map((g) => (
          <li key={g.reason} className="fallback">
            <p className="fallback-ops">
              {[...g.ops.entries()].map(([op, n]) => (
                <code key={op}>
                  {op} ×{n}
                </code>
              ))}
            </p>
            <p className="fallback-reason">{g.reason}</p>
          </li>
        ))}
    </ul>
  );
}
