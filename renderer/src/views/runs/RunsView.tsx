/**
 * Runs: the history with status; tick runs to overlay their curves, two to see how their configs
 * differ; open one for its adapter (the export), its folder, and resume, continue or delete.
 */
import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { RunSummary } from '../../../../electron/common/runs.ts';
import { loadRuns, toggleCompare } from '../../actions/runs.ts';
import { useApp, useEnv } from '../../app/context.tsx';
import { Icon } from '../../components/icons.tsx';
import { Card, PageHeader } from '../../components/layout.tsx';
import { EmptyState, ErrorNotice, Loading } from '../../components/status.tsx';
import { VirtualTable, type Column } from '../../components/virtual-table.tsx';
import { formatCount, formatDate, formatLoss } from '../../lib/format.ts';
import { StatusBadge } from '../train/RunControls.tsx';
import { CompareCard } from './CompareCard.tsx';
import { RunDetailCard } from './RunDetailCard.tsx';

export function RunsView() {
  const env = useEnv();
  const list = useApp((s) => s.runs.list);
  const selected = useApp(useShallow((s) => s.runs.selected));
  const [openId, setOpenId] = useState<string | null>(null);
  const runs = list.data ?? [];
  const open = runs.find((r) => r.id === openId) ?? null;

  const columns: Column<RunSummary>[] = [
    {
      key: 'compare',
      header: 'Compare',
      width: '84px',
      render: (r) => (
        <input type="checkbox" className="row-check" checked={selected.includes(r.id)} aria-label={`Compare ${r.title}`} onChange={() => void toggleCompare(env, r.id)} />
      ),
    },
    {
      key: 'title',
      header: 'Run',
      width: 'minmax(200px, 3fr)',
      render: (r) => (
        <span className="cell-stack">
          <button type="button" className="link-button" onClick={() => setOpenId(r.id)} aria-pressed={openId === r.id}>
            {r.title}
          </button>
          <span className="cell-sub mono">{r.id}</span>
        </span>
      ),
      title: (r) => r.id,
    },
    { key: 'status', header: 'Status', width: '104px', render: (r) => <StatusBadge status={r.status} /> },
    { key: 'steps', header: 'Steps', width: '100px', align: 'end', render: (r) => <span className="num">{`${formatCount(r.step)} / ${formatCount(r.nSteps)}`}</span> },
    { key: 'loss', header: 'Loss', width: '80px', align: 'end', render: (r) => <span className="num">{formatLoss(r.lastLoss)}</span> },
    { key: 'eval', header: 'Eval', width: '80px', align: 'end', render: (r) => <span className="num">{formatLoss(r.lastEvalLoss)}</span> },
    { key: 'speed', header: 'Tokens / s', width: '96px', align: 'end', render: (r) => <RunSpeed run={r} /> },
    { key: 'created', header: 'Started', width: '160px', render: (r) => formatDate(r.createdAt) },
  ];

  return (
    <div className="view">
      <PageHeader
        title="Runs"
        subtitle="Every run on this machine. Tick runs to compare their curves and settings."
        actions={
          <button type="button" className="btn" onClick={() => void loadRuns(env)} disabled={list.status === 'loading'}>
            <Icon name="refresh" /> Refresh
          </button>
        }
      />
      {list.status === 'error' && <ErrorNotice error={list.error!} title="The run list could not be read" action={<button className="btn" onClick={() => void loadRuns(env)}>Try again</button>} />}
      {list.status === 'loading' && !list.data && <Loading label="Reading the run registry…" />}
      {list.data && runs.length === 0 && (
        <Card>
          <EmptyState title="No runs yet" icon="runs">
            Runs you start appear here with their curves, settings and adapters, and stay after a restart.
          </EmptyState>
        </Card>
      )}
      {runs.length > 0 && (
        <Card title={`History (${runs.length})`}>
          <VirtualTable rows={runs} columns={columns} rowKey={(r) => r.id} label="Runs" rowHeight={46} maxHeight={320} rowClass={(r) => (r.id === openId ? 'selected' : undefined)} />
        </Card>
      )}
      <div className="grid-runs">
        {open && <RunDetailCard run={open} onClose={() => setOpenId(null)} />}
        {selected.length > 0 && <CompareCard />}
      </div>
    </div>
  );
}

/** Real tokens per second over the run, with how full its rows were on hover. */
function RunSpeed({ run }: { run: RunSummary }) {
  if (run.tokensPerS == null) return <span className="num muted">–</span>;
  const fill = run.rowFill == null ? undefined : `rows ${Math.round(run.rowFill * 100)}% full (padding is not counted)`;
  return (
    <span className="num" title={fill}>
      {formatCount(run.tokensPerS)}
    </span>
  );
}
