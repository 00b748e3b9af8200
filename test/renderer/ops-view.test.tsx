// Ops view: no plan yet, the plan's report (fallbacks highlighted with their reason, the filter,
// sorting), and a run's report fetched on demand.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { planNow } from '../../renderer/src/actions/plan.ts';
import { ready } from '../../renderer/src/store/loadable.ts';
import { OpsView } from '../../renderer/src/views/ops/OpsView.tsx';
import { model, modelList, node, opsReport, planResult, pool, runSummary } from './data.ts';
import { testEnv } from './fake-service.ts';
import { renderWith } from './render.tsx';

const REASON = 'CUDA0: OUT_PROD with src0 q4_K [512,1536,1,1], src1 f32 [512,64,1,1] not supported';
const report = () =>
  opsReport(
    [
      node(0, { backend: 'CUDA0', flops: 5000 }),
      node(1, { backend: 'CUDA0', op: 'ADD', flops: 100 }),
      node(2, { op: 'OUT_PROD', flops: 3000, cpu_reason: REASON }),
      node(3, { op: 'OUT_PROD', flops: 3000, cpu_reason: REASON }),
    ],
    ['CUDA0', 'CPU'],
  );

async function planned() {
  const env = testEnv();
  env.store.getState().setModelList(ready(modelList([model()])));
  env.store.getState().selectModel('/models/tiny-llama.gguf');
  env.store.getState().setDatasetSources(['/data/a.jsonl']);
  env.fake.answer('plan', planResult([pool()], report()));
  await planNow(env);
  return env;
}

describe('OpsView', () => {
  it('without a plan, says what makes one', () => {
    renderWith(testEnv(), <OpsView />);
    expect(screen.getByText('No plan yet')).toBeTruthy();
    expect((screen.getByRole('radio', { name: 'Run' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it('says it is planning while the first plan is on its way', async () => {
    const env = testEnv();
    env.store.getState().setModelList(ready(modelList([model()])));
    env.store.getState().selectModel('/models/tiny-llama.gguf');
    env.store.getState().setDatasetSources(['/data/a.jsonl']);
    const held = env.fake.hold('plan');
    const done = planNow(env);
    renderWith(env, <OpsView />);
    expect(screen.getByText('Planning…')).toBeTruthy();
    await act(async () => {
      held.release(planResult([pool()], report()));
      await done;
    });
    expect(screen.getByText('Placement (planned)')).toBeTruthy();
  });

  it('shows the plan’s placement, the fallbacks with the backend’s reason, highlighted rows', async () => {
    const env = await planned();
    renderWith(env, <OpsView />);
    expect(screen.getByText('Placement (planned)')).toBeTruthy();
    expect(screen.getByTestId('fallbacks').textContent).toContain('OUT_PROD ×2');
    expect(screen.getByTestId('fallbacks').textContent).toContain(REASON);
    const table = screen.getByRole('table', { name: 'Ops of the training graph' });
    const row = within(table).getByRole('row', { name: /OUT_PROD CPU 2/ });
    expect(row.className).toContain('row-fallback');
    expect(row.textContent).toContain(REASON);
  });

  it('filters to fallbacks and sorts by a column', async () => {
    const env = await planned();
    renderWith(env, <OpsView />);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Fallbacks only' }));
    let rows = within(screen.getByRole('table', { name: 'Ops of the training graph' })).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.textContent?.slice(0, 8))).toEqual(['OUT_PROD']);
    fireEvent.click(screen.getByRole('checkbox', { name: 'Fallbacks only' }));
    const header = screen.getByRole('columnheader', { name: /^Op/ });
    fireEvent.click(within(header).getByRole('button'));
    expect(header.getAttribute('aria-sort')).toBe('descending');
    rows = within(screen.getByRole('table', { name: 'Ops of the training graph' })).getAllByRole('row').slice(1);
    expect(rows.map((r) => r.querySelector('code')?.textContent)).toEqual(['OUT_PROD', 'MUL_MAT', 'ADD']);
    fireEvent.click(within(header).getByRole('button'));
    expect(header.getAttribute('aria-sort')).toBe('ascending');
  });

  it('fetches the followed run’s report, and says when there is none yet', async () => {
    const env = await planned();
    env.store.getState().followRun(runSummary({ id: 'r9' }));
    env.fake.answer('runs.opReport', null);
    renderWith(env, <OpsView />);
    await act(async () => fireEvent.click(screen.getByRole('radio', { name: 'Run' })));
    expect(env.fake.callsOf('runs.opReport')).toEqual([['r9']]);
    expect(screen.getByText('No op report for this run yet')).toBeTruthy();
  });

  it('shows a run report that cannot be read as an error', async () => {
    const env = await planned();
    env.store.getState().followRun(runSummary({ id: 'r9' }));
    env.fake.fail('runs.opReport', 'bad_format', 'ops.json of run r9 is not JSON');
    renderWith(env, <OpsView />);
    await act(async () => fireEvent.click(screen.getByRole('radio', { name: 'Run' })));
    expect(screen.getByRole('alert').textContent).toContain('ops.json of run r9 is not JSON');
  });
});
