/** The states every view shows the same way: loading, an error (with its code), empty. */
import type { ReactNode } from 'react';
import type { PlainError } from '../../../electron/common/errors.ts';
import { Icon } from './icons.tsx';

export function Loading({ label }: { label: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}

/** What went wrong, from the service's own message; the code is shown for reports and searches. */
export function ErrorNotice({ error, title, action }: { error: PlainError; title?: string; action?: ReactNode }) {
  const problems = problemList(error.detail);
  return (
    <div className="notice notice-error" role="alert">
      <Icon name="alert" className="notice-icon" />
      <div className="notice-body">
        <p className="notice-title">
          {title ?? 'Something went wrong'} <code className="code-chip">{error.code}</code>
        </p>
        <p className="notice-text">{error.message}</p>
        {problems.length > 0 && (
          <ul className="notice-list">
            {problems.slice(0, 8).map((p, i) => (
              <li key={i}>{p}</li>
            ))}
            {problems.length > 8 && <li>…and {problems.length - 8} more</li>}
          </ul>
        )}
        {action && <div className="notice-actions">{action}</div>}
      </div>
    </div>
  );
}

/** `bad_dataset` errors carry the problems by file and line in `detail.problems`. */
function problemList(detail: unknown): string[] {
  const problems = (detail as { problems?: unknown } | null | undefined)?.problems;
  if (!Array.isArray(problems)) return [];
  return problems.map((p: { file?: string; line?: number | null; message?: string }) =>
    `${p.file ?? ''}${p.line != null ? `:${p.line}` : ''} ${p.message ?? ''}`.trim(),
  );
}

/** The engine host runs one job at a time: a `busy` answer is a wait, not a failure. */
export function BusyOrError({ error, title, waiting }: { error: PlainError; title: string; waiting: string }) {
  if (error.code === 'busy') {
    return (
      <Notice kind="info" title="The engine is busy training">
        {waiting}
      </Notice>
    );
  }
  return <ErrorNotice error={error} title={title} />;
}

export function Notice({ kind, title, children }: { kind: 'warning' | 'info' | 'success'; title: string; children?: ReactNode }) {
  return (
    <div className={`notice notice-${kind}`} role={kind === 'warning' ? 'alert' : 'status'}>
      <Icon name={kind === 'success' ? 'check' : kind === 'warning' ? 'alert' : 'info'} className="notice-icon" />
      <div className="notice-body">
        <p className="notice-title">{title}</p>
        {children && <div className="notice-text">{children}</div>}
      </div>
    </div>
  );
}

export function EmptyState({ title, children, action, icon = 'info' }: { title: string; children?: ReactNode; action?: ReactNode; icon?: Parameters<typeof Icon>[0]['name'] }) {
  return (
    <div className="state state-empty">
      <span className="state-icon" aria-hidden="true">
        <Icon name={icon} size={28} />
      </span>
      <p className="state-title">{title}</p>
      {children && <div className="state-text">{children}</div>}
      {action && <div className="state-action">{action}</div>}
    </div>
  );
}
