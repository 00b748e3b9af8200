/**
 * Running the native tools from tests: hone-train (the engine's CLI) and llama.cpp's own
 * llama-quantize, built by `npm install` into native/bin. Missing binaries fail the test
 * with the command that builds them.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const binDir = join(repoRoot, 'native', 'bin');

export function bin(name: string): string {
  const p = join(binDir, process.platform === 'win32' ? `${name}.exe` : name);
  if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run build:native\` first`);
  return p;
}

export function vocab(name: 'llama-spm' | 'llama-bpe' | 'qwen2' | 'phi-3'): string {
  const p = join(binDir, 'vocab', `${name}.gguf`);
  if (!existsSync(p)) throw new Error(`${p} is missing: run \`npm run build:native\` first`);
  return p;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout lines that parse as JSON (the --json event stream). */
  events: Array<Record<string, any>>;
}

/** `env`: variables added to this process's environment for the child. */
export function run(cmd: string, args: string[], timeoutMs = 300_000, env?: Record<string, string>): RunResult {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 << 20, env: env ? { ...process.env, ...env } : undefined });
  if (r.error) throw r.error;
  const events = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, events };
}

export function honeTrain(args: string[], timeoutMs?: number, env?: Record<string, string>): RunResult {
  return run(bin('hone-train'), args, timeoutMs, env);
}

/** A fresh temporary folder, removed when the process exits. */
export function tempDir(prefix = 'hone-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  process.on('exit', () => rmSync(d, { recursive: true, force: true }));
  return d;
}

export function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

export interface SyntheticSpec {
  arch: 'llama' | 'qwen2' | 'qwen3' | 'gemma3';
  embd: number;
  layers: number;
  heads: number;
  kvHeads: number;
  ff: number;
  headDim?: number;
  type: 'f32' | 'f16' | 'q8_0' | 'q4_k_m';
  tied?: boolean;
  vocab: 'llama-spm' | 'llama-bpe' | 'qwen2' | 'phi-3';
}

/** Writes a synthetic model with `hone-train make-model` and returns its path. */
export function makeModel(dir: string, s: SyntheticSpec): string {
  const out = join(dir, `${s.arch}-${s.embd}x${s.layers}-${s.type}${s.tied ? '-tied' : ''}.gguf`);
  if (existsSync(out)) return out;
  const args = ['make-model', '--arch', s.arch, '--embd', String(s.embd), '--layers', String(s.layers), '--heads', String(s.heads),
    '--kv-heads', String(s.kvHeads), '--ff', String(s.ff), '--vocab-from', vocab(s.vocab), '--type', s.type, '--out', out];
  if (s.headDim) args.push('--head-dim', String(s.headDim));
  if (s.tied) args.push('--tied');
  const r = honeTrain(args);
  if (r.code !== 0) throw new Error(`make-model failed: ${r.stderr}`);
  return out;
}

/** Step losses from a --json event stream. */
export function stepLosses(r: RunResult): number[] {
  return r.events.filter((e) => e.type === 'step').map((e) => e.loss as number);
}
