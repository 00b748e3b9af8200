/**
 * From rendered examples to training sequences: the length policy (chat examples longer than
 * the context are dropped or truncated on the left or right; text examples are cut into
 * windows), and the token statistics shown before training. Pure: no engine needed.
 */
import type { LengthPolicy, Preview, TokenStats } from '../common/engine-api.ts';
import type { Sequence } from './binding.ts';

export interface RenderedExample {
  kind: 'chat' | 'text';
  source: { file: string; line: number };
  tokens: Int32Array;
  mask: Uint8Array;
}

export interface Packed {
  sequences: Sequence[];
  stats: TokenStats;
}

function lossCount(mask: Uint8Array): number {
  let n = 0;
  for (let i = 1; i < mask.length; i++) n += mask[i]; // mask[0] is never a target
  return n;
}

/** Where the engine cuts a text of `nTokens` into windows (the addon's textWindows). */
export type WindowStarts = (nTokens: number, ctx: number) => ArrayLike<number>;

/** The engine's proposed context for sequences of these token counts (the addon's suggestContext, capped). */
export type SuggestContext = (lengths: Int32Array) => number;

/** The proposal for the chat examples (text is cut into windows of any context): null without any. */
export function suggestedContext(examples: RenderedExample[], suggest: SuggestContext): TokenStats['suggestedCtx'] {
  const lengths = Int32Array.from(examples.filter((e) => e.kind === 'chat'), (e) => e.tokens.length);
  const ctx = lengths.length ? suggest(lengths) : 0;
  if (ctx <= 0) return null;
  return { ctx, covers: lengths.filter((n) => n <= ctx + 1).length / lengths.length };
}

/** The engine's windows of ctx + 1 tokens, overlapping by one. */
function windows(ex: RenderedExample, ctx: number, starts: WindowStarts): Sequence[] {
  return Array.from(starts(ex.tokens.length, ctx), (s) => {
    const e = Math.min(ex.tokens.length, s + ctx + 1);
    return { tokens: ex.tokens.slice(s, e), mask: ex.mask.slice(s, e) };
  });
}

export function histogram(lengths: number[]): TokenStats['histogram'] {
  if (lengths.length === 0) return [];
  const max = Math.max(...lengths);
  const bins: TokenStats['histogram'] = [];
  for (let from = 0, to = 16; from <= max; from = to, to *= 2) {
    bins.push({ from, to, count: lengths.filter((l) => l >= from && l < to).length });
  }
  return bins;
}

export function packExamples(
  examples: RenderedExample[],
  ctx: number,
  policy: LengthPolicy,
  windowStarts: WindowStarts,
  failed: TokenStats['failed'] = [],
  suggestedCtx: TokenStats['suggestedCtx'] = null,
): Packed {
  const sequences: Sequence[] = [];
  const affected: TokenStats['affected'] = [];
  let overLength = 0, truncated = 0, dropped = 0, chunked = 0;
  const limit = ctx + 1; // inputs tokens[0..ctx), targets tokens[1..ctx]
  for (const ex of examples) {
    if (ex.kind === 'text') {
      if (ex.tokens.length > limit) chunked++;
      for (const w of windows(ex, ctx, windowStarts)) if (lossCount(w.mask!) > 0) sequences.push(w);
      continue;
    }
    if (ex.tokens.length <= limit) {
      sequences.push({ tokens: ex.tokens, mask: ex.mask });
      continue;
    }
    overLength++;
    const lossTokens = lossCount(ex.mask);
    const note = (outcome: 'truncated' | 'dropped', kept: number) =>
      affected.push({ ...ex.source, outcome, tokens: ex.tokens.length, lossTokens, lostLossTokens: lossTokens - kept });
    if (policy === 'drop') { dropped++; note('dropped', 0); continue; }
    const s = policy === 'left' ? ex.tokens.length - limit : 0;
    const seq = { tokens: ex.tokens.slice(s, s + limit), mask: ex.mask.slice(s, s + limit) };
    const kept = lossCount(seq.mask);
    if (kept === 0) { dropped++; note('dropped', 0); continue; } // nothing left to learn from
    truncated++;
    note('truncated', kept);
    sequences.push(seq);
  }
  const lengths = examples.map((e) => e.tokens.length).sort((a, b) => a - b);
  const tokens = sequences.reduce((n, s) => n + s.tokens.length, 0);
  const lossTokens = sequences.reduce((n, s) => n + lossCount(s.mask!), 0);
  return {
    sequences,
    stats: {
      examples: examples.length,
      sequences: sequences.length,
      tokens,
      lossTokens,
      ctx,
      policy,
      overLength,
      truncated,
      dropped,
      chunked,
      affected,
      failed,
      suggestedCtx,
      histogram: histogram(lengths),
      lengths: {
        min: lengths[0] ?? 0,
        median: lengths.length ? lengths[Math.floor(lengths.length / 2)] : 0,
        max: lengths.at(-1) ?? 0,
        mean: lengths.length ? lengths.reduce((a, b) => a + b, 0) / lengths.length : 0,
      },
    },
  };
}

/** The loss-carrying character ranges of a rendered text, from token byte spans and the mask. */
export function previewOf(source: Preview['source'], text: string, spans: Int32Array, mask: Uint8Array): Preview {
  const bytes = Buffer.from(text, 'utf8');
  const charAt = (byte: number) => bytes.subarray(0, byte).toString('utf8').length;
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < mask.length; i++) {
    if (!mask[i]) continue;
    const b = spans[2 * i], e = spans[2 * i + 1];
    const last = ranges.at(-1);
    if (last && last[1] >= b) last[1] = Math.max(last[1], e);
    else ranges.push([b, e]);
  }
  return {
    source,
    text,
    lossSpans: ranges.filter(([b, e]) => e > b).map(([b, e]) => [charAt(b), charAt(e)]),
    tokens: mask.length,
    lossTokens: lossCount(mask),
  };
}
