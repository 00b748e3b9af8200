// Datasets view: empty, loading, error and data; thousands of problems stay virtualised; a drop
// goes through the file importer to datasets.import; the model's token view and truncation.
import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { importSources, inspectDataset } from '../../renderer/src/actions/datasets.ts';
import { ready } from '../../renderer/src/store/loadable.ts';
import { DatasetsView } from '../../renderer/src/views/datasets/DatasetsView.tsx';
import { datasetImport, fileReport, inspectResult, model, modelList, problem, tokenStats } from './data.ts';
import { testEnv } from './fake-service.ts';
import { renderWith } from './render.tsx';

const stat = (label: string) => screen.getByText(label, { selector: '.stat-label' }).parentElement!.querySelector('.stat-value')!.textContent;

describe('DatasetsView', () => {
  it('starts with the drop zone and nothing read', () => {
    renderWith(testEnv(), <DatasetsView />);
    expect(screen.getByText('Drop data files or folders here')).toBeTruthy();
    expect(screen.getByRole('button', { name: /Choose files/ })).toBeTruthy();
    expect(screen.getByText(/No data yet/)).toBeTruthy();
  });

  it('says it is reading, then shows the error of an unreadable path', async () => {
    const env = testEnv();
    const held = env.fake.hold('datasets.import');
    const p = importSources(env, ['/data/missing.jsonl']);
    renderWith(env, <DatasetsView />);
    expect(screen.getByText('Reading and checking every record…')).toBeTruthy();
    await act(async () => {
      held.reject(Object.assign(new Error('/data/missing.jsonl: no such file'), { code: 'not_found' }));
      await p;
    });
    expect(screen.getByRole('alert').textContent).toContain('/data/missing.jsonl: no such file');
  });

  it('shows format, counts and every problem by file and line, rendering only the rows in view', async () => {
    const env = testEnv();
    const problems = Array.from({ length: 5000 }, (_, i) => problem('/data/big.jsonl', i + 1, { code: i % 2 ? 'bad_json' : 'empty_content', severity: i % 10 === 0 ? 'warning' : 'error' }));
    env.fake.answer('datasets.import', datasetImport([fileReport('/data/big.jsonl', { total: 9000, invalid: 4500, duplicates: 12 })], problems));
    await importSources(env, ['/data/big.jsonl']);
    renderWith(env, <DatasetsView />);
    expect(stat('Format')).toBe('openai-chat');
    expect(stat('Records')).toBe('9,000');
    expect(stat('Valid')).toBe('4,500');
    expect(stat('Skipped')).toBe('4,500');
    expect(stat('Duplicates')).toBe('12');
    const table = screen.getByRole('table', { name: 'Problems' });
    expect(table.getAttribute('aria-rowcount')).toBe('5001');
    const rendered = within(table).getAllByRole('row');
    expect(rendered.length).toBeLessThan(60);
    expect(within(table).getByRole('row', { name: /big\.jsonl 2 .*bad_json/ })).toBeTruthy();
    // only warnings
    fireEvent.click(screen.getByRole('radio', { name: 'Warnings' }));
    expect(within(screen.getByRole('table', { name: 'Problems' })).getByRole('row', { name: /big\.jsonl 1 .*warning/ })).toBeTruthy();
    expect(screen.getByRole('table', { name: 'Problems' }).getAttribute('aria-rowcount')).toBe('501');
  });

  it('hands dropped files to the importer and imports their paths', async () => {
    const env = testEnv();
    env.fake.answer('datasets.import', (paths: unknown) => datasetImport((paths as string[]).map((p) => fileReport(p, { total: 5 }))));
    renderWith(env, <DatasetsView />);
    const file = new File(['{"text": "hi"}\n'], 'notes.jsonl');
    await act(async () => {
      fireEvent.drop(screen.getByTestId('dataset-drop-zone'), { dataTransfer: { files: [file], items: [], types: ['Files'] } });
      await new Promise((r) => setTimeout(r, 0));
    });
    expect(env.files.given).toEqual([[file]]);
    expect(env.fake.callsOf('datasets.import')).toEqual([[['/data/uploads/notes.jsonl']]]);
    expect(screen.getByTestId('dataset-files').textContent).toContain('notes.jsonl');
  });

  it('shows the model’s token statistics, the examples the context cuts, and the loss-carrying text', async () => {
    const env = testEnv();
    env.store.getState().setModelList(ready(modelList([model()])));
    env.store.getState().selectModel('/models/tiny-llama.gguf');
    env.fake.answer('datasets.import', datasetImport([fileReport('/data/a.jsonl', { total: 10 })]));
    await importSources(env, ['/data/a.jsonl']);
    const tokens = tokenStats({
      overLength: 2, truncated: 1, dropped: 1,
      affected: [
        { file: '/data/a.jsonl', line: 5, outcome: 'truncated', tokens: 16085, lossTokens: 16000, lostLossTokens: 15600 },
        { file: '/data/a.jsonl', line: 9, outcome: 'dropped', tokens: 900, lossTokens: 300, lostLossTokens: 300 },
      ],
    });
    env.fake.answer('datasets.inspect', inspectResult(tokens));
    await inspectDataset(env);
    renderWith(env, <DatasetsView />);
    expect(screen.getByText(/2 example\(s\) are longer than the context of 512 tokens/)).toBeTruthy();
    const cut = screen.getByRole('table', { name: 'Examples the context cuts or drops' });
    expect(within(cut).getByRole('row', { name: /a\.jsonl 5 truncated 16,085 15,600 of 16,000/ })).toBeTruthy();
    expect(within(cut).getByRole('row', { name: /a\.jsonl 9 dropped/ })).toBeTruthy();
    expect(screen.getByTestId('preview').querySelector('.preview-text mark')?.textContent).toBe('hello there');
    // the policy is a setting the next inspection and the run use
    fireEvent.change(screen.getByLabelText('Examples longer than the context'), { target: { value: 'drop' } });
    expect(env.store.getState().settings.edits.truncate).toBe('drop');
  });

  it('asks for a model before counting tokens', async () => {
    const env = testEnv();
    env.fake.answer('datasets.import', datasetImport([fileReport('/data/a.jsonl', { total: 3 })]));
    await importSources(env, ['/data/a.jsonl']);
    renderWith(env, <DatasetsView />);
    expect(screen.getByText('Choose a model to count tokens')).toBeTruthy();
  });
});
