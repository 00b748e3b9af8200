/** Pause, resume, stop and cancel (stop and discard, after a confirmation), and the run's status badge. */
import { useState } from 'react';
import type { RunStatus, RunSummary } from '../../../../electron/common/runs.ts';
import { cancelRun, pauseRun, resumeRun, stopRun } from '../../actions/run.ts';
import { useApp, useEnv } from '../../app/context.tsx';
import { Icon } from '../../components/icons.tsx';
import { Badge } from '../../components/layout.tsx';
import { isActive } from '../../store/selectors.ts';

const TONE: Record<RunStatus, 'ok' | 'warn' | 'bad' | 'info' | 'neutral' | 'accent'> = {
  starting: 'info',
  running: 'accent',
  pausing: 'info',
  paused: 'warn',
  stopped: 'neutral',
  finished: 'ok',
  failed: 'bad',
  interrupted: 'bad',
};

export function StatusBadge({ status }: { status: RunStatus }) {
  return (
    <Badge tone={TONE[status]}>
      <span data-testid="run-status">{status}</span>
    </Badge>
  );
}

export function RunControls({ run }: { run: RunSummary }) {
  const env = useEnv();
  const busy = useApp((s) => s.run.action.status === 'loading');
  const [confirm, setConfirm] = useState(false);
  const active = isActive(run.status);
  // an interrupted or failed run offers its resume in the crash panel, with the step
  const resumable = (run.status === 'paused' || run.status === 'stopped') && run.resumableStep != null;
  if (confirm) {
    return (
      <div className="confirm" role="group" aria-label="Confirm cancel">
        <span>Discard this run and its checkpoints?</span>
        <button type="button" className="btn btn-danger" onClick={() => void cancelRun(env, run.id).then(() => setConfirm(false))} disabled={busy}>
          Discard run
        </button>
        <button type="button" className="btn" onClick={() => setConfirm(false)} autoFocus>
          Keep it
        </button>
      </div>
    );
  }
  return (
    <div className="row-gap">
      {active && (
        <button type="button" className="btn" onClick={() => void pauseRun(env, run.id)} disabled={busy || run.status !== 'running'}>
          <Icon name="pause" /> Pause
        </button>
      )}
      {resumable && (
        <button type="button" className="btn btn-primary" onClick={() => void resumeRun(env, run.id)} disabled={busy}>
          <Icon name="play" /> Resume
        </button>
      )}
      {active && (
        <button type="button" className="btn" onClick={() => void stopRun(env, run.id)} disabled={busy || run.status === 'pausing'} data-testid="stop-run">
          <Icon name="stop" /> Stop
        </button>
      )}
      {run.status !== 'finished' && (
        <button type="button" className="btn btn-ghost-danger" onClick={() => setConfirm(true)} disabled={busy}>
          <Icon name="x" /> Cancel
        </button>
      )}
    </div>
  );
}
