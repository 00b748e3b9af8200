// The parts of the renderer that exist only in the desktop app (env.shell, from the preload):
// the app menu's commands, the native model picker, a run's folder in the file manager. In web
// mode (no shell) none of these controls is drawn.
import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { HoneShell, ShellCommand } from '../../electron/common/shell.ts';
import { loadRuns } from '../../renderer/src/actions/runs.ts';
import { startApp } from '../../renderer/src/app/start.ts';
import { ModelsView } from '../../renderer/src/views/models/ModelsView.tsx';
import { RunsView } from '../../renderer/src/views/runs/RunsView.tsx';
import { datasetImport, fileReport, info, model, modelList, runDetail, runSummary } from './data.ts';
import { testEnv } from './fake-service.ts';
import { renderWith } from './render.tsx';

function fakeShell(picked: string | null = null) {
  const calls: Array<[string, unknown[]]> = [];
  let listener: ((c: ShellCommand) => void) | null = null;
  const shell: HoneShell = {
    pickModel: async () => (calls.push(['pickModel', []]), picked),
    pickDatasets: async (kind) => (calls.push(['pickDatasets', [kind]]), []),
    showRunFolder: async (id) => {
      calls.push(['showRunFolder', [id]]);
      if (id === 'gone') throw { code: 'not_found', message: '/data/runs/gone does not exist' };
    },
    openRunsFolder: async () => void calls.push(['openRunsFolder', []]),
    showItem: async (p) => void calls.push(['showItem', [p]]),
    openExternal: async (u) => void calls.push(['openExternal', [u]]),
    onCommand: (l) => {
      listener = l;
      return () => (listener = null);
    },
  };
  return { shell, calls, send: (c: ShellCommand) => listener?.(c), listening: () => listener !== null };
}

const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));

describe('the desktop shell in the renderer', () => {
  let stop: (() => void) | null = null;
  afterEach(() => {
    stop?.();
    stop = null;
  });

  it("follows the app menu: Open Model opens the file in Models, Add Dataset imports in Datasets; stopping unsubscribes", async () => {
    const env = testEnv();
    const s = fakeShell();
    env.shell = s.shell;
    env.fake.answer('info', info());
    env.fake.answer('models.list', modelList([]));
    env.fake.answer('runs.list', []);
    env.fake.answer('models.inspect', (p: unknown) => model({ id: String(p), path: String(p), displayName: 'picked' }));
    env.fake.answer('datasets.import', (paths: unknown) => datasetImport((paths as string[]).map((p) => fileReport(p, { total: 3 }))));
    stop = startApp(env);
    await settle();
    await act(async () => s.send({ type: 'open-model', path: '/models/menu.gguf' }));
    await settle();
    expect(window.location.hash).toBe('#/models');
    expect(env.fake.callsOf('models.inspect')).toEqual([['/models/menu.gguf']]);
    expect(env.store.getState().models.selectedId).toBe('/models/menu.gguf');
    await act(async () => s.send({ type: 'add-datasets', paths: ['/data/a.jsonl', '/data/b.jsonl'] }));
    await settle();
    expect(window.location.hash).toBe('#/datasets');
    expect(env.store.getState().datasets.sources).toEqual(['/data/a.jsonl', '/data/b.jsonl']);
    await act(async () => s.send({ type: 'show-view', view: 'ops' }));
    expect(window.location.hash).toBe('#/ops');
    stop();
    stop = null;
    expect(s.listening()).toBe(false);
  });

  it('offers the native picker in Models only in the desktop app', async () => {
    const web = testEnv();
    web.fake.answer('models.list', modelList([]));
    const { unmount } = renderWith(web, <ModelsView />);
    expect(screen.queryByRole('button', { name: /Choose a \.gguf file/ })).toBeNull();
    unmount();

    const env = testEnv();
    const s = fakeShell('/models/chosen.gguf');
    env.shell = s.shell;
    env.fake.answer('models.list', modelList([]));
    env.fake.answer('models.inspect', (p: unknown) => model({ id: String(p), path: String(p) }));
    renderWith(env, <ModelsView />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: /Choose a \.gguf file/ })));
    await settle();
    expect(s.calls).toEqual([['pickModel', []]]);
    expect(env.fake.callsOf('models.inspect')).toEqual([['/models/chosen.gguf']]);
  });

  it("shows a run's folder in the file manager, and says so when it cannot", async () => {
    const a = runSummary({ id: 'run-a', title: 'run A', status: 'finished', step: 20, nSteps: 20 });
    const gone = runSummary({ id: 'gone', title: 'run gone', status: 'stopped', step: 3, nSteps: 20 });
    const env = testEnv();
    const s = fakeShell();
    env.shell = s.shell;
    env.fake.answer('runs.list', [a, gone]);
    env.fake.answer('runs.get', (id: unknown) => runDetail(id === 'run-a' ? a : gone, { rank: 8, steps: 20 }));
    env.fake.answer('runs.events', []);
    await loadRuns(env);
    renderWith(env, <RunsView />);
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'run A' })));
    await settle();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Show in folder' })));
    expect(s.calls).toEqual([['showRunFolder', ['run-a']]]);
    expect(screen.queryByRole('alert')).toBeNull();

    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'run gone' })));
    await settle();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Show in folder' })));
    await settle();
    expect(screen.getByRole('alert').textContent).toContain('/data/runs/gone does not exist');
  });
});
