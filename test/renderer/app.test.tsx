// The window: the navigation rail and its states, and a reloaded page that finds the run still
// training and draws its whole curve.
import { act, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { App } from '../../renderer/src/app/App.tsx';
import { startApp } from '../../renderer/src/app/start.ts';
import type { ConnectionInfo } from '../../renderer/src/service/web-client.ts';
import { datasetImport, fileReport, info, model, modelList, node, opsReport, planResult, pool, runSummary, stepRecords } from './data.ts';
import { ready } from '../../renderer/src/store/loadable.ts';
import { testEnv } from './fake-service.ts';
import { renderWith } from './render.tsx';

function bootEnv() {
  const env = testEnv();
  env.fake.answer('info', info());
  env.fake.answer('models.list', modelList([model()]));
  return env;
}

const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));

describe('App', () => {
  let stop: (() => void) | null = null;
  afterEach(() => {
    stop?.();
    stop = null;
  });

  it('links every view from the rail, marks the current one and moves there', async () => {
    const env = bootEnv();
    env.fake.answer('runs.list', []);
    stop = startApp(env);
    renderWith(env, <App />);
    await settle();
    const nav = screen.getByRole('navigation', { name: 'Views' });
    expect(within(nav).getAllByRole('link').map((l) => l.textContent?.replace(/\d+$/, ''))).toEqual(['Models', 'Datasets', 'Settings', 'Train', 'Ops', 'Runs']);
    expect(within(nav).getByRole('link', { name: /Models/ }).getAttribute('aria-current')).toBe('page');
    await act(async () => {
      window.location.hash = '#/runs';
      window.dispatchEvent(new HashChangeEvent('hashchange'));
    });
    expect(within(nav).getByRole('link', { name: /Runs/ }).getAttribute('aria-current')).toBe('page');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Runs');
    expect(screen.getByText('No runs yet')).toBeTruthy();
  });

  it('after a reload, follows the run still training with its full recorded curve, then live steps', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const env = bootEnv();
      const live = runSummary({ id: 'r-live', status: 'running', nSteps: 500, step: 300 });
      env.fake.answer('runs.list', [live, runSummary({ id: 'r-old', status: 'finished' })]);
      env.fake.answer('runs.events', (id: unknown, since: unknown) => (id === 'r-live' && !since ? stepRecords(1, 300, { nSteps: 500 }) : []));
      stop = startApp(env);
      window.location.hash = '#/train';
      renderWith(env, <App />);
      await act(() => vi.advanceTimersByTimeAsync(10));
      expect(env.fake.callsOf('runs.events')).toEqual([['r-live', 0]]);
      expect(screen.getByTestId('stat-step').textContent).toBe('300 / 500');
      for (const record of stepRecords(301, 310, { nSteps: 500 })) env.fake.emit({ type: 'run', runId: 'r-live', record });
      await act(() => vi.advanceTimersByTimeAsync(150));
      expect(screen.getByTestId('stat-step').textContent).toBe('310 / 500');
      expect(within(screen.getByRole('navigation', { name: 'Views' })).getByRole('link', { name: /Train/ }).textContent).toContain('live');
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows web mode’s connection, and catches up after a reconnect', async () => {
    const env = bootEnv();
    env.fake.answer('runs.list', []);
    let info: ConnectionInfo = { state: 'open', attempt: 0, retryInMs: null };
    const listeners = new Set<(i: ConnectionInfo) => void>();
    env.connection = { get: () => info, on: (l) => (listeners.add(l), () => listeners.delete(l)) };
    const set = (i: ConnectionInfo) => {
      info = i;
      listeners.forEach((l) => l(i));
    };
    stop = startApp(env);
    renderWith(env, <App />);
    await settle();
    expect(screen.getByText('Connected')).toBeTruthy();
    await act(async () => set({ state: 'closed', attempt: 1, retryInMs: 2000 }));
    expect(screen.getByText('Disconnected, retrying in 2 s')).toBeTruthy();
    const before = env.fake.callsOf('runs.list').length;
    await act(async () => set({ state: 'open', attempt: 0, retryInMs: null }));
    await settle();
    expect(env.fake.callsOf('runs.list').length).toBe(before + 1);
  });

  it('follows a run another window started', async () => {
    const env = bootEnv();
    env.fake.answer('runs.list', []);
    env.fake.answer('runs.events', stepRecords(1, 3));
    stop = startApp(env);
    renderWith(env, <App />);
    await settle();
    await act(async () => env.fake.emit({ type: 'run-status', run: runSummary({ id: 'elsewhere', status: 'starting' }) }));
    await settle();
    expect(env.store.getState().run.id).toBe('elsewhere');
    expect(env.store.getState().run.series.steps).toEqual([1, 2, 3]);
  });

  it('asks for the plan again once the run that kept the engine busy has ended', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const env = bootEnv();
      const run = runSummary({ id: 'r1', status: 'running' });
      env.fake.answer('runs.list', [run]);
      env.fake.answer('runs.events', []);
      env.fake.fail('plan', 'busy', 'the engine host is running request 10');
      env.store.getState().setModelList(ready(modelList([model()])));
      env.store.getState().selectModel('/models/tiny-llama.gguf');
      env.store.getState().setDatasetSources(['/data/a.jsonl']);
      env.fake.answer('datasets.import', datasetImport([fileReport('/data/a.jsonl', { total: 2 })]));
      stop = startApp(env);
      await act(() => vi.advanceTimersByTimeAsync(1000));
      expect(env.store.getState().plan.result.error?.code).toBe('busy');
      const asked = env.fake.callsOf('plan').length;
      // the status arrives while the host still saves the adapter: the first ask is busy too
      let tries = 0;
      env.fake.answer('plan', () => {
        if (tries++ === 0) throw Object.assign(new Error('the engine host is running request 10'), { code: 'busy' });
        return planResult([pool()], opsReport([node(0)]));
      });
      env.fake.emit({ type: 'run-status', run: { ...run, status: 'finished' } });
      await act(() => vi.advanceTimersByTimeAsync(500));
      expect(env.fake.callsOf('plan').length).toBe(asked + 1);
      expect(env.store.getState().plan.result.error?.code).toBe('busy');
      await act(() => vi.advanceTimersByTimeAsync(1000));
      expect(env.fake.callsOf('plan').length).toBe(asked + 2);
      expect(env.store.getState().plan.result.status).toBe('ready');
    } finally {
      vi.useRealTimers();
    }
  });
});
