// The export actions of a finished run: one click per format through exports.create, progress
// while it runs, the files and commands it wrote, the service's error when it fails; in the
// desktop app the result can be shown in the file manager.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { ExportResult } from '../../electron/common/export.ts';
import type { HoneShell } from '../../electron/common/shell.ts';
import { ExportCard } from '../../renderer/src/views/runs/ExportCard.tsx';
import { testEnv } from './fake-service.ts';
import { renderWith } from './render.tsx';

const settle = () => act(() => new Promise((r) => setTimeout(r, 0)));

function result(over: Partial<ExportResult> = {}): ExportResult {
  return {
    format: 'ollama',
    out: '/data/runs/run-a/exports/ollama',
    files: [{ path: '/data/runs/run-a/exports/ollama/Modelfile', bytes: 120, role: 'the Modelfile' }],
    commands: ['ollama create run-a -f /data/runs/run-a/exports/ollama/Modelfile'],
    notes: ['Some Ollama versions refuse ADAPTER lines: Modelfile.merged uses the merged model instead.'],
    ...over,
  };
}

describe('ExportCard', () => {
  it('exports the chosen format of the run and shows its files, commands and notes', async () => {
    const env = testEnv();
    env.fake.answer('exports.create', result());
    renderWith(env, <ExportCard runId="run-a" />);
    fireEvent.click(screen.getByRole('radio', { name: /^Ollama/ }));
    await act(async () => fireEvent.click(screen.getByTestId('export-start')));
    await settle();
    expect(env.fake.callsOf('exports.create')).toEqual([[{ format: 'ollama', run: 'run-a' }]]);
    const shown = screen.getByTestId('export-result');
    expect(shown.textContent).toContain('/data/runs/run-a/exports/ollama/Modelfile');
    expect(shown.textContent).toContain('ollama create run-a -f');
    expect(shown.textContent).toContain('Modelfile.merged');
    // web mode: no file manager
    expect(within(shown).queryByRole('button', { name: 'Show in folder' })).toBeNull();
  });

  it('asks for a merged model re-quantized to the chosen type, with progress while it merges', async () => {
    const env = testEnv();
    const held = env.fake.hold('exports.create');
    renderWith(env, <ExportCard runId="run-a" />);
    fireEvent.click(screen.getByRole('radio', { name: /Merged GGUF/ }));
    fireEvent.change(screen.getByLabelText('Merged tensors stored as'), { target: { value: 'q8_0' } });
    await act(async () => fireEvent.click(screen.getByTestId('export-start')));
    expect(env.fake.callsOf('exports.create')).toEqual([[{ format: 'merged', type: 'q8_0', run: 'run-a' }]]);
    expect(screen.getByTestId('export-start').hasAttribute('disabled')).toBe(true);
    await act(async () => env.fake.emit({ type: 'export-progress', format: 'merged', out: '/data/runs/run-a/exports/merged-q8_0', stage: 'merge', done: 12, total: 48, item: 'blk.2.attn_q.weight' }));
    expect(screen.getByRole('progressbar', { name: 'Export progress' }).getAttribute('aria-valuenow')).toBe('12');
    expect(screen.getByText(/merge: 12 of 48 \(blk\.2\.attn_q\.weight\)/)).toBeTruthy();
    await act(async () => {
      held.release(result({ format: 'merged', out: '/data/runs/run-a/exports/merged-q8_0', files: [{ path: '/data/runs/run-a/exports/merged-q8_0/model.gguf', bytes: 1.2e6, role: 'the merged model' }], commands: [], notes: [] }));
    });
    await settle();
    expect(screen.getByTestId('export-result').textContent).toContain('model.gguf');
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it("says why an export failed, and that nothing was written", async () => {
    const env = testEnv();
    env.fake.fail('exports.create', 'unsupported', 'PEFT: no Hugging Face module names for architecture rwkv7');
    renderWith(env, <ExportCard runId="run-a" />);
    fireEvent.click(screen.getByRole('radio', { name: /PEFT/ }));
    await act(async () => fireEvent.click(screen.getByTestId('export-start')));
    await settle();
    const alert = screen.getByRole('alert');
    expect(alert.textContent).toContain('rwkv7');
    expect(alert.textContent).toContain('nothing was written');
  });

  it('shows the exported files in the file manager in the desktop app', async () => {
    const env = testEnv();
    const shown: string[] = [];
    env.shell = { showItem: async (p: string) => void shown.push(p) } as unknown as HoneShell;
    env.fake.answer('exports.create', result({ format: 'gguf', files: [{ path: '/data/runs/run-a/exports/gguf/adapter.gguf', bytes: 9000, role: 'the LoRA adapter' }] }));
    renderWith(env, <ExportCard runId="run-a" />);
    await act(async () => fireEvent.click(screen.getByTestId('export-start')));
    await settle();
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Show in folder' })));
    expect(shown).toEqual(['/data/runs/run-a/exports/gguf/adapter.gguf']);
  });
});
