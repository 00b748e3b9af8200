/**
 * The data through the chosen model's template and tokenizer: token statistics, the length
 * histogram, what the context truncates or drops under the chosen policy, and one example with
 * the tokens that carry loss highlighted.
 */
import type { InspectResult, LengthPolicy, Preview } from '../../../../electron/common/engine-api.ts';
import { inspectDataset } from '../../actions/datasets.ts';
import { useApp, useEnv } from '../../app/context.tsx';
import { go } from '../../app/route.ts';
import { SelectField } from '../../components/fields.tsx';
import { LengthHistogram } from '../../components/histogram.tsx';
import { Badge, Card, Stat } from '../../components/layout.tsx';
import { VirtualTable, type Column } from '../../components/virtual-table.tsx';
import { BusyOrError, EmptyState, Loading, Notice } from '../../components/status.tsx';
import { baseName, formatCount } from '../../lib/format.ts';
import { selectEffectiveConfig, selectSelectedModel } from '../../store/selectors.ts';

type Affected = InspectResult['tokens']['affected'][number];

const AFFECTED_COLUMNS: Column<Affected>[] = [
  { key: 'file', header: 'File', width: 'minmax(140px, 2fr)', render: (a) => baseName(a.file), title: (a) => a.file },
  { key: 'line', header: 'Line', width: '72px', align: 'end', render: (a) => <span className="num">{a.line}</span> },
  { key: 'outcome', header: 'Outcome', width: '100px', render: (a) => <Badge tone={a.outcome === 'dropped' ? 'bad' : 'warn'}>{a.outcome}</Badge> },
  { key: 'tokens', header: 'Tokens', width: '90px', align: 'end', render: (a) => <span className="num">{formatCount(a.tokens)}</span> },
  {
    key: 'lost',
    header: 'Loss tokens lost',
    width: 'minmax(130px, 1fr)',
    align: 'end',
    render: (a) => (
      <span className="num">
        {formatCount(a.lostLossTokens)} of {formatCount(a.lossTokens)}
      </span>
    ),
  },
];

const POLICIES: Array<{ value: LengthPolicy; label: string }> = [
  { value: 'right', label: 'Keep the start (cut the end)' },
  { value: 'left', label: 'Keep the end (cut the start)' },
  { value: 'drop', label: 'Drop the example' },
];

export function TokensCard() {
  const env = useEnv();
  const model = useApp(selectSelectedModel);
  const inspect = useApp((s) => s.datasets.inspect);
  const hasData = useApp((s) => s.datasets.report.status === 'ready');
  const policy = useApp((s) => selectEffectiveConfig(s).truncate);
  const ctx = useApp((s) => selectEffectiveConfig(s).ctx);
  const setSetting = useApp((s) => s.setSetting);
  if (!hasData) return null;
  const title = model ? `Tokens with ${model.displayName}` : 'Tokens';
  return (
    <Card
      title={title}
      actions={
        model && (
          <button type="button" className="btn btn-small" onClick={() => void inspectDataset(env)} disabled={inspect.status === 'loading'}>
            Re-inspect
          </button>
        )
      }
    >
      {!model && (
        <EmptyState title="Choose a model to count tokens" icon="models" action={<button className="btn" onClick={() => go('models')}>Go to Models</button>}>
          Token counts, truncation and the loss mask depend on the model's tokenizer and chat template.
        </EmptyState>
      )}
      {model && inspect.status === 'loading' && !inspect.data && <Loading label="Rendering every example through the model's template…" />}
      {model && inspect.status === 'error' && (
        <BusyOrError error={inspect.error!} title="The data could not be rendered with this model" waiting="The data is rendered through the model when the current run ends (one job at a time)." />
      )}
      {model && inspect.data && (
        <div className={inspect.status === 'loading' ? 'stale' : ''} aria-busy={inspect.status === 'loading'}>
          <TokenDetails result={inspect.data} policy={policy ?? 'right'} ctx={ctx ?? inspect.data.tokens.ctx} onPolicy={(v) => setSetting('truncate', v)} />
        </div>
      )}
    </Card>
  );
}

function TokenDetails({ result, policy, ctx, onPolicy }: { result: InspectResult; policy: LengthPolicy; ctx: number; onPolicy(p: LengthPolicy): void }) {
  const t = result.tokens;
  return (
    <div className="stack">
      <dl className="stats stats-6" data-testid="token-stats">
        <Stat label="Examples" value={formatCount(t.examples)} />
        <Stat label="Sequences" value={formatCount(t.sequences)} hint={t.chunked ? `${formatCount(t.chunked)} text examples windowed` : undefined} />
        <Stat label="Tokens" value={formatCount(t.tokens)} />
        <Stat label="Loss tokens" value={formatCount(t.lossTokens)} hint={t.tokens ? `${Math.round((t.lossTokens / t.tokens) * 100)}% of tokens` : undefined} />
        <Stat label="Median length" value={formatCount(t.lengths.median)} hint={`max ${formatCount(t.lengths.max)}`} />
        <Stat label={`Over ${formatCount(t.ctx)}`} value={formatCount(t.overLength)} tone={t.overLength ? 'warn' : 'ok'} />
      </dl>
      <div className="grid-2 grid-tokens">
        <LengthHistogram stats={t} />
        <div className="stack-tight">
          {t.overLength > 0 ? (
            <Notice kind="warning" title={`${formatCount(t.overLength)} example(s) are longer than the context of ${formatCount(t.ctx)} tokens`}>
              With “{POLICIES.find((p) => p.value === t.policy)?.label ?? t.policy}”: {formatCount(t.truncated)} truncated, {formatCount(t.dropped)} dropped. Raise the context in Settings, or choose what happens to them:
            </Notice>
          ) : (
            <Notice kind="success" title="Every example fits the context">
              The longest is {formatCount(t.lengths.max)} tokens; the context is {formatCount(ctx)}.
            </Notice>
          )}
          <SelectField label="Examples longer than the context" value={policy} options={POLICIES} onChange={onPolicy} />
          <p className="muted small">
            Template: {result.template.source === 'model' ? "the model's own" : result.template.source}
            {result.template.supportsSystemRole ? ', system role' : ''}
            {result.template.supportsTools ? ', tools' : ''}.
          </p>
          {t.failed.length > 0 && (
            <div>
              <p className="field-label">Examples the template could not render ({t.failed.length})</p>
              <ul className="line-list">
                {t.failed.slice(0, 20).map((f, i) => (
                  <li key={i}>
                    <span className="mono">
                      {baseName(f.file)}:{f.line}
                    </span>{' '}
                    <code>{f.code}</code> {f.message}
                  </li>
                ))}
              </ul>
            </div>
          )}
        </div>
      </div>
      {t.affected.length > 0 && (
        <div className="stack-tight">
          <p className="field-label">Examples the context cuts or drops ({formatCount(t.affected.length)})</p>
          <VirtualTable rows={t.affected} columns={AFFECTED_COLUMNS} rowKey={(a) => `${a.file}:${a.line}`} label="Examples the context cuts or drops" maxHeight={252} />
        </div>
      )}
      {result.preview && <PreviewBlock preview={result.preview} />}
    </div>
  );
}

/** The rendered text, loss-carrying spans marked (screen readers hear them as highlighted). */
function PreviewBlock({ preview }: { preview: Preview }) {
  const parts: Array<{ text: string; loss: boolean }> = [];
  let at = 0;
  for (const [b, e] of [...preview.lossSpans].sort((x, y) => x[0] - y[0])) {
    if (b > at) parts.push({ text: preview.text.slice(at, b), loss: false });
    parts.push({ text: preview.text.slice(Math.max(b, at), e), loss: true });
    at = Math.max(at, e);
  }
  if (at < preview.text.length) parts.push({ text: preview.text.slice(at), loss: false });
  return (
    <div className="preview" data-testid="preview">
      <div className="preview-head">
        <p className="field-label">
          One example as the model sees it: <span className="mono">{baseName(preview.source.file)}:{preview.source.line}</span>
        </p>
        <p className="muted small">
          {formatCount(preview.tokens)} tokens, {formatCount(preview.lossTokens)} carry loss <mark className="legend-mark">highlighted</mark>
        </p>
      </div>
      <pre className="preview-text">
        {parts.map((p, i) => (p.loss ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
      </pre>
    </div>
  );
}
