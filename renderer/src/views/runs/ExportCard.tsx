/**
 * A finished run's adapter, exported in one action: the GGUF LoRA (llama.cpp, Ollama's ADAPTER),
 * PEFT for transformers, a merged GGUF re-quantized, an Ollama Modelfile, an Axolotl recipe.
 * Each is written into the run's folder (exports/…); the result lists its files and the commands
 * that use it, and in the desktop app shows them in the file manager.
 */
import { useState } from 'react';
import { MERGE_TYPES, type ExportFormat, type ExportProgress, type ExportResult, type MergeType } from '../../../../electron/common/export.ts';
import { toPlain, type PlainError } from '../../../../electron/common/errors.ts';
import { exportRun } from '../../actions/exports.ts';
import { useEnv } from '../../app/context.tsx';
import { CopyButton, SelectField } from '../../components/fields.tsx';
import { Card } from '../../components/layout.tsx';
import { ErrorNotice, Loading, Notice } from '../../components/status.tsx';
import { formatBytes, formatCount } from '../../lib/format.ts';

const FORMATS: ReadonlyArray<{ value: ExportFormat; label: string; hint: string }> = [
  { value: 'gguf', label: 'GGUF LoRA', hint: 'llama.cpp (--lora), LM Studio, Ollama (ADAPTER)' },
  { value: 'peft', label: 'PEFT', hint: 'Hugging Face transformers + peft: adapter_model.safetensors' },
  { value: 'merged', label: 'Merged GGUF', hint: 'base + adapter in one model, for tools without adapters' },
  { value: 'ollama', label: 'Ollama', hint: 'a Modelfile and the ollama create command' },
  { value: 'axolotl', label: 'Axolotl', hint: 'the dataset as rendered and a matching recipe, for bigger trainers' },
];

const TYPE_OPTIONS: ReadonlyArray<{ value: MergeType | 'base'; label: string }> = [
  { value: 'base', label: "The base's own types" },
  ...MERGE_TYPES.map((t) => ({ value: t, label: t.toUpperCase() })),
];

type State = { status: 'idle' } | { status: 'running'; progress: ExportProgress | null } | { status: 'done'; result: ExportResult } | { status: 'error'; error: PlainError };

export function ExportCard({ runId }: { runId: string }) {
  const env = useEnv();
  const [format, setFormat] = useState<ExportFormat>('gguf');
  const [type, setType] = useState<MergeType | 'base'>('base');
  const [state, setState] = useState<State>({ status: 'idle' });
  const running = state.status === 'running';
  const start = () => {
    setState({ status: 'running', progress: null });
    const request = format === 'merged' && type !== 'base' ? { format, type } : { format };
    exportRun(env, runId, request, (progress) => setState({ status: 'running', progress })).then(
      (result) => setState({ status: 'done', result }),
      (e) => setState({ status: 'error', error: toPlain(e) }),
    );
  };
  return (
    <Card title="Export" className="card-export">
      <fieldset className="export-formats" disabled={running}>
        <legend className="field-label">Format</legend>
        {FORMATS.map((f) => (
          <label key={f.value} className="radio-row">
            <input type="radio" name={`export-format-${runId}`} value={f.value} checked={format === f.value} onChange={() => setFormat(f.value)} />
            <span>
              <strong>{f.label}</strong> <span className="muted small">{f.hint}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {format === 'merged' && <SelectField<MergeType | 'base'> label="Merged tensors stored as" value={type} options={TYPE_OPTIONS} onChange={setType} disabled={running} />}
      <div className="row-gap">
        <button type="button" className="btn btn-primary" onClick={start} disabled={running} data-testid="export-start">
          Export {FORMATS.find((f) => f.value === format)!.label}
        </button>
      </div>
      {state.status === 'running' && (
        <div aria-live="polite">
          <Loading label={state.progress ? `${state.progress.stage}: ${formatCount(state.progress.done)} of ${formatCount(state.progress.total)}${state.progress.item ? ` (${state.progress.item})` : ''}` : 'Exporting…'} />
          {state.progress && state.progress.total > 0 && (
            <div className="progress" role="progressbar" aria-label="Export progress" aria-valuemin={0} aria-valuemax={state.progress.total} aria-valuenow={state.progress.done}>
              <span className="progress-fill" style={{ width: `${(100 * state.progress.done) / state.progress.total}%` }} />
            </div>
          )}
        </div>
      )}
      {state.status === 'error' && <ErrorNotice error={state.error} title="The export failed; nothing was written" />}
      {state.status === 'done' && <ExportResultView result={state.result} />}
    </Card>
  );
}

function ExportResultView({ result }: { result: ExportResult }) {
  const env = useEnv();
  const [error, setError] = useState<PlainError | null>(null);
  return (
    <div className="export-result" data-testid="export-result">
      <Notice kind="success" title={`Written to ${result.out}`}>
        <ul className="file-list">
          {result.files.map((f) => (
            <li key={f.path}>
              <span className="mono path-text">{f.path}</span> <span className="muted small">{formatBytes(f.bytes)} · {f.role}</span> <CopyButton text={f.path} />
            </li>
          ))}
        </ul>
        {env.shell && (
          <button type="button" className="btn btn-small" onClick={() => env.shell!.showItem(result.files[0]?.path ?? result.out).then(() => setError(null), (e) => setError(toPlain(e)))}>
            Show in folder
          </button>
        )}
      </Notice>
      {result.commands.length > 0 && (
        <div className="stack-tight">
          <span className="field-label">Use it</span>
          {result.commands.map((c) => (
            <div key={c} className="command-row">
              <code className="mono">{c}</code> <CopyButton text={c} label="Copy command" />
            </div>
          ))}
        </div>
      )}
      {result.notes.map((n) => (
        <Notice key={n} kind="info" title="Note">
          {n}
        </Notice>
      ))}
      {error && <ErrorNotice error={error} title="The folder could not be shown" />}
    </div>
  );
}
