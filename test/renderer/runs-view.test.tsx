// Runs view: loading, error, empty and data; comparing two runs; the adapter; deleting.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { loadRuns } from '../../renderer/src/actions/runs.ts';
import { RunsView } from '../../renderer/src/views/runs/RunsView.tsx';
import { runDetail, runSummary, stepRecords } from './data.ts';
import { testEnv } from './fake-service.ts';
import { renderWith } from './render.tsx';

const a = runSummary({ id: 'run-a', title: 'run A', status: 'finished', step: 20, nSteps: 20, adapter: '/data/runs/run-a/adapter.gguf', lastLoss: 1.25, tokensPerS: 1234.4, rowFill: 0.47 });
const b = runSummary({ id: 'run-b', title: 'run B', status: 'stopped', step: 7, nSteps: 100, resumableStep: 7 });

function withRuns() {
  const env = testEnv();
  env.fake.answer('runs.list', [a, b]);
  env.fake.answer('runs.get', (id: unknown) => (id === 'run-a' ? runDetail(a, { rank: 8, steps: 20 }) : runDetail(b, { rank: 16, steps: 100 })));
  env.fake.answer('runs.events', (id: unknown) => stepRecords(1, id === 'run-a' ? 20 : 7));
  return env;
}

describe('RunsView', () => {
  it('says it is reading the registry, then shows an error with a retry', async () => {
    const env = testEnv();
    const held = env.fake.hold('runs.list');
    const p = loadRuns(env);
    renderWith(env, <RunsView />);
    expect(screen.getByText('Reading the run registry…')).toBeTruthy();
    await act(async () => {
      held.reject(Object.assign(new Error('runs folder unreadable'), { code: 'io_error' }));
      await p;
    });
    expect(screen.getByRole('alert').textContent).toContain('runs folder unreadable');
  });

  it('says there are no runs yet', async () => {
    const env = testEnv();
    env.fake.answer('runs.list', []);
    await loadRuns(env);
    renderWith(env, <RunsView />);
    expect(screen.getByText('No runs yet')).toBeTruthy();
  });

  it('lists runs with status, steps and loss; two ticked show their curves and what differs', async () => {
    const env = withRuns();
    await loadRuns(env);
    renderWith(env, <RunsView />);
    const table = screen.getByRole('table', { name: 'Runs' });
    expect(within(table).getByRole('row', { name: /run A run-a finished 20 \/ 20 1\.2500 – 1,234/ })).toBeTruthy();
    expect(within(table).getByTitle('rows 47% full (padding is not counted)').textContent).toBe('1,234');
    await act(async () => fireEvent.click(screen.getByRole('checkbox', { name: 'Compare run A' })));
    await act(async () => fireEvent.click(screen.getByRole('checkbox', { name: 'Compare run B' })));
    expect(screen.getByTestId('overlay-chart')).toBeTruthy();
    expect(env.store.getState().runs.curves['run-b'].data?.steps).toHaveLength(7);
    const diff = screen.getByTestId('config-diff');
    expect(within(diff).getAllByRole('row').map((r) => r.textContent)).toEqual(['Settingrun-arun-b', 'rank816', 'steps20100']);
  });

  it('opens a run: its adapter for llama.cpp and its folder; delete asks first', async () => {
    const env = withRuns();
    env.fake.answer('runs.delete', undefined);
    await loadRuns(env);
    renderWith(env, <RunsView />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'run A' })));
    expect(screen.getByTestId('run-adapter').textContent).toContain('/data/runs/run-a/adapter.gguf');
    expect(screen.getByTestId('run-detail').textContent).toContain('/data/runs/run-a');
    expect(screen.getByTestId('run-speed').textContent).toBe('1,234 real tokens/s · rows 47% full');
    expect(screen.getByRole('region', { name: 'Try it' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Delete run…' }));
    expect(env.fake.callsOf('runs.delete')).toEqual([]);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Delete run' })));
    expect(env.fake.callsOf('runs.delete')).toEqual([['run-a']]);
    expect(within(screen.getByRole('table', { name: 'Runs' })).queryByRole('row', { name: /run A/ })).toBeNull();
  });

  it('offers to resume a stopped run from its checkpoint', async () => {
    const env = withRuns();
    await loadRuns(env);
    renderWith(env, <RunsView />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'run B' })));
    expect(screen.getByRole('button', { name: 'Resume from step 7' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'Try it' })).toBeNull(); // no adapter to try yet
  });
});
