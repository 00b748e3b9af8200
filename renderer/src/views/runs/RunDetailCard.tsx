/**
 * One run: its adapter (a llama.cpp LoRA GGUF, the export available now), its folder, and what
 * can be done with it: follow it in Train, resume, continue for more steps, delete.
 */
import { useEffect, useState } from 'react';
import { toPlain } from '../../../../electron/common/errors.ts';
import type { RunSummary } from '../../../../electron/common/runs.ts';
import { followRun, resumeRun } from '../../actions/run.ts';
import { continueRun, deleteRun, loadRunCompare } from '../../actions/runs.ts';
import { useApp, useEnv } from '../../app/context.tsx';
import { go } from '../../app/route.ts';
import { CopyButton, NumberField } from '../../components/fields.tsx';
import { Card } from '../../components/layout.tsx';
import { ErrorNotice } from '../../components/status.tsx';
import { formatCount, formatDate, formatLoss } from '../../lib/format.ts';
import { isActive } from '../../store/selectors.ts';
import { StatusBadge } from '../train/RunControls.tsx';
import { ExportCard } from './ExportCard.tsx';
import { TryItCard } from './TryItCard.tsx';

export function RunDetailCard({ run, onClose }: { run: RunSummary; onClose(): void }) {
  const env = useEnv();
  const detail = useApp((s) => s.runs.details[run.id]);
  const action = useApp((s) => s.run.action);
  const [confirm, setConfirm] = useState(false);
  const [more, setMore] = useState(100);
  const [folderError, setFolderError] = useState<unknown>(null);
  useEffect(() => {
    if (!detail) void loadRunCompare(env, run.id);
  }, [detail, env, run.id]);
  const active = isActive(run.status);
  const folder = detail?.data?.folder ?? null;
  return (
    <Card title={run.title} className="card-run" actions={<button type="button" className="btn btn-small btn-ghost" onClick={onClose} aria-label="Close run details">Close</button>}>
      <dl className="facts" data-testid="run-detail">
        <dt>Status</dt>
        <dd>
          <StatusBadge status={run.status} />
          {run.resumableStep != null && !active && run.status !== 'finished' && <span className="muted"> · resumable from step {formatCount(run.resumableStep)}</span>}
        </dd>
        <dt>Steps</dt>
        <dd>
          {formatCount(run.step)} / {formatCount(run.nSteps)} in {run.segments} segment(s)
        </dd>
        <dt>Loss</dt>
        <dd>
          {formatLoss(run.lastLoss)} (eval {formatLoss(run.lastEvalLoss)})
        </dd>
        <dt>Speed</dt>
        <dd data-testid="run-speed">
          {run.tokensPerS == null ? '–' : `${formatCount(run.tokensPerS)} real tokens/s`}
          {run.rowFill != null && <span className="muted"> · rows {Math.round(run.rowFill * 100)}% full</span>}
        </dd>
        <dt>Started</dt>
        <dd>{formatDate(run.createdAt)}</dd>
        <dt>Model</dt>
        <dd className="mono path-text">{run.model}</dd>
        <dt>Adapter</dt>
        <dd data-testid="run-adapter">
          {run.adapter ? (
            <>
              <span className="mono path-text">{run.adapter}</span> <CopyButton text={run.adapter} />
              <p className="muted small">GGUF LoRA for llama.cpp (<code>--lora</code>); other formats below.</p>
            </>
          ) : (
            <span className="muted">none yet</span>
          )}
        </dd>
        <dt>Folder</dt>
        <dd>
          {folder ? (
            <>
              <span className="mono path-text">{folder}</span> <CopyButton text={folder} label="Copy folder path" />
              {env.shell && (
                <button type="button" className="btn btn-small" onClick={() => env.shell!.showRunFolder(run.id).then(() => setFolderError(null), setFolderError)}>
                  Show in folder
                </button>
              )}
            </>
          ) : (
            '–'
          )}
        </dd>
      </dl>
      {folderError != null && <ErrorNotice error={toPlain(folderError)} title="The folder could not be opened" />}
      {run.adapter && !active && <TryItCard runId={run.id} />}
      {run.adapter && !active && <ExportCard runId={run.id} />}
      {run.error && <ErrorNotice error={run.error} title="The run ended with an error" />}
      {action.status === 'error' && <ErrorNotice error={action.error!} title="That did not work" />}
      <div className="row-gap">
        <button
          type="button"
          className="btn"
          onClick={() => {
            void followRun(env, run);
            go('train');
          }}
        >
          Open in Train
        </button>
        {!active && run.status !== 'finished' && run.resumableStep != null && (
          <button type="button" className="btn" onClick={() => void resumeRun(env, run.id).then((s) => s && go('train'))}>
            Resume from step {formatCount(run.resumableStep)}
          </button>
        )}
      </div>
      {(run.status === 'finished' || run.status === 'stopped') && (
        <form
          className="continue-form"
          onSubmit={(e) => {
            e.preventDefault();
            void continueRun(env, run.id, { steps: more }).then((ok) => ok && go('train'));
          }}
        >
          <NumberField label="Train further (steps)" value={more} onChange={setMore} integer min={1} />
          <button type="submit" className="btn">
            Continue
          </button>
        </form>
      )}
      <div className="danger-zone">
        {confirm ? (
          <div className="confirm" role="group" aria-label="Confirm delete">
            <span>Delete this run's folder (adapter and checkpoints)? Models and data are not touched.</span>
            <button type="button" className="btn btn-danger" onClick={() => void deleteRun(env, run.id).then((ok) => ok && onClose())}>
              Delete run
            </button>
            <button type="button" className="btn" onClick={() => setConfirm(false)} autoFocus>
              Keep it
            </button>
          </div>
        ) : (
          <button type="button" className="btn btn-ghost-danger" onClick={() => setConfirm(true)} disabled={active}>
            Delete run…
          </button>
        )}
      </div>
    </Card>
  );
}
