#!/usr/bin/env node
// Scans every architecture the pinned llama.cpp knows: `hone-train probe-arch` makes a tiny
// model of each by answering the loader, then lists the ops of llama.cpp's graph that ggml
// cannot differentiate. Writes docs/results/architecture-scan.json and prints a Markdown
// table (docs/architectures.md quotes it). About 5 s per architecture, two at a time.
//   node native/scripts/scan-architectures.mjs [--only a,b,c]   (--only: updates those entries)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareLlamaSource } from './llama-source.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = path.join(root, 'native/bin');
const vocabs = ['llama-spm', 'llama-bpe', 'qwen2', 'phi-3'].map((v) => path.join(bin, 'vocab', `${v}.gguf`));
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1].split(',') : null;

const { src, tag } = prepareLlamaSource(path.join(root, 'native/patches'));
const archSource = fs.readFileSync(path.join(src, 'src/llama-arch.cpp'), 'utf8');
const arches = [...archSource.matchAll(/\{\s*LLM_ARCH_[A-Z0-9_]+,\s*"([^"]+)"\s*\}/g)].map((m) => m[1])
  .filter((a) => a !== '(unknown)' && (!only || only.includes(a)));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hone-arch-scan-'));

// Loaders that read tensors their graph needs as optional (no complaint when absent, a crash in
// the graph) and sizes the probe's guesses do not make consistent: Qwen3.5's gated delta-net
// layers (3 of every 4) need attn_qkv and attn_gate, and SSM sizes that fit its heads.
const DELTA_NET = ['--kv', 'block_count=4,ssm.conv_kernel=4,ssm.state_size=16,ssm.group_count=2,ssm.time_step_rank=4,ssm.inner_size=64',
  '--layer-tensors', 'attn_qkv.weight@0:1:2,attn_gate.weight@0:1:2'];
const HINTS = { qwen35: DELTA_NET, qwen35moe: DELTA_NET };

function probe(arch, vocab, experts) {
  return new Promise((resolve) => {
    const out = path.join(work, `${arch}.gguf`);
    const args = ['probe-arch', '--arch', arch, '--vocab-from', vocab, '--out', out, '--json', ...(experts ? ['--experts'] : []), ...(HINTS[arch] ?? [])];
    const child = spawn(path.join(bin, 'hone-train'), args,
      { stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
    let stdout = '', stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('close', (code, signal) => {
      fs.rmSync(out, { force: true });
      const line = stdout.trim().split('\n').pop() ?? '';
      try {
        const r = JSON.parse(line);
        if (r.type === 'probe') return resolve(r);
      } catch { /* not JSON: the process died */ }
      const lines = stderr.trim().split('\n').filter(Boolean);
      // ggml's message, unwrapped from the engine's fatal report (written for training runs)
      const own = lines.map((l) => l.replace(/^hone: fatal: the engine stopped on an internal error \((.*)\)\. Resume the run.*$/, '$1'));
      const last = (own.find((l) => /GGML_ASSERT|GGML_ABORT/.test(l)) ?? own.find((l) => /error|failed/i.test(l)) ?? own.pop() ?? '')
        .replace(/^.*\/src\/llama\.cpp-[^/]+\//, '');
      resolve({ arch, status: 'aborted', error: `${signal ? `killed by ${signal}` : `exit ${code}`}: ${last.slice(0, 200)}`, ops: [], no_backward: [] });
    });
  });
}

async function scan(arch) {
  let r;
  // A MoE architecture whose loader accepts zero experts would be scanned as a dense model.
  const moe = /moe/i.test(arch);
  for (const v of vocabs) {
    r = await probe(arch, v, moe);
    if (!/vocabulary|tokenizer/i.test(r.error ?? '')) break; // another tokenizer only when the vocab was the problem
  }
  // Some MoE loaders abort (an assert) instead of asking for their expert counts.
  if (r.status === 'aborted' && /expert/i.test(r.error)) r = await probe(arch, vocabs[0], true);
  process.stderr.write(`${arch}: ${r.status}${r.no_backward?.length ? ` (${r.no_backward.join(', ')})` : ''}${r.status === 'not_loaded' || r.status === 'aborted' || r.status === 'not_scanned' ? ` - ${r.error}` : ''}\n`);
  return r;
}

const results = [];
const queue = [...arches];
await Promise.all([0, 1].map(async () => {
  while (queue.length) results.push(await scan(queue.shift()));
}));
fs.rmSync(work, { recursive: true, force: true });
results.sort((a, b) => a.arch.localeCompare(b.arch));

// --only updates those architectures' entries in the results file; a full scan rewrites it
const file = path.join(root, 'docs/results/architecture-scan.json');
const kept = only && fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')).results.filter((r) => !only.includes(r.arch)) : [];
const all = [...kept, ...results].sort((a, b) => a.arch.localeCompare(b.arch));
fs.writeFileSync(file, JSON.stringify({ llama_cpp: tag, generated_by: 'native/scripts/scan-architectures.mjs', results: all }, null, 1) + '\n');
const why = (r) => r.status === 'blocked' ? `no backward: ${r.no_backward.join(', ')}`
  : r.status === 'differentiable' ? 'every op has a backward' : r.error.replace(/\|/g, '\\|');
console.log('| architecture | scan | detail |\n| --- | --- | --- |');
for (const r of results) console.log(`| \`${r.arch}\` | ${r.status} | ${why(r)} |`);
