/** A dead engine host or a failed run: the reason, and "resume from step N" when a checkpoint exists. */
import { resumeRun } from '../../actions/run.ts';
import { useApp, useEnv } from '../../app/context.tsx';
import { Icon } from '../../components/icons.tsx';
import { formatCount } from '../../lib/format.ts';

export function CrashPanel() {
  const env = useEnv();
  const summary = useApp((s) => s.run.summary);
  const hostExit = useApp((s) => s.run.hostExit);
  const busy = useApp((s) => s.run.action.status === 'loading');
  if (!summary) return null;
  const crashed = hostExit != null && (hostExit.runId == null || hostExit.runId === summary.id);
  const bad = summary.status === 'interrupted' || summary.status === 'failed';
  if (!crashed && !bad) return null;
  const title = crashed || summary.status === 'interrupted' ? 'The engine host stopped' : 'The run failed';
  const reason = crashed ? hostExit!.reason : summary.error?.message ?? 'it ended before finishing (the host died or the machine restarted)';
  const detail = crashed ? hostExit!.error.message : summary.error && summary.error.message !== reason ? summary.error.message : null;
  const step = summary.resumableStep;
  return (
    <div className="notice notice-error crash" role="alert" data-testid="crash-panel">
      <Icon name="alert" className="notice-icon" />
      <div className="notice-body">
        <p className="notice-title">{title}</p>
        <p className="notice-text">{reason}</p>
        {detail && <p className="notice-text muted">{detail}</p>}
        <div className="notice-actions">
          {step != null ? (
            <button type="button" className="btn btn-primary" onClick={() => void resumeRun(env, summary.id)} disabled={busy}>
              <Icon name="play" /> Resume from step {formatCount(step)}
            </button>
          ) : (
            <span className="muted">No checkpoint was written, so it cannot be resumed: start it again from Settings.</span>
          )}
        </div>
      </div>
    </div>
  );
}
