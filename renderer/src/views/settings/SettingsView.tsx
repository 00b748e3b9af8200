/**
 * Settings: the LoRA, the optimizer, the data shape and the hardware, starting from the
 * engine's defaults or a preset. The memory plan beside them re-runs as they change (debounced)
 * and says before anything trains whether the run fits and where its ops would run.
 */
import type { TrainConfig } from '../../../../electron/common/engine-api.ts';
import type { BackendInfo } from '../../../../electron/common/runs.ts';
import { selectInspectKey } from '../../actions/datasets.ts';
import { startRun } from '../../actions/run.ts';
import { useApp, useEnv } from '../../app/context.tsx';
import { go } from '../../app/route.ts';
import { Checkbox, NumberField, SelectField } from '../../components/fields.tsx';
import { Icon } from '../../components/icons.tsx';
import { Card, PageHeader } from '../../components/layout.tsx';
import { ErrorNotice, Loading, Notice } from '../../components/status.tsx';
import { baseName, formatPercent } from '../../lib/format.ts';
import { formatTargets, parseTargets, PRESET_NAMES, PRESETS, TARGET_MODULES, type TargetModule } from '../../lib/presets.ts';
import { selectAccumulation, selectEffectiveConfig, selectModelTargets, selectRunSettings, selectSelectedModel } from '../../store/selectors.ts';
import type { EditableConfig } from '../../store/slices/settings.ts';
import { useShallow } from 'zustand/react/shallow';
import { PlanCard } from './PlanCard.tsx';

const GIB = 1024 ** 3;

const TARGET_LABEL: Record<TargetModule, string> = {
  attn_q: 'Query (attn_q)',
  attn_k: 'Key (attn_k)',
  attn_v: 'Value (attn_v)',
  attn_output: 'Attention out (attn_output)',
  ffn_gate: 'FFN gate (ffn_gate)',
  ffn_up: 'FFN up (ffn_up)',
  ffn_down: 'FFN down (ffn_down)',
  output: 'Output head (output)',
};

/** The backend choices this machine has (`auto` first): one per `backend` setting its devices answer to. */
export function backendOptions(present: BackendInfo[]): Array<{ value: TrainConfig['backend']; label: string }> {
  const out: Array<{ value: TrainConfig['backend']; label: string }> = [{ value: 'auto', label: `Automatic (${present[0]?.name ?? 'CPU'})` }];
  for (const request of ['cuda', 'metal'] as const) {
    const devices = present.filter((b) => b.request === request);
    if (devices.length) out.push({ value: request, label: `${request === 'cuda' ? 'CUDA' : 'Metal'} (${devices.map((d) => d.name).join(', ')})` });
  }
  out.push({ value: 'cpu', label: 'CPU only' });
  return out;
}

export function SettingsView() {
  const env = useEnv();
  const info = useApp((s) => s.settings.info);
  const config = useApp(selectEffectiveConfig);
  const preset = useApp((s) => s.settings.preset);
  const model = useApp(selectSelectedModel);
  const sources = useApp((s) => s.datasets.sources);
  const runnable = useApp((s) => selectRunSettings(s) != null);
  const accumulation = useApp(selectAccumulation);
  const modelTargets = useApp(useShallow((s) => selectModelTargets(s) ?? []));
  const planned = useApp((s) => s.plan.result.data != null);
  const action = useApp((s) => s.run.action);
  const invalid = useApp((s) => s.datasets.report.data?.report.records.invalid ?? 0);
  // the inspection for these very settings (its key follows ctx and the length policy)
  const tokens = useApp((s) => (s.datasets.inspectKey === selectInspectKey(s) ? s.datasets.inspect.data?.tokens ?? null : null));
  // the context proposed for the dataset's lengths (it does not depend on the context inspected at)
  const suggested = useApp((s) => s.datasets.inspect.data?.tokens.suggestedCtx ?? null);
  const { setSetting, applyPreset, resetSettings } = useApp(useShallow((s) => ({ setSetting: s.setSetting, applyPreset: s.applyPreset, resetSettings: s.resetSettings })));
  const set = <K extends keyof EditableConfig>(k: K) => (v: EditableConfig[K]) => setSetting(k, v);
  const backends = info.data?.engine.backends ?? [];
  const hasGpu = backends.some((b) => b.kind === 'gpu');
  const targets = parseTargets(config.targets ?? '');
  const byEpochs = !config.steps;
  const starting = action.status === 'loading';

  const onStart = async () => {
    const summary = await startRun(env);
    if (summary) go('train');
  };

  return (
    <div className="view">
      <PageHeader
        title="Settings"
        subtitle={
          model ? (
            <>
              Training <strong>{model.displayName}</strong> on {sources.length ? sources.map(baseName).join(', ') : 'no data yet'}
            </>
          ) : (
            'Choose a model and data first; the plan on the right follows every change.'
          )
        }
        actions={
          <>
            <button type="button" className="btn btn-ghost" onClick={resetSettings}>
              Reset to defaults
            </button>
            <button type="button" className="btn btn-primary" onClick={() => void onStart()} disabled={!runnable || starting || model?.trainable === false || invalid > 0} data-testid="start-run">
              <Icon name="play" /> {starting ? 'Starting…' : 'Start training'}
            </button>
          </>
        }
      />
      {invalid > 0 && (
        <Notice kind="warning" title={`The data has ${invalid} invalid record(s)`}>
          Training refuses data with errors. Fix or remove them in <a href="#/datasets">Datasets</a> (every problem is listed by file and line).
        </Notice>
      )}
      {tokens && tokens.dropped > 0 && (
        <Notice kind="warning" title={tokens.dropped >= tokens.examples ? `Every example would be dropped at a context of ${tokens.ctx}` : `${tokens.dropped} of ${tokens.examples} examples would be dropped at a context of ${tokens.ctx}`}>
          They are longer than the context and keep no loss token under the “{tokens.policy}” policy. Raise the context, or see which in <a href="#/datasets">Datasets</a>.
        </Notice>
      )}
      {action.status === 'error' && <ErrorNotice error={action.error!} title="The run could not start" />}
      {info.status === 'error' && <ErrorNotice error={info.error!} title="The engine's defaults could not be read" />}
      {info.status === 'loading' && !info.data && <Loading label="Asking the engine for its defaults…" />}
      <div className="grid-settings">
        <div className="stack">
          <Card title="Presets">
            <div className="presets" role="radiogroup" aria-label="Presets">
              {PRESET_NAMES.map((name) => (
                <button key={name} type="button" role="radio" aria-checked={preset === name} className={`preset ${preset === name ? 'on' : ''}`} onClick={() => applyPreset(name)}>
                  <span className="preset-name">{PRESETS[name].label}</span>
                  <span className="preset-text">{PRESETS[name].description}</span>
                </button>
              ))}
            </div>
          </Card>
          <Card title="LoRA">
            <div className="form-grid">
              <NumberField label="Rank" value={config.rank} onChange={set('rank')} integer min={1} max={1024} hint="Size of the adapter: 4–16 for most tasks." testId="field-rank" />
              <NumberField label="Alpha" value={config.alpha} onChange={set('alpha')} min={0} hint={`Scale is alpha / rank; 0 means 2 × rank (${(config.rank ?? 8) * 2}).`} />
            </div>
            <fieldset className="fieldset">
              <legend className="field-label">Target modules</legend>
              <div className="check-grid">
                {TARGET_MODULES.map((t) => {
                  const absent = planned && modelTargets.length > 0 && !modelTargets.includes(t);
                  return (
                    <Checkbox
                      key={t}
                      label={
                        <>
                          {TARGET_LABEL[t]}
                          {absent && <span className="muted"> · not in this model</span>}
                        </>
                      }
                      checked={targets.includes(t)}
                      disabled={absent}
                      onChange={(on) => {
                        const next = on ? [...targets, t] : targets.filter((x) => x !== t);
                        if (next.length) setSetting('targets', formatTargets(next));
                      }}
                    />
                  );
                })}
              </div>
            </fieldset>
          </Card>
          <Card title="Optimizer and schedule">
            <div className="form-grid">
              <NumberField label="Learning rate" value={config.lr} onChange={set('lr')} min={0} max={1} step="any" />
              <SelectField label="Schedule" value={config.schedule} options={[{ value: 'constant', label: 'Constant' }, { value: 'linear', label: 'Linear decay' }, { value: 'cosine', label: 'Cosine decay' }]} onChange={set('schedule')} />
              <NumberField label="Warm-up steps" value={config.warmup} onChange={set('warmup')} integer min={0} />
              <NumberField label="Final learning rate" value={config.lrMin} onChange={set('lrMin')} min={0} step="any" hint="Where linear and cosine decay end." />
              <NumberField label="Weight decay" value={config.weightDecay} onChange={set('weightDecay')} min={0} step="any" />
              <NumberField label="Gradient clipping" value={config.maxGradNorm} onChange={set('maxGradNorm')} min={0} step="any" hint="Largest gradient norm; 0 turns clipping off." />
            </div>
          </Card>
          <Card title="Length of training">
            <div className="segmented" role="radiogroup" aria-label="Train for">
              <button type="button" role="radio" aria-checked={!byEpochs} className={!byEpochs ? 'on' : ''} onClick={() => setSetting('steps', config.steps || 100)}>
                Steps
              </button>
              <button type="button" role="radio" aria-checked={byEpochs} className={byEpochs ? 'on' : ''} onClick={() => { setSetting('steps', 0); if (!config.epochs) setSetting('epochs', 1); }}>
                Epochs
              </button>
            </div>
            <div className="form-grid">
              {byEpochs ? (
                <NumberField label="Epochs" value={config.epochs} onChange={set('epochs')} min={0.01} step="any" hint="Passes over the training split." />
              ) : (
                <NumberField label="Optimizer steps" value={config.steps} onChange={set('steps')} integer min={1} testId="field-steps" />
              )}
              <NumberField label="Checkpoint every" value={config.checkpointEvery} onChange={set('checkpointEvery')} integer min={0} hint="Steps; 0: only when stopped and at the end." />
            </div>
          </Card>
          <Card title="Context and batching">
            <div className="form-grid">
              <NumberField
                label="Context (tokens)"
                value={config.ctx}
                onChange={set('ctx')}
                integer
                min={8}
                max={model?.contextLength ?? undefined}
                hint={
                  <>
                    {model?.contextLength ? `The model was trained on up to ${model.contextLength}. ` : ''}
                    {suggested && suggested.ctx !== config.ctx && (
                      <span data-testid="ctx-suggestion">
                        {`${suggested.ctx} holds ${formatPercent(suggested.covers, 1)} of the examples whole. `}
                        <button type="button" className="btn btn-small btn-ghost" onClick={() => setSetting('ctx', suggested.ctx)}>
                          Use {suggested.ctx}
                        </button>
                      </span>
                    )}
                  </>
                }
                testId="field-ctx"
              />
              <NumberField label="Batch (sequences per step)" value={config.batch} onChange={set('batch')} integer min={1} disabled={(config.batchTokens ?? 0) > 0} />
              <NumberField
                label="Tokens per step"
                value={config.batchTokens ?? 0}
                onChange={set('batchTokens')}
                integer
                min={0}
                hint="0: the batch's sequences a step; else as many sequences as fit in this many tokens."
              />
              <NumberField
                label="Micro-batch (rows)"
                value={config.ubatch}
                onChange={set('ubatch')}
                integer
                min={0}
                max={(config.batchTokens ?? 0) > 0 ? undefined : config.batch}
                hint={accumulation ? `up to ${accumulation} micro-batch(es) a step (packed rows need fewer)` : config.ubatch ? undefined : '0: automatic, the most rows whose plan fits (the plan says which).'}
                testId="field-ubatch"
              />
              <SelectField label="Loss on" value={config.loss} options={[{ value: 'assistant', label: 'Assistant turns' }, { value: 'all', label: 'Every token' }]} onChange={set('loss')} />
            </div>
            <Checkbox
              label="Recompute activations (less memory for long contexts, a slower step; the same gradients)"
              checked={!!config.recompute}
              onChange={(v) => setSetting('recompute', v)}
            />
            <Checkbox
              label="Pack examples into shared rows (less padding, the same loss; attention stays within each example)"
              checked={config.pack !== false}
              onChange={(v) => setSetting('pack', v)}
            />
          </Card>
          <Card title="Evaluation">
            <div className="form-grid">
              <NumberField label="Held-out share" value={config.evalSplit} onChange={set('evalSplit')} min={0} max={0.9} step={0.01} hint="0.05 keeps 5% of records for evaluation." />
              <NumberField label="Evaluate every" value={config.evalEvery} onChange={set('evalEvery')} integer min={0} hint="Steps; 0: at the end only." />
              <NumberField label="Seed" value={config.seed} onChange={set('seed')} integer min={0} />
            </div>
          </Card>
          <Card title="Hardware">
            <div className="form-grid">
              <SelectField label="Backend" value={config.backend} options={backendOptions(backends)} onChange={set('backend')} hint={backends.length ? `Present: ${backends.map((b) => b.description || b.name).join(', ')}` : undefined} />
              <SelectField
                label="GPU precision"
                value={config.gpuPrecision}
                options={[{ value: 'bf16', label: 'BF16 (tensor cores)' }, { value: 'f32', label: 'F32 (exact, slower)' }]}
                onChange={set('gpuPrecision')}
                disabled={!hasGpu || config.backend === 'cpu'}
                hint={hasGpu ? 'How frozen quantized weights are multiplied.' : 'Only with a GPU.'}
              />
              <NumberField label="CPU threads" value={config.threads} onChange={set('threads')} integer min={0} hint="0: all cores." />
              <NumberField
                label="Memory limit (GiB)"
                value={config.memoryLimit == null ? undefined : Math.round((config.memoryLimit / GIB) * 100) / 100}
                onChange={(v) => setSetting('memoryLimit', Math.round(v * GIB))}
                min={0}
                step="any"
                hint="Most training may allocate per pool; 0: its free memory."
              />
            </div>
            <Checkbox label="Time every op (profile every other step)" checked={!!config.profile} onChange={(v) => setSetting('profile', v)} />
          </Card>
          {!hasGpu && info.data && (
            <Notice kind="info" title="No GPU backend on this machine">
              Training runs on the CPU. Small models and short contexts train fine; the plan shows the memory it needs.
            </Notice>
          )}
        </div>
        <div className="sticky-col">
          <PlanCard />
        </div>
      </div>
    </div>
  );
}
