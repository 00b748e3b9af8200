/**
 * Fuzz target: the dataset import (electron/services/dataset) on damaged copies of the seed
 * files, with and without a format override and small limits. Data problems must land in the
 * report, never in a throw; and the report must hold together (known problem codes, each naming
 * the file; counts that add up; only well-typed examples accepted).
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FORMAT_NAMES, PROBLEM_CODES } from '../../../electron/common/dataset-report.ts';
import { importDataset, type Example, type ImportOptions } from '../../../electron/services/dataset/index.ts';
import { applyByteMutations, byteMutation, showByteMutation, type ByteMutation } from './byte-mutations.ts';
import { datasetSeeds } from './dataset-seeds.ts';
import { mutateJsonLines, showValueMutation, valueMutation, type ValueMutation } from './json-mutations.ts';
import { readOrRefuse } from './refusal.ts';
import type { FuzzTarget } from './target.ts';

export interface DatasetCase {
  seed: number;
  values: ValueMutation[];
  bytes: ByteMutation[];
  options: ImportOptions;
}

const CSV_OPTIONS = [{ header: false, columns: { text: 0 } }, { columns: { prompt: 'prompt', completion: 2 } }, { delimiter: ';' }, { header: false, columns: { prompt: 0, completion: 1, system: 5 } }];

const options: fc.Arbitrary<ImportOptions> = fc
  .record({
    format: fc.option(fc.constantFrom(...FORMAT_NAMES), { freq: 3 }),
    maxRecordBytes: fc.option(fc.integer({ min: 1, max: 4096 }), { freq: 6 }),
    textSegmentChars: fc.option(fc.integer({ min: 1, max: 2000 }), { freq: 4 }),
    evalRatio: fc.option(fc.double({ min: 0, max: 0.9, noNaN: true }), { freq: 4 }),
    dropDuplicates: fc.boolean(),
    csv: fc.option(fc.constantFrom(...CSV_OPTIONS), { freq: 4 }),
  })
  .map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null)) as ImportOptions);

export function datasetTarget(): FuzzTarget<DatasetCase> {
  const seeds = datasetSeeds();
  const dir = mkdtempSync(join(tmpdir(), 'hone-fuzz-dataset-'));
  let n = 0;
  return {
    name: 'dataset-readers',
    arbitrary: fc.record({
      seed: fc.integer({ min: 0, max: seeds.length - 1 }),
      values: fc.array(valueMutation, { maxLength: 2 }),
      bytes: fc.array(byteMutation, { maxLength: 3 }),
      options,
    }),
    show: (c) => [`${seeds[c.seed].name}`, ...c.values.map(showValueMutation), ...c.bytes.map(showByteMutation), `options ${JSON.stringify(c.options)}`].join('; '),
    async check(c) {
      const seed = seeds[c.seed];
      let bytes = seed.bytes;
      if (seed.ext === 'json' || seed.ext === 'jsonl') {
        const text = c.values.reduce((t, m) => mutateJsonLines(t, m), new TextDecoder().decode(bytes));
        if (c.values.length > 0) bytes = new TextEncoder().encode(text);
      }
      bytes = applyByteMutations(bytes, c.bytes);
      const path = join(dir, `case-${n++}.${seed.ext}`);
      writeFileSync(path, bytes);
      try {
        const result = await readOrRefuse(() => importDataset(path, c.options), { where: path, codes: ['file_changed'] });
        if ('problem' in result) return result.problem;
        if ('refused' in result) return `refused a file that did not change: ${result.refused.message}`;
        return reportProblem(result.value, path);
      } finally {
        rmSync(path, { force: true });
      }
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

type Imported = Awaited<ReturnType<typeof importDataset>>;

/** What does not hold together in an import's result, or null. */
function reportProblem({ report, train, eval: evalSet }: Imported, path: string): string | null {
  for (const p of report.problems) {
    if (!Object.hasOwn(PROBLEM_CODES, p.code)) return `problem code ${JSON.stringify(p.code)} is not in PROBLEM_CODES`;
    if (p.file !== path) return `problem ${p.code} names file ${JSON.stringify(p.file)}, not the file read`;
    if (typeof p.message !== 'string' || p.message.trim() === '') return `problem ${p.code} has no message`;
    if (p.line !== null && !(Number.isInteger(p.line) && p.line >= 0)) return `problem ${p.code} has line ${p.line}`;
  }
  const r = report.records;
  if (r.valid + r.invalid !== r.total) return `records do not add up: ${JSON.stringify(r)}`;
  if (train.length !== report.split.train || evalSet.length !== report.split.eval) {
    return `the report's split (${report.split.train} train, ${report.split.eval} eval) is not what was imported (${train.length}, ${evalSet.length})`;
  }
  for (const ex of [...train, ...evalSet]) {
    const bad = exampleProblem(ex);
    if (bad) return `accepted a bad example at ${ex.source.file}:${ex.source.line}: ${bad}`;
  }
  return null;
}

const ROLES = ['system', 'user', 'assistant', 'tool'];

function exampleProblem(ex: Example): string | null {
  if (ex.kind === 'text') return typeof ex.text === 'string' && ex.text.trim() !== '' ? null : 'a text example without text';
  if (!Array.isArray(ex.messages) || ex.messages.length === 0) return 'a chat without messages';
  for (const m of ex.messages) {
    if (!ROLES.includes(m.role)) return `role ${JSON.stringify(m.role)}`;
    if (typeof m.content !== 'string') return `content of type ${typeof m.content}`;
    for (const call of m.tool_calls ?? []) {
      if (typeof call.function.name !== 'string' || typeof call.function.arguments !== 'string') return 'a tool call that is not {name, arguments} strings';
    }
  }
  return null;
}
