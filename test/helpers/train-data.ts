/**
 * Training data for trainer tests: pre-tokenized JSONL ({"tokens": [...], "loss_mask": [...]})
 * with sequences of different lengths and loss masks, from a seeded generator, so a test
 * knows exactly which tokens carry loss; and `hone-train score`, the independent reference
 * for losses (double-precision cross-entropy from the forward pass's logits).
 */
import { writeFileSync } from 'node:fs';
import { honeTrain } from './native.ts';

export interface TokenSequence {
  tokens: number[];
  /** 1: token i is a target. Absent: every token after the first is. */
  loss_mask?: number[];
}

/** A small seeded generator (mulberry32): the same numbers on every run. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `lengths.length` sequences of the given lengths; every other one has a prompt (the first
 * third of its tokens) that carries no loss, like a chat example's user turn.
 */
export function makeSequences(seed: number, lengths: number[], vocab = 512): TokenSequence[] {
  const r = rng(seed);
  return lengths.map((n, i) => {
    // Token ids from a small range repeat often enough for a tiny model to learn something.
    const tokens = Array.from({ length: n }, () => 1 + Math.floor(r() * Math.min(vocab - 1, 60)));
    if (i % 2 === 0) return { tokens };
    const prompt = Math.max(1, Math.floor(n / 3));
    return { tokens, loss_mask: tokens.map((_, k) => (k < prompt ? 0 : 1)) };
  });
}

export function writeSequences(path: string, seqs: TokenSequence[]): string {
  writeFileSync(path, seqs.map((s) => JSON.stringify(s)).join('\n') + '\n');
  return path;
}

/** Loss tokens of a sequence as the trainer counts them at context `ctx` (first ctx + 1 tokens). */
export function lossTokens(s: TokenSequence, ctx: number): number {
  const n = Math.min(s.tokens.length, ctx + 1);
  let c = 0;
  for (let i = 1; i < n; i++) c += s.loss_mask ? s.loss_mask[i] : 1;
  return c;
}

export interface Score {
  /** Per sequence: summed cross-entropy (nats) over its loss tokens, and their count. */
  seqs: Array<{ nll: number; lossTokens: number }>;
  nll: number;
  lossTokens: number;
  mean: number;
}

export function score(model: string, data: string, ctx: number, adapter?: string): Score {
  const args = ['score', '--model', model, '--data', data, '--ctx', String(ctx), '--json'];
  if (adapter) args.push('--adapter', adapter);
  const r = honeTrain(args);
  if (r.code !== 0) throw new Error(`score failed: ${r.stderr}`);
  const total = r.events.find((e) => e.type === 'score-total')!;
  return {
    seqs: r.events.filter((e) => e.type === 'score').map((e) => ({ nll: e.nll, lossTokens: e.loss_tokens })),
    nll: total.nll,
    lossTokens: total.loss_tokens,
    mean: total.mean,
  };
}

export function relDiff(a: number, b: number): number {
  return Math.abs(a - b) / Math.max(Math.abs(a), Math.abs(b), 1e-30);
}
