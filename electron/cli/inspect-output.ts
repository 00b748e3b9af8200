/** `hone data inspect` for people: the report's summary, token statistics and a marked preview. */
import type { InspectResult } from '../common/engine-api.ts';

export function printInspect(r: InspectResult, out: NodeJS.WriteStream): void {
  const w = (s: string) => out.write(s + '\n');
  const rep = r.report;
  w(`files: ${rep.files.length} (${rep.format ?? 'none'}), records: ${rep.records.total} (${rep.records.valid} valid, ${rep.records.invalid} invalid, ${rep.records.duplicates} duplicates)`);
  w(`split: ${rep.split.train} train, ${rep.split.eval} eval`);
  for (const p of rep.problems.slice(0, 20)) w(`  ${p.severity} ${p.file}${p.line === null ? '' : `:${p.line}`}${p.field ? ` (${p.field})` : ''}: ${p.message}`);
  if (rep.problemsOmitted) w(`  ... and ${rep.problemsOmitted} more`);
  const t = r.tokens;
  w(`chat template: ${r.template.source}${r.template.supportsToolCalls ? ' (tool calls)' : ''}`);
  w(`tokens: ${t.examples} examples -> ${t.sequences} sequences, ${t.tokens} tokens, ${t.lossTokens} carry loss`);
  w(`lengths: min ${t.lengths.min}, median ${t.lengths.median}, mean ${t.lengths.mean.toFixed(1)}, max ${t.lengths.max}`);
  w(`context ${t.ctx}: ${t.overLength} longer (${t.truncated} truncated ${t.policy}, ${t.dropped} dropped), ${t.chunked} text example(s) cut into windows`);
  for (const a of t.affected.slice(0, 20)) {
    w(`  ${a.outcome}: ${a.file}:${a.line}: ${a.tokens} tokens, loses ${a.lostLossTokens} of its ${a.lossTokens} loss tokens`);
  }
  if (t.affected.length > 20) w(`  ... and ${t.affected.length - 20} more (--json lists them all)`);
  const peak = Math.max(1, ...t.histogram.map((b) => b.count));
  for (const b of t.histogram) w(`  ${String(b.from).padStart(6)}-${String(b.to - 1).padEnd(6)} ${'#'.repeat(Math.ceil((b.count / peak) * 40))} ${b.count}`);
  for (const f of t.failed.slice(0, 10)) w(`  not rendered: ${f.file}:${f.line}: ${f.message}`);
  if (r.preview) {
    const p = r.preview;
    w(`preview (${p.source.file}:${p.source.line}; loss-carrying text between [[ and ]], ${p.lossTokens} of ${p.tokens} tokens):`);
    let s = '', at = 0;
    for (const [b, e] of p.lossSpans) { s += p.text.slice(at, b) + '[[' + p.text.slice(b, e) + ']]'; at = e; }
    w(s + p.text.slice(at));
  }
}
