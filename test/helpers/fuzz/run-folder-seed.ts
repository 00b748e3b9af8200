/**
 * A run folder as a finished run leaves it (docs/run-folder.md), written by the project's own
 * writers: config.json, status.json (newStatusFile), events.jsonl (EventsLog), two checkpoints,
 * the adapter, run.json and ops.json. Its inputs are the real fixtures. Kept as bytes so each
 * fuzz case writes a fresh copy.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TokenStats, TrainConfig } from '../../../electron/common/engine-api.ts';
import type { RunStatus } from '../../../electron/common/runs.ts';
import { EventsLog } from '../../../electron/services/runs/events-log.ts';
import { newStatusFile, withEvent, withStatus } from '../../../electron/services/runs/run-status.ts';
import { fixturePath } from '../fixtures.ts';

export const RUN_ID = '20261201-120000-abcd';

/** Path in the run folder -> bytes. */
export type RunFiles = Map<string, Uint8Array>;

const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2) + '\n');

export function runFolderSeed(status: RunStatus, folder: string): RunFiles {
  const now = new Date('2026-12-01T12:00:00Z');
  const config = {
    model: fixturePath('stories260K.gguf'),
    data: [fixturePath('chat_elements_limericks.jsonl')],
    out: folder,
    evalData: [],
    evalSplit: 0.1,
    rank: 8,
    alpha: 16,
    lr: 0.001,
    steps: 4,
    ctx: 256,
    batch: 2,
    seed: 42,
    checkpointEvery: 2,
  } as unknown as TrainConfig;
  const stats: TokenStats = {
    examples: 10, sequences: 10, tokens: 1800, lossTokens: 900, ctx: 256, policy: 'drop', overLength: 1, truncated: 0, dropped: 1, chunked: 0,
    affected: [{ file: config.data[0], line: 3, outcome: 'dropped', tokens: 300, lossTokens: 120, lostLossTokens: 120 }],
    failed: [{ file: config.data[0], line: 7, code: 'bad_template', message: 'the template cannot render a tool message' }],
  } as TokenStats;
  const steps = [1, 2, 3, 4].map((step) => ({
    type: 'step' as const, step, nSteps: 4, loss: 6 - step, lr: 0.001, gradNorm: 1.5, tokens: 400 * step, positions: 512 * step,
    lossTokens: 200 * step, tokensPerS: 800, rowFill: 0.78, elapsedS: step / 2,
  }));

  // events.jsonl through the real writer, in a scratch folder
  const scratch = mkdtempSync(join(tmpdir(), 'hone-fuzz-seed-'));
  let events: Uint8Array;
  try {
    const log = EventsLog.open(join(scratch, 'events.jsonl'));
    log.append(0, { type: 'status', status: 'running' }, now);
    log.append(0, { type: 'tokens', stats }, now);
    for (const s of steps) {
      log.append(0, s, now);
      if (s.step % 2 === 0) log.append(0, { type: 'checkpoint', path: join(folder, 'checkpoints', String(s.step)), step: s.step, microBatch: 0 }, now);
    }
    log.append(0, { type: 'eval', step: 4, evalLoss: 2.5, lossTokens: 90, nSequences: 1 }, now);
    log.append(0, { type: 'status', status }, now);
    log.close();
    events = new Uint8Array(readFileSync(join(scratch, 'events.jsonl')));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  let st = newStatusFile(RUN_ID, config, now);
  for (const s of steps) st = withEvent(st, s);
  st = withStatus(st, status, status === 'failed' ? { code: 'out_of_memory', message: 'the plan did not fit' } : null, now);
  if (status === 'finished') st = { ...st, adapter: join(folder, 'adapter.gguf') };

  const files: RunFiles = new Map();
  files.set('config.json', json(config));
  files.set('status.json', json(st));
  files.set('events.jsonl', events);
  files.set('checkpoints/2/state.json', json({ step: 2, microBatch: 0, segment: 0 }));
  files.set('checkpoints/2/adapter.gguf', new Uint8Array(0));
  files.set('checkpoints/4/state.json', json({ step: 4, microBatch: 0, segment: 0 }));
  files.set('checkpoints/4/adapter.gguf', new Uint8Array(0));
  files.set('adapter.gguf', new Uint8Array(0));
  files.set('run.json', json({ schema: 'hone.run/1', writer: 'hone', status: 'completed', config, data: { format: 'openai-chat', tokens: stats }, metrics: { finalLoss: 2, steps: 4 } }));
  files.set('ops.json', json({ ops: [{ op: 'MUL_MAT', backend: 'CPU', count: 12 }] }));
  return files;
}
