// Models view: loading, error, empty and data states; choosing a model by mouse and keyboard.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { loadModels } from '../../renderer/src/actions/models.ts';
import { ModelsView } from '../../renderer/src/views/models/ModelsView.tsx';
import { model, modelList } from './data.ts';
import { testEnv } from './fake-service.ts';
import { renderWith } from './render.tsx';

describe('ModelsView', () => {
  it('says it is looking while the list loads', async () => {
    const env = testEnv();
    const held = env.fake.hold('models.list');
    const loadingDone = loadModels(env);
    renderWith(env, <ModelsView />);
    expect(screen.getByRole('status')).toHaveProperty('textContent', 'Looking for models…');
    held.release(modelList([]));
    await act(() => loadingDone);
    expect(screen.queryByText('Looking for models…')).toBeNull();
  });

  it('shows the service’s error with its code and retries', async () => {
    const env = testEnv();
    env.fake.fail('models.list', 'io_error', '/models: permission denied');
    await loadModels(env);
    renderWith(env, <ModelsView />);
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('/models: permission denied');
    expect(alert.textContent).toContain('io_error');
    env.fake.answer('models.list', modelList([model()]));
    await act(async () => fireEvent.click(within(alert).getByRole('button', { name: 'Try again' })));
    expect(env.fake.callsOf('models.list')).toHaveLength(2);
    expect(screen.getByRole('row', { name: /tiny-llama\.gguf/ })).toBeTruthy();
  });

  it('says where it looked when nothing is found', async () => {
    const env = testEnv();
    env.fake.answer('models.list', { models: [], warnings: [], roots: [{ source: 'lmstudio', path: '/home/me/.lmstudio/models', exists: false, found: 0 }] });
    await loadModels(env);
    renderWith(env, <ModelsView />);
    expect(screen.getByText('No models found')).toBeTruthy();
    expect(screen.getByText(/\/home\/me\/\.lmstudio\/models \(absent\)/)).toBeTruthy();
  });

  it('lists models with their facts; a click or the keyboard chooses one, and an untrainable one says why', async () => {
    const env = testEnv();
    const a = model({ path: '/m/a.gguf', displayName: 'a.gguf' });
    const b = model({ path: '/m/b.gguf', displayName: 'b.gguf', architecture: 'clip', trainable: false, trainableReason: 'clip is a vision encoder, not a language model' });
    env.fake.answer('models.list', modelList([a, b]));
    await loadModels(env);
    renderWith(env, <ModelsView />);
    const grid = screen.getByRole('grid', { name: 'Models' });
    expect(grid.getAttribute('aria-rowcount')).toBe('3');
    expect(within(grid).getByRole('row', { name: /b\.gguf.*clip.*not trainable/ })).toBeTruthy();

    fireEvent.click(within(grid).getByRole('row', { name: /a\.gguf/ }));
    expect(env.store.getState().models.selectedId).toBe('/m/a.gguf');
    expect(screen.getByTestId('model-details').textContent).toContain('/m/a.gguf');

    // keyboard: focus the grid, move down, choose
    fireEvent.focus(grid);
    fireEvent.keyDown(grid, { key: 'ArrowDown' });
    fireEvent.keyDown(grid, { key: 'Enter' });
    expect(env.store.getState().models.selectedId).toBe('/m/b.gguf');
    expect(screen.getByText('clip is a vision encoder, not a language model')).toBeTruthy();
    expect(screen.getByRole('row', { name: /b\.gguf/ }).getAttribute('aria-selected')).toBe('true');
  });

  it('opens a model by its path and chooses it', async () => {
    const env = testEnv();
    env.fake.answer('models.list', modelList([]));
    env.fake.answer('models.inspect', (p: unknown) => model({ path: p as string, displayName: 'typed.gguf' }));
    await loadModels(env);
    renderWith(env, <ModelsView />);
    fireEvent.change(screen.getByLabelText('A .gguf file by path'), { target: { value: ' /srv/typed.gguf ' } });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Open' })));
    expect(env.fake.callsOf('models.inspect')).toEqual([['/srv/typed.gguf']]);
    expect(env.store.getState().models.selectedId).toBe('/srv/typed.gguf');
    expect(screen.getByRole('row', { name: /typed\.gguf/ })).toBeTruthy();
  });
});
