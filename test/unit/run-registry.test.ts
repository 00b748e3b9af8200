/**
 * The run registry's parts that need no engine: run ids, status after a restart, reading an
 * events log a crash cut short, the path check of delete, and settings.json. The service is
 * used here with a host factory that refuses, so nothing here starts an engine host.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { TrainConfig } from '../../electron/common/engine-api.ts';
import { HoneError } from '../../electron/common/errors.ts';
import type { RunEventRecord } from '../../electron/common/runs.ts';
import { validateCall } from '../../electron/common/validate.ts';
import { NodeHoneService } from '../../electron/services/hone-service.ts';
import { EventsLog, parseEventsLog, readEventsLog } from '../../electron/services/runs/events-log.ts';
import { RunRegistry } from '../../electron/services/runs/registry.ts';
import { makeRunId, newestFirst, RUN_ID_PATTERN } from '../../electron/services/runs/run-id.ts';
import { createRunFolder, removeRunFolder, runFolder } from '../../electron/services/runs/run-folder.ts';
import { afterRestart, newStatusFile, type RunStatusFile } from '../../electron/services/runs/run-status.ts';
import { loadSettings, saveSettings } from '../../electron/services/settings-file.ts';
import { tempFiles } from '../helpers/temp-files.ts';

// the fields a status file takes from a config; the rest is the engine's business
const CONFIG = { model: '/models/base.gguf', data: ['/data/chats.jsonl'], out: '/runs/x', steps: 20 } as TrainConfig;
const code = (c: string) => (e: unknown) => (e as HoneError).code === c;

function noHost(): never {
  throw new HoneError('internal', 'unit tests start no engine host');
}

function step(n: number, loss: number) {
  return { type: 'step' as const, step: n, nSteps: 20, loss, lr: 1e-3, gradNorm: 1, tokens: 32 * n, positions: 64 * n, lossTokens: 31 * n, tokensPerS: 100, rowFill: 0.5, elapsedS: n };
}

/** A run folder as a service that died mid-run leaves it: status.json at `status`, some events. */
function deadRun(root: string, status: RunStatusFile['status'], at: Date): RunStatusFile {
  const { id, folder } = createRunFolder(root, at);
  const st = { ...newStatusFile(id, { ...CONFIG, out: folder }, at), status };
  writeFileSync(join(folder, 'status.json'), JSON.stringify(st));
  writeFileSync(join(folder, 'config.json'), JSON.stringify({ ...CONFIG, out: folder }));
  const log = EventsLog.open(join(folder, 'events.jsonl'));
  log.append(0, { type: 'status', status: 'starting' }, at);
  log.append(0, { type: 'status', status: 'running' }, at);
  log.append(0, step(1, 3.5), at);
  log.append(0, step(2, 3.25), at);
  log.append(0, { type: 'eval', step: 2, evalLoss: 3.3, lossTokens: 10, nSequences: 2 }, at);
  log.close();
  return st;
}

describe('run ids', () => {
  test('are the UTC start time and 4 hex digits, pass the service validator, and sort by time', () => {
    const id = makeRunId(new Date(Date.UTC(2026, 11, 1, 14, 22, 33)), 'ab12');
    assert.equal(id, '20261201-142233-ab12');
    assert.doesNotThrow(() => validateCall('runs.get', [id]));
    const times = [Date.UTC(2025, 0, 9, 23, 59, 59), Date.UTC(2025, 0, 10, 0, 0, 0), Date.UTC(2026, 10, 30, 8, 5, 1)];
    const ids = times.map((t) => makeRunId(new Date(t)));
    ids.forEach((i) => assert.match(i, RUN_ID_PATTERN));
    assert.deepEqual([...ids].sort(), ids, 'lexical order is time order');
    assert.throws(() => makeRunId(new Date(), 'xyz!'), /4 hex digits/);
  });

  test('two runs made in the same second get different folders; lists put the newest first', (t) => {
    const root = join(tempFiles(t), 'runs');
    const now = new Date(Date.UTC(2026, 0, 1, 0, 0, 0));
    const made = Array.from({ length: 20 }, () => createRunFolder(root, now).id);
    assert.equal(new Set(made).size, 20);
    assert.equal(readdirSync(root).length, 20);
    const runs = [
      { id: '20260101-000000-aaaa', createdAt: '2026-01-01T00:00:00.100Z' },
      { id: '20260101-000000-0000', createdAt: '2026-01-01T00:00:00.900Z' },
      { id: '20270101-000000-ffff', createdAt: '2027-01-01T00:00:00.000Z' },
    ];
    assert.deepEqual([...runs].sort(newestFirst).map((r) => r.id), ['20270101-000000-ffff', '20260101-000000-0000', '20260101-000000-aaaa']);
  });
});

describe('status after a restart', () => {
  test('a live status no host of this service runs becomes interrupted, with the counters of its last events', () => {
    const at = new Date(Date.UTC(2026, 0, 1));
    const st = { ...newStatusFile('20260101-000000-abcd', CONFIG, at), status: 'running' as const, step: 1, lastLoss: 3.5 };
    const records: RunEventRecord[] = [step(1, 3.5), step(7, 2.75), { type: 'eval' as const, step: 5, evalLoss: 2.9, lossTokens: 9, nSequences: 1 }]
      .map((event, i) => ({ seq: i + 1, at: at.toISOString(), segment: 0, event }));
    const later = new Date(Date.UTC(2026, 0, 2));
    const next = afterRestart(st, false, records, later)!;
    assert.equal(next.status, 'interrupted');
    assert.equal(next.error?.code, 'host_exited');
    assert.match(next.error!.message, /the service ended while the run was running/);
    assert.deepEqual([next.step, next.lastLoss, next.lastEvalLoss, next.updatedAt], [7, 2.75, 2.9, later.toISOString()]);
    // the run's speed counts real tokens only: 224 real of 448 positions in 7 s
    assert.deepEqual([next.tokensPerS, next.rowFill], [32, 0.5]);
    // events logged before real-token counts (no positions) claim no speed
    const { positions: _p, rowFill: _f, ...old } = step(7, 2.75);
    const fromOld = afterRestart(st, false, [{ seq: 1, at: at.toISOString(), segment: 0, event: old as RunEventRecord['event'] }], later)!;
    assert.deepEqual([fromOld.tokensPerS, fromOld.rowFill], [null, null]);
    assert.equal(afterRestart(st, true, records, later), null, 'a run this service runs stays as it is');
    for (const s of ['finished', 'stopped', 'paused', 'failed', 'interrupted'] as const) assert.equal(afterRestart({ ...st, status: s }, false, records, later), null, s);
    assert.equal(afterRestart({ ...st, status: 'pausing' }, false, [], later)!.status, 'interrupted');
  });

  test('a new service lists a run cut off mid-run as interrupted, writes it down once, with a status record that continues the log', async (t) => {
    const dataDir = tempFiles(t);
    const st = deadRun(join(dataDir, 'runs'), 'running', new Date(Date.UTC(2026, 0, 1)));
    const folder = join(dataDir, 'runs', st.id);
    mkdirSync(join(folder, 'checkpoints', '2'), { recursive: true });
    writeFileSync(join(folder, 'checkpoints', '2', 'state.json'), '{}');
    mkdirSync(join(folder, 'checkpoints', '3')); // no state.json: not a checkpoint

    const service = new NodeHoneService({ dataDir, hostFactory: noHost });
    const [run] = await service.runs.list();
    assert.equal(run.status, 'interrupted');
    assert.equal(run.resumableStep, 2);
    assert.deepEqual([run.step, run.lastLoss, run.lastEvalLoss], [2, 3.25, 3.3]);
    const onDisk = JSON.parse(readFileSync(join(folder, 'status.json'), 'utf8'));
    assert.equal(onDisk.status, 'interrupted');
    const events = await service.runs.events(st.id);
    assert.deepEqual(events.map((r) => r.seq), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(events.at(-1)!.event, { type: 'status', status: 'interrupted', error: onDisk.error });

    const again = await new NodeHoneService({ dataDir, hostFactory: noHost }).runs.list();
    assert.deepEqual(again, [run], 'a second restart changes nothing');
    assert.equal((await service.runs.events(st.id)).length, 6);
  });

  test('a folder with a broken status.json is listed as failed naming the file, and the file is left as it was', async (t) => {
    const dataDir = tempFiles(t);
    const good = deadRun(join(dataDir, 'runs'), 'finished', new Date(Date.UTC(2026, 0, 1)));
    const broken = deadRun(join(dataDir, 'runs'), 'finished', new Date(Date.UTC(2026, 0, 2)));
    const file = join(dataDir, 'runs', broken.id, 'status.json');
    writeFileSync(file, '{"version": 1, "id": ');
    mkdirSync(join(dataDir, 'runs', 'not-a-run'));
    const service = new NodeHoneService({ dataDir, hostFactory: noHost });
    const list = await service.runs.list();
    assert.deepEqual(list.map((r) => r.id).sort(), [good.id, broken.id].sort());
    const shown = list.find((r) => r.id === broken.id)!;
    assert.equal(shown.status, 'failed');
    assert.equal(shown.error?.code, 'bad_format');
    assert.ok(shown.error!.message.includes(file), shown.error!.message);
    assert.equal(readFileSync(file, 'utf8'), '{"version": 1, "id": ');
    await assert.rejects(service.runs.resume(broken.id), (e: HoneError) => e.code === 'invalid_argument' && /is failed|checkpoint/.test(e.message));
  });
});

describe('the events log', () => {
  test('a torn last line is skipped by readers; opening to append cuts it off and numbering goes on', (t) => {
    const dir = tempFiles(t);
    const path = join(dir, 'events.jsonl');
    const log = EventsLog.open(path);
    for (let i = 1; i <= 3; i++) log.append(0, step(i, 4 - i / 10));
    log.close();
    const whole = readFileSync(path, 'utf8');
    writeFileSync(path, whole + '{"seq":4,"at":"2026-01-0');
    assert.deepEqual(readEventsLog(path).map((r) => r.seq), [1, 2, 3]);
    assert.deepEqual(readEventsLog(path, 2).map((r) => r.seq), [3]);
    const parsed = parseEventsLog(readFileSync(path), path);
    assert.equal(parsed.torn, true);
    assert.equal(parsed.goodBytes, Buffer.byteLength(whole));

    const again = EventsLog.open(path);
    assert.equal(again.lastSeq, 3);
    assert.equal(again.append(0, { type: 'status', status: 'finished' }).seq, 4);
    again.close();
    again.close(); // safe twice
    assert.deepEqual(readEventsLog(path).map((r) => r.seq), [1, 2, 3, 4]);
    assert.ok(readFileSync(path, 'utf8').endsWith('"finished"}}\n'));
  });

  test('a whole record missing only its newline is kept; a broken line before the last is an error naming file and line', (t) => {
    const dir = tempFiles(t);
    const path = join(dir, 'events.jsonl');
    const rec = (seq: number) => JSON.stringify({ seq, at: '2026-01-01T00:00:00.000Z', segment: 0, event: step(seq, 3) });
    writeFileSync(path, `${rec(1)}\n${rec(2)}`);
    assert.deepEqual(readEventsLog(path).map((r) => r.seq), [1, 2]);
    const log = EventsLog.open(path);
    log.append(0, step(3, 2));
    log.close();
    assert.deepEqual(readEventsLog(path).map((r) => r.seq), [1, 2, 3]);

    writeFileSync(path, `${rec(1)}\nnot json\n${rec(3)}\n`);
    assert.throws(() => readEventsLog(path), (e: HoneError) => e.code === 'bad_format' && e.message.startsWith(`${path}:2: `));
    writeFileSync(path, `${rec(2)}\n${rec(2)}\n`);
    assert.throws(() => readEventsLog(path), (e: HoneError) => e.code === 'bad_format' && /:2: .*'seq' 2 does not follow 2/.test(e.message));
    assert.deepEqual(readEventsLog(join(dir, 'none.jsonl')), [], 'no log yet: no events');
  });
});

describe('deleting a run', () => {
  test('the folder must be one name directly inside the runs folder', (t) => {
    const root = join(tempFiles(t), 'runs');
    assert.equal(runFolder(root, '20260101-000000-abcd'), join(root, '20260101-000000-abcd'));
    for (const id of ['..', '.', '', '../x', 'a/b', '/etc', 'a/../..']) {
      assert.throws(() => runFolder(root, id), code('invalid_argument'), id);
    }
  });

  test('removes the run folder only: a link inside is removed, its target stays; a link planted as a run is refused', (t) => {
    const dataDir = tempFiles(t, { 'model.gguf': 'weights', 'data.jsonl': '{"text":"x"}\n', 'elsewhere/keep.txt': 'keep' });
    const root = join(dataDir, 'runs');
    const { id, folder } = createRunFolder(root);
    symlinkSync(join(dataDir, 'model.gguf'), join(folder, 'model-link.gguf'));
    symlinkSync(join(dataDir, 'elsewhere'), join(folder, 'linked-folder'));
    removeRunFolder(root, id);
    assert.equal(existsSync(folder), false);
    assert.equal(readFileSync(join(dataDir, 'model.gguf'), 'utf8'), 'weights');
    assert.equal(readFileSync(join(dataDir, 'elsewhere', 'keep.txt'), 'utf8'), 'keep');

    symlinkSync(join(dataDir, 'elsewhere'), join(root, '20260101-000000-beef'));
    assert.throws(() => removeRunFolder(root, '20260101-000000-beef'), (e: HoneError) => e.code === 'invalid_argument' && /symbolic link/.test(e.message));
    assert.equal(readFileSync(join(dataDir, 'elsewhere', 'keep.txt'), 'utf8'), 'keep');
    assert.throws(() => removeRunFolder(root, '20260101-000000-0000'), code('not_found'));
  });

  test('the service refuses ids that climb and unknown ids', async (t) => {
    const dataDir = tempFiles(t);
    const service = new NodeHoneService({ dataDir, hostFactory: noHost });
    await assert.rejects(service.runs.delete('../x'), code('invalid_argument'));
    await assert.rejects(service.runs.delete('..'), code('invalid_argument'));
    await assert.rejects(service.runs.delete('20260101-000000-abcd'), code('not_found'));
    await assert.rejects(service.runs.get('20260101-000000-abcd'), code('not_found'));
    await assert.rejects(service.runs.events('20260101-000000-abcd'), code('not_found'));
    assert.deepEqual(await service.runs.list(), []);
    assert.equal(new RunRegistry(join(dataDir, 'runs')).ids().length, 0);
  });
});

describe('settings.json', () => {
  test('missing: empty settings; saved: read back with unknown keys kept and no temporary file left', (t) => {
    const dir = tempFiles(t);
    assert.deepEqual(loadSettings(dir), { settings: { modelFolders: [] }, warnings: [] });
    saveSettings(dir, { modelFolders: ['/models/a'], theme: 'dark' });
    assert.deepEqual(loadSettings(dir), { settings: { modelFolders: ['/models/a'], theme: 'dark' }, warnings: [] });
    assert.deepEqual(readdirSync(dir), ['settings.json']);
  });

  for (const [what, text] of [
    ['not JSON', '{"modelFolders": ["/models/a"'],
    ['a relative folder', '{"modelFolders": ["models"]}'],
    ['not an object', '[1, 2]'],
  ] as const) {
    test(`${what}: a warning naming the file, the file kept aside as settings.json.bad with the same bytes`, (t) => {
      const dir = tempFiles(t, { 'settings.json': text });
      const { settings, warnings } = loadSettings(dir);
      assert.deepEqual(settings, { modelFolders: [] });
      assert.equal(warnings.length, 1);
      assert.ok(warnings[0].startsWith(join(dir, 'settings.json') + ': '), warnings[0]);
      assert.match(warnings[0], /settings\.json\.bad/);
      assert.equal(readFileSync(join(dir, 'settings.json.bad'), 'utf8'), text);
      assert.equal(existsSync(join(dir, 'settings.json')), false);
    });
  }

  test('the service shows the warning in the model list, remembers added folders, and a new service reads them', async (t) => {
    const dataDir = tempFiles(t, { 'settings.json': '{oops', 'models/x.txt': 'not a model' });
    const home = tempFiles(t);
    const service = new NodeHoneService({ dataDir, hostFactory: noHost, home, env: {} });
    const first = await service.models.list();
    assert.ok(first.warnings.some((w) => w.includes('settings.json') && w.includes('.bad')), first.warnings.join('\n'));
    const folder = join(dataDir, 'models');
    const after = await service.models.addFolder(folder);
    assert.ok(after.roots.some((r) => r.source === 'folder' && r.path === folder && r.exists));
    assert.deepEqual(JSON.parse(readFileSync(join(dataDir, 'settings.json'), 'utf8')).modelFolders, [folder]);
    await assert.rejects(service.models.addFolder(join(dataDir, 'missing')), (e: HoneError) => e.code === 'io_error' && e.message.includes(join(dataDir, 'missing')));
    await assert.rejects(service.models.addFolder('relative/models'), code('invalid_argument'));
    const reread = await new NodeHoneService({ dataDir, hostFactory: noHost, home, env: {} }).models.list();
    assert.deepEqual(reread.warnings, []);
    assert.ok(reread.roots.some((r) => r.path === folder));
  });
});
