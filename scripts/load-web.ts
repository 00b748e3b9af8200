/**
 * Web mode under load, against the real engine: `hone serve` on a scratch data folder, a short
 * CPU training run started through the API, then for S seconds N WebSocket callers, senders of
 * broken frames, slow readers that never read, uploaders of bad and large files and a probe
 * timing a cheap request, all on loopback. Prints what was sent, what came back, the probe's
 * latency, the server's memory and whether anything was written outside the data folder.
 *
 *   node --import tsx scripts/load-web.ts [--clients N] [--seconds S] [--large-upload-mib M] [--keep]
 *
 * Exits 1 when a failure was counted, the server died or a file appeared outside the data folder.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { fixturePath } from '../test/helpers/fixtures.ts';
import { largeUpload, uploader } from './load-web/http-clients.ts';
import type { ProbeInput, ProbeResult } from './load-web/probe-worker.ts';
import { RpcClient } from './load-web/rpc-client.ts';
import { mainHeapAfterGc, RssSampler, startServe } from './load-web/serve-process.ts';
import { caller, frameBreaker, slowReader } from './load-web/socket-clients.ts';
import { percentile, Tally } from './load-web/tally.ts';
import { changedPaths, listTree } from './load-web/tree-listing.ts';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const v = Number(process.argv[i + 1]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} needs a number, not ${process.argv[i + 1]}`);
  return v;
}

const clients = option('--clients', 50);
const seconds = option('--seconds', 20);
const largeMiB = option('--large-upload-mib', 256);
const keep = process.argv.includes('--keep');
// a tenth of the callers' count each, at least one, so every kind of trouble is present
const extra = Math.max(1, Math.round(clients / 10));

const SENTENCES = ['Once upon a time, there was a little dog named Max.', 'Max loved to run in the park with his red ball.', 'One day, Max saw a big cat under a tree.'];

const ENDED = ['finished', 'stopped', 'paused', 'failed', 'interrupted'];

const fmt = (v: number) => (Number.isNaN(v) ? '-' : v.toFixed(1));

/** The probe in its own thread; its figures join the tally when it is done. */
function runProbe(input: ProbeInput, tally: Tally): Promise<void> {
  // a worker's entry is loaded before --import hooks apply to it: register tsx, then load the .ts
  const entry = new URL('./load-web/probe-worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: input });
  return new Promise((resolve, reject) => {
    worker.once('message', (r: ProbeResult) => {
      for (const ms of r.latencies) {
        tally.sent('http GET / (probe)');
        tally.took('http GET / (probe)', ms);
      }
      for (const f of r.failures) tally.failed(f);
      resolve();
    });
    worker.once('error', reject);
  });
}

async function main(): Promise<number> {
  const model = fixturePath('stories260K.gguf');
  const scratch = mkdtempSync(join(tmpdir(), 'hone-load-'));
  const dataDir = join(scratch, 'data');
  for (const d of ['home', 'tmp', 'inputs']) mkdirSync(join(scratch, d));
  const data = join(scratch, 'inputs', 'stories.jsonl');
  writeFileSync(data, SENTENCES.map((text) => JSON.stringify({ text })).join('\n') + '\n');
  const before = listTree(scratch, [dataDir]);

  // HOME and TMPDIR inside the scratch folder: a write there shows in the listing. tsx (which runs
  // this checkout's TypeScript) keeps a compile cache in TMPDIR; a built install has none.
  const env = { HOME: join(scratch, 'home'), TMPDIR: join(scratch, 'tmp'), HONE_DATA_DIR: dataDir, TSX_DISABLE_CACHE: '1' };
  const server = await startServe(repoRoot, dataDir, env);
  const a = { port: server.port, host: server.host, token: server.token };
  const rss = new RssSampler(server.child.pid!);
  const tally = new Tally();
  const control = await RpcClient.open(a);

  // a run long enough to outlast the load; stopped at the end
  const started = await control.call('runs.start', [{ model, data: [data], steps: 1_000_000, ctx: 32, rank: 4, targets: 'all', lr: 1e-2, backend: 'cpu', threads: 1, checkpointEvery: 500 }]);
  if (!started.ok) throw new Error(`runs.start: ${started.error.code}: ${started.error.message}`);
  const runId = (started.result as { id: string }).id;
  for (let i = 0; i < 600; i++) {
    const r = await control.call('runs.get', [runId]);
    if (r.ok && ((r.result as { step?: number }).step ?? 0) > 0) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const rssStart = rss.sample();

  let running = true;
  const loadStart = Date.now();
  const stopAt = loadStart + seconds * 1000;
  const isRunning = () => running && Date.now() < stopAt;
  const callerJobs = Array.from({ length: clients }, () => caller(a, runId, tally, isRunning));
  const others = [
    runProbe({ ...a, stopAt }, tally),
    ...Array.from({ length: extra }, () => frameBreaker(a, tally, isRunning)),
    ...Array.from({ length: extra }, () => slowReader(a, runId, tally, isRunning)),
    ...Array.from({ length: extra }, () => uploader(a, tally, control, join(dataDir, 'uploads'), isRunning)),
    ...(largeMiB > 0 ? [largeUpload(a, tally, largeMiB * 1024 * 1024)] : []),
  ];
  const events = (await Promise.all(callerJobs)).reduce((x, y) => x + y, 0);
  await Promise.all(others);
  running = false;

  const stopped = await control.call('runs.stop', [runId]);
  for (let i = 0; i < 600; i++) {
    const r = await control.call('runs.get', [runId]);
    if (r.ok && ENDED.includes((r.result as { status: string }).status)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const step = ((await control.call('runs.get', [runId])) as { result?: { step?: number; status?: string } }).result;
  // a few seconds for the dropped sockets and finished uploads to be let go
  await new Promise((r) => setTimeout(r, 3000));
  const rssEnd = rss.sample();
  rss.stop();
  const alive = server.child.exitCode === null && server.child.signalCode === null;
  const last = await control.call('runs.list', []).then((r) => r.ok, () => false);
  control.close();
  server.child.kill('SIGTERM');
  const exit = await Promise.race([server.exited, new Promise((r) => setTimeout(r, 90_000)).then(() => 'none in 90 s')]);
  if (exit === 'none in 90 s') server.child.kill('SIGKILL');

  const heap = mainHeapAfterGc(server.heapAfterGc);
  const uploads = readdirSync(join(dataDir, 'uploads'));
  const strays = changedPaths(before, listTree(scratch, [dataDir]));
  const drops = server.stderr.filter((l) => /dropped a WebSocket client/.test(l)).length;
  const wsErrors = server.stderr.filter((l) => /websocket error/.test(l)).length;

  const lines = [
    `web mode under load: ${seconds} s, ${clients} callers + ${extra} frame breakers + ${extra} slow readers + ${extra} uploaders + ${largeMiB > 0 ? `1 upload of ${largeMiB} MiB + ` : ''}1 probe, on 127.0.0.1`,
    `run: ${runId}, stories260K, CPU, 1 thread; ${stopped.ok ? 'stopped' : 'stop failed'} at step ${step?.step} (${step?.status})`,
    `requests: ${tally.total(tally.requests)} (events received by callers: ${events})`,
    ...[...tally.requests].sort().map(([k, v]) => `  ${k}: ${v}`),
    `answers as expected (refusals included): ${tally.total(tally.expected)}`,
    ...[...tally.expected].sort().map(([k, v]) => `  ${k}: ${v}`),
    `failures: ${tally.total(tally.failures)}`,
    ...[...tally.failures].sort().map(([k, v]) => `  ${k}: ${v}`),
    'latency ms (p50 / p99 / max):',
    ...[...tally.latencies].sort().map(([k, v]) => `  ${k}: ${fmt(percentile(v, 0.5))} / ${fmt(percentile(v, 0.99))} / ${fmt(Math.max(...v))} (n=${v.length})`),
    `server RSS MiB: start ${fmt(rssStart)}, peak ${fmt(rss.peak)}, end ${fmt(rssEnd)} (${rss.samples.length} samples every 100 ms)`,
    `server RSS MiB, peak of each fifth of the load: ${rss.peaksBetween(loadStart, stopAt, 5).map(fmt).join(', ')}`,
    `server live heap MB after each full GC (${heap.length}): first ${fmt(heap[0])}, max ${fmt(Math.max(...heap))}, last ${fmt(heap[heap.length - 1])}`,
    `server log: ${drops} slow readers dropped, ${wsErrors} websocket protocol errors logged`,
    `server alive after the load: ${alive && last ? 'yes, and answering' : 'NO'}; exit after SIGTERM: ${exit}`,
    `uploads/ after: ${uploads.length} files, ${uploads.filter((f) => f.endsWith('.part')).length} partial`,
    `written outside the data folder: ${strays.length === 0 ? 'nothing' : strays.join(', ')}`,
  ];
  console.log(lines.join('\n'));
  if (keep) console.log(`kept ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
  const ok = tally.total(tally.failures) === 0 && alive && last && exit === 0 && strays.length === 0;
  return ok ? 0 : 1;
}

process.exitCode = await main();
