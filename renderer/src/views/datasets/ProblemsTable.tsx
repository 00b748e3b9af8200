/** Every problem by file, line and field, virtualised (a broken export can have thousands), filterable by severity. */
import { useMemo, useState } from 'react';
import type { DatasetReport, Problem } from '../../../../electron/common/dataset-report.ts';
import { Badge } from '../../components/layout.tsx';
import { Notice } from '../../components/status.tsx';
import { VirtualTable, type Column } from '../../components/virtual-table.tsx';
import { baseName, formatCount } from '../../lib/format.ts';

const COLUMNS: Column<Problem>[] = [
  { key: 'file', header: 'File', width: 'minmax(140px, 1.4fr)', render: (p) => baseName(p.file), title: (p) => p.file },
  { key: 'line', header: 'Line', width: '70px', align: 'end', render: (p) => <span className="num">{p.line ?? '–'}</span> },
  { key: 'field', header: 'Field', width: 'minmax(100px, 1fr)', render: (p) => <code>{p.field || '(record)'}</code> },
  { key: 'severity', header: 'Severity', width: '96px', render: (p) => <Badge tone={p.severity === 'error' ? 'bad' : 'warn'}>{p.severity}</Badge> },
  { key: 'code', header: 'Code', width: '130px', render: (p) => <code>{p.code}</code> },
  { key: 'message', header: 'Problem', width: 'minmax(240px, 4fr)', render: (p) => p.message, title: (p) => p.message },
];

export function ProblemsTable({ report }: { report: DatasetReport }) {
  const [severity, setSeverity] = useState<'all' | 'error' | 'warning'>('all');
  const rows = useMemo(() => (severity === 'all' ? report.problems : report.problems.filter((p) => p.severity === severity)), [report.problems, severity]);
  if (report.problems.length === 0) return <p className="muted">No problems: every record is valid.</p>;
  const counts = Object.entries(report.problemCounts).sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0));
  return (
    <div className="stack-tight">
      <div className="toolbar">
        <div className="chips" aria-label="Problems by code">
          {counts.map(([code, n]) => (
            <span key={code} className="chip">
              <code>{code}</code> <span className="num">{formatCount(n)}</span>
            </span>
          ))}
        </div>
        <div className="segmented" role="radiogroup" aria-label="Show problems">
          {(['all', 'error', 'warning'] as const).map((s) => (
            <button key={s} type="button" role="radio" aria-checked={severity === s} className={severity === s ? 'on' : ''} onClick={() => setSeverity(s)}>
              {s === 'all' ? 'All' : s === 'error' ? 'Errors' : 'Warnings'}
            </button>
          ))}
        </div>
      </div>
      <VirtualTable rows={rows} columns={COLUMNS} rowKey={(p, i) => `${p.file}:${p.line}:${p.field}:${p.code}:${i}`} label="Problems" maxHeight={360} rowClass={(p) => (p.severity === 'error' ? 'row-error' : undefined)} />
      {report.problemsOmitted > 0 && (
        <Notice kind="info" title={`${formatCount(report.problemsOmitted)} more problems were found but not listed`}>
          The counts above include them.
        </Notice>
      )}
    </div>
  );
}
