/**
 * Datasets: drop or pick files and folders; per file the detected format and record counts,
 * every problem by file and line (virtualised), the split; then the chosen model's view of
 * the data: token statistics, a length histogram, truncation and a rendered example.
 */
import { addSources, importFiles, importSources } from '../../actions/datasets.ts';
import { useApp, useEnv } from '../../app/context.tsx';
import { DropZone } from '../../components/drop-zone.tsx';
import { PathForm } from '../../components/fields.tsx';
import { Card, PageHeader, Stat } from '../../components/layout.tsx';
import { ErrorNotice, Loading } from '../../components/status.tsx';
import { formatCount, formatPercent } from '../../lib/format.ts';
import { FilesTable } from './FilesTable.tsx';
import { ProblemsTable } from './ProblemsTable.tsx';
import { TokensCard } from './TokensCard.tsx';

export function DatasetsView() {
  const env = useEnv();
  const report = useApp((s) => s.datasets.report);
  const upload = useApp((s) => s.datasets.upload);
  const sources = useApp((s) => s.datasets.sources);
  const data = report.data?.report ?? null;
  const busy = report.status === 'loading' || upload != null;

  return (
    <div className="view">
      <PageHeader
        title="Datasets"
        subtitle="What will be trained on: formats, records, problems by file and line, and how the model tokenizes it."
        actions={
          sources.length > 0 && (
            <button type="button" className="btn btn-ghost" onClick={() => void importSources(env, [])}>
              Clear all
            </button>
          )
        }
      />
      <div className="grid-2 grid-datasets">
        <div className="stack">
          <DropZone onFiles={(files) => void importFiles(env, files)} busy={busy}>
            {upload && <Loading label={`Uploading ${upload.done} of ${upload.total} file(s)…`} />}
          </DropZone>
          <PathForm label="Or add a file or folder by path" button="Add" placeholder="/data/chats.jsonl" busy={busy} onSubmit={(p) => void addSources(env, [p])} testId="dataset-path" />
        </div>
        <Card title="Summary" className="card-summary">
          {!data && report.status !== 'loading' && report.status !== 'error' && <p className="muted">No data yet: drop files on the left.</p>}
          {report.status === 'loading' && <Loading label="Reading and checking every record…" />}
          {report.status === 'error' && <ErrorNotice error={report.error!} title="The data could not be read" />}
          {data && (
            <dl className="stats stats-3" data-testid="dataset-summary">
              <Stat label="Format" value={data.format ?? '–'} />
              <Stat label="Records" value={formatCount(data.records.total)} />
              <Stat label="Valid" value={formatCount(data.records.valid)} tone={data.records.valid ? 'ok' : 'bad'} />
              <Stat label="Skipped" value={formatCount(data.records.invalid)} tone={data.records.invalid ? 'warn' : undefined} hint="records with errors" />
              <Stat label="Duplicates" value={formatCount(data.records.duplicates)} hint={data.duplicatesDropped ? 'dropped' : 'kept'} />
              <Stat
                label="Train / eval"
                value={`${formatCount(data.split.train)} / ${formatCount(data.split.eval)}`}
                hint={data.split.rule === 'eval-file' ? 'eval from its own files' : `${formatPercent(data.split.ratio)} held out (seed ${data.split.seed})`}
              />
            </dl>
          )}
        </Card>
      </div>
      {data && (
        <>
          <Card title={`Files (${data.files.length})`}>
            <FilesTable files={data.files} sources={sources} skipped={data.skipped} />
          </Card>
          <Card title={`Problems (${formatCount(data.problems.length + data.problemsOmitted)})`}>
            <ProblemsTable report={data} />
          </Card>
        </>
      )}
      <TokensCard />
    </div>
  );
}
