/**
 * A run's events log with a step record whose counters are not numbers (found by the fuzz
 * suite): bringing an interrupted run's status up to date compared an object with 0 and threw
 * a TypeError, so runs.list failed for every run. Such a line is now a bad_format error naming
 * file and line, and the run is still listed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HoneError } from '../../electron/common/errors.ts';
import { parseEventsLog } from '../../electron/services/runs/events-log.ts';
import { RunRegistry } from '../../electron/services/runs/registry.ts';
import { newStatusFile } from '../../electron/services/runs/run-status.ts';
import { tempFiles } from '../helpers/temp-files.ts';

const step = (extra: Record<string, unknown>) =>
  JSON.stringify({ seq: 1, at: '2026-12-01T12:00:00.000Z', segment: 0, event: { type: 'step', step: 1, nSteps: 4, loss: 3, tokens: 100, positions: 128, elapsedS: 1, ...extra } }) + '\n';

test('a step record whose elapsedS is an object is a bad_format naming the line', () => {
  const bytes = new TextEncoder().encode(step({ elapsedS: { toString: 1, valueOf: 2 } }) + step({}).replace('"seq":1', '"seq":2'));
  assert.throws(() => parseEventsLog(bytes, 'events.jsonl'), (e: unknown) => e instanceof HoneError && e.code === 'bad_format' && e.message.startsWith('events.jsonl:1:') && e.message.includes("'event.elapsedS'"));
});

test('a NaN loss (null in JSON) and a step without positions (older logs) still parse', () => {
  const bytes = new TextEncoder().encode(step({ loss: null, positions: undefined }));
  assert.equal(parseEventsLog(bytes, 'events.jsonl').records.length, 1);
});

test('a running run whose log has such a record is still listed after a restart (interrupted)', (t) => {
  const id = '20261201-120000-abcd';
  const config = { model: '/m.gguf', data: ['/d.jsonl'], steps: 4 } as never;
  const status = { ...newStatusFile(id, config, new Date('2026-12-01T12:00:00Z')), status: 'running' };
  const dir = tempFiles(t, { [`${id}/status.json`]: JSON.stringify(status), [`${id}/events.jsonl`]: step({ elapsedS: { toString: 1, valueOf: 2 } }) + step({}).replace('"seq":1', '"seq":2') });
  const registry = new RunRegistry(dir);
  const settled = registry.settle(registry.statusOrBroken(id), false);
  assert.equal(settled.status, 'interrupted');
});
