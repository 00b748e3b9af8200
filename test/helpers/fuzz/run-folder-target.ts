/**
 * Fuzz target: whatever reads a run folder (the run registry behind runs.list / get / events /
 * opReport, the checkpoint finder, the run's adapter lookup for chat and export, its token
 * statistics for the Axolotl export) on damaged copies of a finished run's folder: files cut,
 * flipped, given wrong-typed values or removed, folders where files belong, checkpoint folders
 * with odd names. runs.list must still list the run (a broken run is shown as failed, not
 * hidden); every other reader answers or refuses with a named error that names the run.
 */
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { HoneError } from '../../../electron/common/errors.ts';
import type { RunStatus } from '../../../electron/common/runs.ts';
import { notTrained, runTokenStats } from '../../../electron/services/export/axolotl.ts';
import { runAdapter } from '../../../electron/services/export/source.ts';
import { NodeHoneService } from '../../../electron/services/hone-service.ts';
import { isCheckpoint, lastStepOf } from '../../../electron/services/runs/checkpoints.ts';
import { applyByteMutations, byteMutation, showByteMutation, type ByteMutation } from './byte-mutations.ts';
import { mutateJsonDocument, mutateJsonLines, showValueMutation, valueMutation, type ValueMutation } from './json-mutations.ts';
import { describeThrown, readOrRefuse } from './refusal.ts';
import { RUN_ID, runFolderSeed, type RunFiles } from './run-folder-seed.ts';
import type { FuzzTarget } from './target.ts';

const STATUSES: RunStatus[] = ['starting', 'running', 'pausing', 'paused', 'stopped', 'finished', 'failed', 'interrupted'];
const FILES = ['status.json', 'config.json', 'events.jsonl', 'run.json', 'ops.json', 'checkpoints/4/state.json', 'checkpoints/4', 'checkpoints'];
const ODD_CHECKPOINTS = ['007', '0', '1e3', '-1', '12a', ' 5', '99999999999999999999', '9007199254740993', '4.0'];

export type RunFolderMutation =
  | { kind: 'bytes'; file: number; bytes: ByteMutation[] }
  | { kind: 'value'; file: number; value: ValueMutation }
  | { kind: 'remove'; file: number }
  | { kind: 'folder-instead'; file: number }
  | { kind: 'file-instead'; file: number }
  | { kind: 'checkpoint'; name: number; state: 'whole' | 'no-state' | 'a-file' };

export interface RunFolderCase {
  status: number;
  mutations: RunFolderMutation[];
}

const file = fc.integer({ min: 0, max: FILES.length - 1 });
const mutation: fc.Arbitrary<RunFolderMutation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('bytes' as const), file, bytes: fc.array(byteMutation, { minLength: 1, maxLength: 3 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('value' as const), file, value: valueMutation }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), file }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('folder-instead' as const), file }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('file-instead' as const), file }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('checkpoint' as const), name: fc.integer({ min: 0, max: ODD_CHECKPOINTS.length - 1 }), state: fc.constantFrom('whole' as const, 'no-state' as const, 'a-file' as const) }) },
);

function show(c: RunFolderCase): string {
  const parts = c.mutations.map((m) => {
    if (m.kind === 'checkpoint') return `checkpoint folder ${JSON.stringify(ODD_CHECKPOINTS[m.name])} (${m.state})`;
    const f = FILES[m.file];
    if (m.kind === 'bytes') return `${f}: ${m.bytes.map(showByteMutation).join(', ')}`;
    if (m.kind === 'value') return `${f}: ${showValueMutation(m.value)}`;
    return m.kind === 'remove' ? `${f} removed` : m.kind === 'folder-instead' ? `a folder in place of ${f}` : `a file in place of ${f}`;
  });
  return [`a ${STATUSES[c.status]} run`, ...parts].join('; ');
}

/** Applies the mutations to the seed's files; null for a path means "removed". */
function mutatedFiles(seed: RunFiles, c: RunFolderCase): Map<string, Uint8Array | null> {
  const out = new Map<string, Uint8Array | null>(seed);
  const under = (prefix: string) => [...out.keys()].filter((k) => k === prefix || k.startsWith(`${prefix}/`));
  for (const m of c.mutations) {
    if (m.kind === 'checkpoint') {
      const name = `checkpoints/${ODD_CHECKPOINTS[m.name]}`;
      if (m.state === 'a-file') out.set(name, new TextEncoder().encode('not a folder'));
      else out.set(`${name}/${m.state === 'whole' ? 'state.json' : 'adapter.gguf'}`, new TextEncoder().encode('{"step":7}\n'));
      continue;
    }
    const target = FILES[m.file];
    const current = out.get(target);
    if (m.kind !== 'bytes' && m.kind !== 'value') {
      for (const k of under(target)) out.set(k, null);
      if (m.kind === 'folder-instead') out.set(`${target}/.keep`, new Uint8Array(0));
      if (m.kind === 'file-instead') out.set(target, new TextEncoder().encode('a file\n'));
      continue;
    }
    if (!(current instanceof Uint8Array)) continue;
    if (m.kind === 'bytes') out.set(target, applyByteMutations(current, m.bytes));
    else {
      const text = new TextDecoder().decode(current);
      out.set(target, new TextEncoder().encode(target.endsWith('.jsonl') ? mutateJsonLines(text, m.value) : mutateJsonDocument(text, m.value)));
    }
  }
  return out;
}

export function runFolderTarget(): FuzzTarget<RunFolderCase> {
  const dir = mkdtempSync(join(tmpdir(), 'hone-fuzz-runs-'));
  const dataDir = join(dir, 'data');
  const folder = join(dataDir, 'runs', RUN_ID);
  const seeds = new Map<number, RunFiles>();
  const noHost = () => {
    throw new HoneError('internal', 'the fuzz target starts no engine host');
  };
  return {
    name: 'run-folder',
    arbitrary: fc.record({ status: fc.integer({ min: 0, max: STATUSES.length - 1 }), mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }) }),
    show,
    async check(c) {
      if (!seeds.has(c.status)) seeds.set(c.status, runFolderSeed(STATUSES[c.status], folder));
      rmSync(folder, { recursive: true, force: true });
      for (const [path, bytes] of mutatedFiles(seeds.get(c.status)!, c)) {
        if (bytes === null) continue;
        try {
          mkdirSync(dirname(join(folder, path)), { recursive: true });
          writeFileSync(join(folder, path), bytes);
        } catch {
          // two mutations asked for a file and a folder of one name: the first one stays
        }
      }
      return checkRunFolder(new NodeHoneService({ dataDir, hostFactory: noHost }), folder);
    },
    async close() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every reader of run folders on the one run in `folder`. */
async function checkRunFolder(service: NodeHoneService, folder: string): Promise<string | null> {
  let listed;
  try {
    listed = await service.runs.list();
  } catch (err) {
    return `runs.list failed over one broken run: ${describeThrown(err)}`;
  }
  const summary = listed.find((r) => r.id === RUN_ID);
  if (!summary) return 'runs.list does not list the run';
  if (summary.resumableStep !== null && !isCheckpoint(join(folder, 'checkpoints', String(summary.resumableStep)))) {
    return `the run is resumable from step ${summary.resumableStep}, but checkpoints/${summary.resumableStep} is not a checkpoint`;
  }
  // the adapter lookup names the file it could not use (config.json's model), not always the run
  const named = { where: [RUN_ID, 'config.json'] };
  for (const [what, read] of [
    ['runs.get', () => service.runs.get(RUN_ID)],
    ['the last step of the newest checkpoint', () => lastStepOf(join(folder, 'checkpoints', '4'))],
    ['runs.events', () => service.runs.events(RUN_ID)],
    ['runs.opReport', () => service.runs.opReport(RUN_ID)],
    ['the run adapter lookup (chat, export)', () => runAdapter(RUN_ID, () => folder, [], 'chat.generate')],
    ['the token statistics of the Axolotl export', () => notTrained(runTokenStats(folder))],
  ] as const) {
    const r = await readOrRefuse(read as () => Promise<unknown>, named);
    if ('problem' in r) return `${what}: ${r.problem}`;
  }
  return null;
}
