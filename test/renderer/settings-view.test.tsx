// Settings view: defaults from the engine, presets, edits that re-plan, the plan's states, the
// targets the model has, the backends present, and starting a run.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { importSources } from '../../renderer/src/actions/datasets.ts';
import { PLAN_DEBOUNCE_MS, planNow, startPlanScheduler } from '../../renderer/src/actions/plan.ts';
import { loadInfo } from '../../renderer/src/app/start.ts';
import { ready } from '../../renderer/src/store/loadable.ts';
import { SettingsView } from '../../renderer/src/views/settings/SettingsView.tsx';
import { datasetImport, fileReport, info, inspectResult, model, modelList, node, opsReport, planResult, pool, runSummary, tokenStats } from './data.ts';
import { testEnv } from './fake-service.ts';
import { renderWith } from './render.tsx';

function chosenEnv(backends?: Array<'CPU' | 'CUDA0'>) {
  const env = testEnv();
  env.store.getState().setInfo(ready(info(backends)));
  env.store.getState().setModelList(ready(modelList([model()])));
  env.store.getState().selectModel('/models/tiny-llama.gguf');
  env.store.getState().setDatasetSources(['/data/a.jsonl']);
  return env;
}

describe('SettingsView', () => {
  afterEach(() => vi.useRealTimers());

  it('with nothing chosen, says there is nothing to plan and cannot start', () => {
    const env = testEnv();
    env.store.getState().setInfo(ready(info()));
    renderWith(env, <SettingsView />);
    expect(screen.getByText('Nothing to plan yet')).toBeTruthy();
    expect((screen.getByTestId('start-run') as HTMLButtonElement).disabled).toBe(true);
  });

  it('says it is asking the engine for its defaults, then for the plan', async () => {
    const env = testEnv();
    env.store.getState().setModelList(ready(modelList([model()])));
    env.store.getState().selectModel('/models/tiny-llama.gguf');
    env.store.getState().setDatasetSources(['/data/a.jsonl']);
    const infoHeld = env.fake.hold('info');
    const infoDone = loadInfo(env);
    const planHeld = env.fake.hold('plan');
    const planDone = planNow(env);
    renderWith(env, <SettingsView />);
    expect(screen.getByText('Asking the engine for its defaults…')).toBeTruthy();
    expect(screen.getByText('Planning memory and op placement…')).toBeTruthy();
    await act(async () => {
      infoHeld.release(info());
      planHeld.release(planResult([pool()], opsReport([node(0)])));
      await Promise.all([infoDone, planDone]);
    });
    expect(screen.queryByText('Asking the engine for its defaults…')).toBeNull();
    expect(screen.getByTestId('pool-CPU')).toBeTruthy();
  });

  it('shows the engine’s defaults, applies a preset, and an edit re-plans after a pause', async () => {
    vi.useFakeTimers();
    const env = chosenEnv();
    env.fake.answer('plan', planResult([pool()], opsReport([node(0)])));
    const stop = startPlanScheduler(env);
    renderWith(env, <SettingsView />);
    expect((screen.getByLabelText('Rank') as HTMLInputElement).value).toBe('8');
    expect((screen.getByLabelText('Context (tokens)') as HTMLInputElement).value).toBe('512');
    await act(() => vi.advanceTimersByTimeAsync(PLAN_DEBOUNCE_MS + 5));
    expect(env.fake.callsOf('plan')).toHaveLength(1);

    fireEvent.click(screen.getByRole('radio', { name: /Thorough/ }));
    expect((screen.getByLabelText('Rank') as HTMLInputElement).value).toBe('16');
    expect(screen.getByRole('radio', { name: /Thorough/ }).getAttribute('aria-checked')).toBe('true');
    fireEvent.change(screen.getByLabelText('Rank'), { target: { value: '12' } });
    expect(screen.getByRole('radio', { name: /Thorough/ }).getAttribute('aria-checked')).toBe('false');
    await act(() => vi.advanceTimersByTimeAsync(PLAN_DEBOUNCE_MS + 5));
    const calls = env.fake.callsOf('plan');
    expect(calls).toHaveLength(2);
    expect(calls[1][0]).toMatchObject({ rank: 12, epochs: 3, targets: 'all' });
    stop();
  });

  it('refuses a value out of range with a reason, and does not store it', () => {
    const env = chosenEnv();
    renderWith(env, <SettingsView />);
    fireEvent.change(screen.getByLabelText('Rank'), { target: { value: '0' } });
    expect(screen.getByText('At least 1')).toBeTruthy();
    expect(screen.getByLabelText('Rank').getAttribute('aria-invalid')).toBe('true');
    expect(env.store.getState().settings.edits.rank).toBeUndefined();
  });

  it('draws each pool against its free memory and warns before a run that would not fit', async () => {
    const env = chosenEnv();
    env.fake.answer('plan', planResult([pool({ pool: 'CPU', limitBytes: 4 << 20 })], opsReport([node(0)])));
    await planNow(env);
    renderWith(env, <SettingsView />);
    const plan = screen.getByTestId('plan');
    expect(within(plan).getByText('This run would not fit')).toBeTruthy();
    expect(within(plan).getByText(/needs more memory than it has/)).toBeTruthy();
    expect(within(plan).getByRole('img').getAttribute('aria-label')).toMatch(/CPU: training allocates 11.0 MiB of 4.00 MiB available, which does not fit/);
  });

  it('says which memory mode the plan chose and why', async () => {
    const env = chosenEnv(['CUDA0', 'CPU']);
    const ops = opsReport([node(0, { backend: 'CUDA0' })], ['CUDA0', 'CPU']);
    ops.memory = { ...ops.memory, mode: 'selective', mode_reason: 'the plain graph does not fit (CUDA0: 23000.0 MiB planned, 20000.0 MiB free)' };
    env.fake.answer('plan', planResult([pool({ pool: 'CUDA0' })], ops));
    await planNow(env);
    renderWith(env, <SettingsView />);
    expect(screen.getByTestId('memory-mode').textContent).toBe(
      'Memory mode: Selective recomputation (the plain graph does not fit (CUDA0: 23000.0 MiB planned, 20000.0 MiB free); the same gradients)',
    );
  });

  it('shows the op placement with the fallbacks and their reasons', async () => {
    const env = chosenEnv(['CUDA0', 'CPU']);
    const reason = 'CUDA0: OUT_PROD with src0 q4_K not supported';
    env.fake.answer('plan', planResult([pool({ pool: 'CUDA0' })], opsReport([node(0, { backend: 'CUDA0' }), node(1, { backend: 'CUDA0' }), node(2, { op: 'OUT_PROD', cpu_reason: reason })], ['CUDA0', 'CPU'])));
    await planNow(env);
    renderWith(env, <SettingsView />);
    expect(screen.getByText('66.7% of ops run on the GPU.')).toBeTruthy();
    expect(screen.getByText('1 op(s) fall back to the CPU')).toBeTruthy();
    expect(screen.getByText(reason)).toBeTruthy();
  });

  it('offers only the targets the model has, and only the backends present', async () => {
    const env = chosenEnv(['CUDA0', 'CPU']);
    env.fake.answer('plan', planResult([pool()], opsReport([node(0, { weight: 'blk.0.attn_q.weight' }), node(1, { weight: 'blk.0.attn_v.weight' }), node(2, { weight: 'blk.0.ffn_down.weight' })])));
    await planNow(env);
    renderWith(env, <SettingsView />);
    expect((screen.getByRole('checkbox', { name: /Query/ }) as HTMLInputElement).disabled).toBe(false);
    expect((screen.getByRole('checkbox', { name: /Key \(attn_k\)/ }) as HTMLInputElement).disabled).toBe(true);
    expect(screen.getByRole('checkbox', { name: /Key \(attn_k\)/ }).parentElement?.textContent).toContain('not in this model');
    fireEvent.click(screen.getByRole('checkbox', { name: /FFN down/ }));
    expect(env.store.getState().settings.edits.targets).toBe('attn_q,attn_k,attn_v,attn_output,ffn_down');
    const backend = screen.getByLabelText('Backend') as HTMLSelectElement;
    expect([...backend.options].map((o) => o.value)).toEqual(['auto', 'cuda', 'cpu']);
  });

  it('shows a failed plan with its code', async () => {
    const env = chosenEnv();
    env.fake.fail('plan', 'unsupported', 'architecture clip has no training graph');
    await planNow(env);
    renderWith(env, <SettingsView />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('architecture clip has no training graph');
    expect(alert.textContent).toContain('unsupported');
  });

  it('proposes the context that holds 99% of the examples whole, and uses it on request', () => {
    const env = chosenEnv();
    env.store.getState().setSetting('ctx', 1024);
    env.store.getState().setDatasetInspect(ready(inspectResult(tokenStats({ ctx: 1024, suggestedCtx: { ctx: 320, covers: 0.993 } }))), 'an older key');
    renderWith(env, <SettingsView />);
    expect(screen.getByTestId('ctx-suggestion').textContent).toContain('320 holds 99.3% of the examples whole.');
    fireEvent.click(screen.getByRole('button', { name: 'Use 320' }));
    expect(env.store.getState().settings.edits.ctx).toBe(320);
    expect(screen.queryByTestId('ctx-suggestion')).toBeNull();
  });

  it('blocks a start while the data has invalid records', async () => {
    const env = chosenEnv();
    env.fake.answer('datasets.import', datasetImport([fileReport('/data/a.jsonl', { total: 10, invalid: 2 })]));
    await importSources(env, ['/data/a.jsonl']);
    renderWith(env, <SettingsView />);
    expect(screen.getByText('The data has 2 invalid record(s)')).toBeTruthy();
    expect((screen.getByTestId('start-run') as HTMLButtonElement).disabled).toBe(true);
  });

  it('starts a run with the settings and follows it', async () => {
    const env = chosenEnv();
    env.store.getState().setSetting('steps', 50);
    env.fake.answer('runs.start', runSummary({ id: 'new-run', status: 'starting', nSteps: 50 }));
    env.fake.answer('runs.events', []);
    renderWith(env, <SettingsView />);
    await act(async () => fireEvent.click(screen.getByTestId('start-run')));
    expect(env.fake.callsOf('runs.start')).toEqual([[{ model: '/models/tiny-llama.gguf', data: ['/data/a.jsonl'], steps: 50 }]]);
    expect(env.store.getState().run.id).toBe('new-run');
    expect(window.location.hash).toBe('#/train');
  });

  it('says why a start was refused', async () => {
    const env = chosenEnv();
    env.fake.fail('runs.start', 'busy', 'a run is training: run-3');
    renderWith(env, <SettingsView />);
    await act(async () => fireEvent.click(screen.getByTestId('start-run')));
    expect(screen.getByRole('alert').textContent).toContain('a run is training: run-3');
  });
});
