/**
 * `hone train --demo`: a tiny model the project makes on first use (llama shape, random
 * weights, the Phi-3 tokenizer and chat template from the llama.cpp source) and a small chat
 * dataset written from Hone's own docs (resources/demo/about-hone.txt), so a newcomer sees
 * the whole flow in about a minute on a laptop CPU.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { TrainConfig } from '../common/engine-api.ts';
import { HoneError } from '../common/errors.ts';
import { findUp } from '../services/locate.ts';

const DEMO_TEXT = join('resources', 'demo', 'about-hone.txt');

/** The checkout the demo runs in: the folder holding resources/demo (from electron/ or out/build/). */
function projectRoot(): string {
  const root = findUp(DEMO_TEXT);
  if (!root) throw new HoneError('internal', `cannot find ${DEMO_TEXT} in any folder above ${import.meta.url}: the demo runs from a checkout`);
  return root;
}
const cacheDir = () => process.env.HONE_CACHE_DIR || join(homedir(), '.cache', 'hone');

/** One question per line of about-hone.txt, answered by that line. */
const QUESTIONS = [
  'What is Hone?',
  'Does Hone change or dequantize my base model?',
  'What file does Hone write, and what can load it?',
  'How do I know where the training ops ran?',
  'What does Hone report during training?',
  'What is inside a LoRA adapter?',
  'How is the adapter scaled?',
  'Can I train without the desktop window?',
  'Does my data leave my machine?',
];

export function writeDemoDataset(path: string): void {
  const lines = readFileSync(join(projectRoot(), DEMO_TEXT), 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
  const records = QUESTIONS.slice(0, lines.length).map((q, i) => ({
    messages: [
      { role: 'system', content: 'You answer questions about Hone in one or two sentences.' },
      { role: 'user', content: q },
      { role: 'assistant', content: lines[i] },
    ],
  }));
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

function makeDemoModel(path: string): void {
  const root = projectRoot();
  const bin = join(root, 'native', 'bin', process.platform === 'win32' ? 'hone-train.exe' : 'hone-train');
  if (!existsSync(bin)) throw new HoneError('internal', `${bin} is missing: run \`npm install\` (or \`npm run build:native\`) first`);
  mkdirSync(dirname(path), { recursive: true });
  const r = spawnSync(bin, ['make-model', '--arch', 'llama', '--embd', '256', '--layers', '4', '--heads', '8', '--kv-heads', '4', '--ff', '768',
    '--vocab-from', join(root, 'native', 'bin', 'vocab', 'phi-3.gguf'), '--type', 'q8_0', '--out', path], { encoding: 'utf8' });
  if (r.status !== 0) throw new HoneError('internal', `making the demo model failed: ${r.stderr}`);
}

/** Where the demo keeps its model and dataset (a models folder the app lists for `hone start`). */
export const demoDir = () => join(cacheDir(), 'demo');

/** The demo's options (flags given with --demo still override them). */
export function demoConfig(): Partial<TrainConfig> {
  const dir = demoDir();
  const model = join(dir, 'tiny-phi3-256x4-q8_0.gguf');
  if (!existsSync(model)) makeDemoModel(model);
  const data = join(dir, 'hone-qa.jsonl');
  writeDemoDataset(data);
  const out = join(projectRoot(), 'out', 'demo');
  rmSync(out, { recursive: true, force: true }); // the demo's own folder: each run starts afresh
  return { model, data: [data], out, steps: 40, ctx: 128, batch: 2, rank: 8, alpha: 16, targets: 'all,output', lr: 5e-3, backend: 'cpu' };
}
