// Train view: no run, a live run (stats, chart, controls), a dead host with "resume from step N".
import { act, fireEvent, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ready } from '../../renderer/src/store/loadable.ts';
import { TrainView } from '../../renderer/src/views/train/TrainView.tsx';
import { runSummary, stepRecords } from './data.ts';
import { testEnv } from './fake-service.ts';
import { renderWith } from './render.tsx';

const stat = (label: string) => screen.getByText(label, { selector: '.stat-label' }).parentElement!.querySelector('.stat-value')!.textContent;

function following(summary = runSummary({ nSteps: 100, step: 40 }), records = stepRecords(1, 40, { secondsPerStep: 0.5 })) {
  const env = testEnv();
  env.store.getState().setRunList(ready([summary]));
  env.store.getState().followRun(summary);
  env.store.getState().setRunSynced(records);
  return env;
}

describe('TrainView', () => {
  it('without a run, offers to set one up or open the latest', () => {
    const env = testEnv();
    env.store.getState().setRunList(ready([runSummary({ id: 'old', status: 'finished', title: 'last week' })]));
    env.fake.answer('runs.get', runSummary({ id: 'old', status: 'finished' }));
    env.fake.answer('runs.events', []);
    renderWith(env, <TrainView />);
    expect(screen.getByText('No run in progress')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Open the latest run (last week)' })).toBeTruthy();
  });

  it('says it is loading the curve while the history comes', () => {
    const env = testEnv();
    env.store.getState().followRun(runSummary());
    renderWith(env, <TrainView />);
    expect(screen.getByText('Loading the recorded curve…')).toBeTruthy();
  });

  it('shows step, losses, speed, elapsed time, ETA and progress of a live run, and its curve', () => {
    const env = following();
    renderWith(env, <TrainView />);
    expect(screen.getByTestId('stat-step').textContent).toBe('40 / 100');
    expect(stat('Train loss')).toBe((4 / Math.sqrt(40)).toFixed(4));
    expect(stat('Elapsed')).toBe('0:20');
    expect(stat('ETA')).toBe('0:30');
    expect(screen.getByTestId('stat-tps').textContent).toBe('1,000');
    expect(screen.getByTestId('stat-row-fill').textContent).toBe('rows 50% full');
    expect(screen.getByRole('progressbar', { name: 'Training progress' }).getAttribute('aria-valuenow')).toBe('40');
    const chart = screen.getByTestId('loss-chart');
    expect(Number(chart.getAttribute('data-points'))).toBe(80); // raw + smoothed, 40 each
    fireEvent.click(screen.getByRole('checkbox', { name: 'Raw loss' }));
    expect(Number(screen.getByTestId('loss-chart').getAttribute('data-points'))).toBe(40);
    expect(screen.getByTestId('run-status').textContent).toBe('running');
  });

  it('claims no row fill for steps logged before the engine reported one', () => {
    const old = stepRecords(1, 3).map((r) => {
      const { positions: _p, rowFill: _f, ...rest } = r.event as Extract<typeof r.event, { type: 'step' }>;
      return { ...r, event: rest as typeof r.event };
    });
    renderWith(following(runSummary({ nSteps: 100, step: 3 }), old), <TrainView />);
    expect(screen.getByTestId('stat-tps').textContent).toBe('1,000');
    expect(screen.queryByTestId('stat-row-fill')).toBeNull();
  });

  it('pauses and stops through the service', async () => {
    const env = following();
    env.fake.answer('runs.stop', runSummary({ status: 'pausing' }));
    renderWith(env, <TrainView />);
    await act(async () => fireEvent.click(screen.getByTestId('stop-run')));
    expect(env.fake.callsOf('runs.stop')).toEqual([['run-1']]);
    expect(screen.getByTestId('run-status').textContent).toBe('pausing');
  });

  it('cancels only after a confirmation, discarding the run', async () => {
    const env = following();
    env.fake.answer('runs.stop', runSummary({ status: 'stopped' }));
    env.fake.answer('runs.delete', undefined);
    renderWith(env, <TrainView />);
    fireEvent.click(screen.getByRole('button', { name: /Cancel/ }));
    expect(env.fake.calls).toEqual([]);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Discard run' })));
    expect(env.fake.calls.map((c) => c.method)).toEqual(['runs.stop', 'runs.delete']);
    expect(screen.getByText('No run in progress')).toBeTruthy();
  });

  it('shows a dead engine host with its reason and resumes from the last checkpoint', async () => {
    const env = following(runSummary({ status: 'interrupted', step: 40, resumableStep: 30 }));
    env.store.getState().setHostExit({ reason: 'killed by SIGKILL', runId: 'run-1', error: { code: 'host_exited', message: 'the engine host exited during training' } });
    env.fake.answer('runs.resume', runSummary({ status: 'running', step: 30, resumableStep: 30 }));
    env.fake.answer('runs.events', stepRecords(31, 32, { seqOffset: 40 }));
    renderWith(env, <TrainView />);
    const panel = screen.getByTestId('crash-panel');
    expect(panel.getAttribute('role')).toBe('alert');
    expect(panel.textContent).toContain('killed by SIGKILL');
    expect(screen.queryByRole('status')).toBeNull(); // no spinner
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Resume from step 30' })));
    expect(env.fake.callsOf('runs.resume')).toEqual([['run-1']]);
    expect(screen.queryByTestId('crash-panel')).toBeNull();
    expect(env.fake.callsOf('runs.events')).toEqual([['run-1', 40]]);
  });

  it('says a failed run without a checkpoint cannot be resumed', () => {
    const env = following(runSummary({ status: 'failed', error: { code: 'no_examples', message: 'no training sequence is left' } }), []);
    renderWith(env, <TrainView />);
    const panel = screen.getByTestId('crash-panel');
    expect(panel.textContent).toContain('no training sequence is left');
    expect(panel.textContent).toContain('cannot be resumed');
  });
});
