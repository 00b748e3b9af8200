#!/usr/bin/env node
// The headless demo: makes a tiny llama-shaped model (random weights, the llama SentencePiece
// tokenizer from the llama.cpp source) on first use, then trains a LoRA on a short text about
// Hone that ships in resources/demo, and writes the adapter to out/demo.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir } from './llama-source.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const bin = path.join(root, 'native', 'bin', process.platform === 'win32' ? 'hone-train.exe' : 'hone-train');
if (!fs.existsSync(bin)) {
  console.error(`[hone] ${bin} is missing: run \`npm install\` (or \`npm run build:native\`) first`);
  process.exit(1);
}

function run(args) {
  const r = spawnSync(bin, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const model = path.join(cacheDir(), 'demo', 'tiny-llama-256x4-q8_0.gguf');
if (!fs.existsSync(model)) {
  fs.mkdirSync(path.dirname(model), { recursive: true });
  run(['make-model', '--arch', 'llama', '--embd', '256', '--layers', '4', '--heads', '8', '--kv-heads', '4', '--ff', '768',
    '--vocab-from', path.join(root, 'native', 'bin', 'vocab', 'llama-spm.gguf'), '--type', 'q8_0', '--out', model]);
}
const out = path.join(root, 'out', 'demo');
run(['--model', model, '--data', path.join(root, 'resources', 'demo', 'about-hone.txt'), '--out', out,
  '--steps', '40', '--ctx', '128', '--batch', '2', '--rank', '8', '--alpha', '16', '--targets', 'all,output', '--lr', '5e-3']);
console.log(`[hone] demo adapter: ${path.relative(process.cwd(), path.join(out, 'adapter.gguf'))}`);
