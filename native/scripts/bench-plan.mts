/**
 * How fast the plan answers as a person edits settings (a script, not a test): the engine
 * host's `plan` on a model, first (loads the model), then after each kind of edit (the model
 * stays loaded), timed in the host and as the caller sees it.
 *
 *   node --import tsx native/scripts/bench-plan.mts MODEL.gguf [MODEL.gguf ...]
 */
import { statSync } from 'node:fs';
import { basename } from 'node:path';
import type { TrainConfig } from '../../electron/common/engine-api.ts';
import { EngineHost } from '../../electron/services/engine/client.ts';

const models = process.argv.slice(2);
if (!models.length) throw new Error('usage: bench-plan.mts MODEL.gguf [MODEL.gguf ...]');
const host = EngineHost.start();
try {
  const { defaults } = await host.request('capabilities', {});
  for (const model of models) {
    const base: TrainConfig = { ...defaults, model, data: ['unused.txt'], backend: 'cpu', ctx: 512, rank: 8 };
    const edits: Array<[string, Partial<TrainConfig>]> = [
      ['first plan (loads the model)', {}],
      ['the same settings again', {}],
      ['context 512 -> 1024', { ctx: 1024 }],
      ['rank 8 -> 16', { rank: 16 }],
      ['targets: attention only', { targets: 'attn_q,attn_k,attn_v,attn_output' }],
      ['batch 1 -> 4 (micro-batch 4)', { batch: 4 }],
    ];
    console.log(`${basename(model)} (${(statSync(model).size / 2 ** 30).toFixed(2)} GiB)`);
    for (const [what, edit] of edits) {
      const t0 = performance.now();
      const p = await host.request('plan', { config: { ...base, ...edit } });
      const wall = performance.now() - t0;
      const cpu = p.pools.find((x) => x.pool === 'CPU')!;
      const nodes = (p.ops as { n_nodes: number }).n_nodes;
      console.log(`  ${what.padEnd(32)} host ${p.elapsedMs.toFixed(0).padStart(6)} ms, caller ${wall.toFixed(0).padStart(6)} ms, ` +
        `cached ${String(p.cached).padEnd(5)} plan ${(cpu.planBytes / 2 ** 20).toFixed(0).padStart(6)} MiB, ${nodes} nodes, fits ${p.fits}`);
    }
  }
} finally {
  host.kill();
}
