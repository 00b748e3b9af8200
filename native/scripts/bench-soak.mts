/**
 * Soak benchmark (a script, not a test): a long run on stories260K through the service and the
 * engine host, sampling every `--every` steps the host's and the service's resident memory, the
 * run's events.jsonl size and the throughput. Prints a table and the growth after warm-up.
 *
 *   node --import tsx native/scripts/bench-soak.mts [--steps 20000] [--every 1000] [--model M.gguf]
 *
 * Memory must not grow after warm-up and tokens/s must not drift (docs/results/soak-cpu.md).
 */
import { readFileSync, statSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EngineHost } from '../../electron/services/engine/client.ts';
import { NodeHoneService } from '../../electron/services/hone-service.ts';

const arg = (name: string, def: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const steps = Number(arg('steps', '20000'));
const every = Number(arg('every', '1000'));
const model = resolve(arg('model', join(process.env.HONE_FIXTURES ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'fixtures'), 'stories260K.gguf')));

/** Resident memory of a process in MiB (Linux /proc: VmRSS and RssAnon, the process's own). */
function rss(pid: number): { rss: number; anon: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? NaN) / 1024;
  return { rss: kb('VmRSS'), anon: kb('RssAnon') };
}

const dir = mkdtempSync(join(tmpdir(), 'hone-soak-'));
const data = join(dir, 'stories.jsonl');
const lines = ['Once upon a time, there was a little dog named Max.', 'Max loved to run in the park with his red ball.',
  'One day, Max saw a big cat under a tree.', 'The cat was sad because it could not find its home.'];
writeFileSync(data, lines.map((text) => JSON.stringify({ text })).join('\n') + '\n');
let host: EngineHost | null = null;
const service = new NodeHoneService({ dataDir: join(dir, 'data'), home: dir, env: {}, hostFactory: () => (host = EngineHost.start()) });

const rows: Array<{ step: number; tps: number; hostRss: number; hostAnon: number; svcRss: number; eventsKiB: number }> = [];
let windowTokens = 0, windowStart = performance.now();
const run = await service.runs.start({ model, data: [data], steps, ctx: 32, rank: 4, targets: 'all', lr: 1e-3, backend: 'cpu', threads: 1, checkpointEvery: 5000, keepCheckpoints: 1 });
const eventsFile = join(dir, 'data', 'runs', run.id, 'events.jsonl');
const done = new Promise<void>((resolveDone) => {
  service.subscribe((e) => {
    if (e.type === 'run-status' && ['finished', 'failed', 'interrupted'].includes(e.run.status)) resolveDone();
    if (e.type !== 'run' || e.record.event.type !== 'step') return;
    const s = e.record.event;
    windowTokens += 32;
    if (s.step % every !== 0) return;
    const now = performance.now();
    const h = rss(host!.pid!), me = rss(process.pid);
    rows.push({ step: s.step, tps: windowTokens / ((now - windowStart) / 1000), hostRss: h.rss, hostAnon: h.anon, svcRss: me.rss, eventsKiB: statSync(eventsFile).size / 1024 });
    windowTokens = 0;
    windowStart = now;
  });
});
await done;
const final = await service.runs.get(run.id);
await service.dispose();

console.log(`soak: ${steps} steps of stories260K (ctx 32, rank 4, all targets, 1 thread) through the service and the engine host; ${final.status}`);
console.log('step     tok/s   host RSS MiB  host anon MiB  service RSS MiB  events.jsonl KiB');
for (const r of rows) {
  console.log(`${String(r.step).padEnd(8)} ${r.tps.toFixed(0).padStart(6)} ${r.hostRss.toFixed(1).padStart(13)} ${r.hostAnon.toFixed(1).padStart(14)} ${r.svcRss.toFixed(1).padStart(16)} ${r.eventsKiB.toFixed(0).padStart(17)}`);
}
const warm = rows.find((r) => r.step >= Math.min(2000, steps / 5)) ?? rows[0];
const last = rows.at(-1)!;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const half = Math.floor(rows.length / 2);
console.log(`after warm-up (step ${warm.step} -> ${last.step}): host RSS ${(last.hostRss - warm.hostRss).toFixed(1)} MiB, host anon ${(last.hostAnon - warm.hostAnon).toFixed(1)} MiB, service RSS ${(last.svcRss - warm.svcRss).toFixed(1)} MiB`);
console.log(`tok/s median: first half ${median(rows.slice(0, half).map((r) => r.tps)).toFixed(0)}, second half ${median(rows.slice(half).map((r) => r.tps)).toFixed(0)}`);
console.log(`events.jsonl: ${(last.eventsKiB / last.step * 1024).toFixed(0)} bytes per step`);
rmSync(dir, { recursive: true, force: true });
