/**
 * The `hone` command line on the shared fixtures: train --json writes an adapter and run.json,
 * a malformed dataset fails naming file and line, data inspect --json has the documented shape.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { repoRoot, tempDir } from '../helpers/native.ts';

function hone(args: string[], cwd = repoRoot) {
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'hone.mjs'), ...args], { cwd, encoding: 'utf8', timeout: 300_000 });
  const events = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, events };
}

describe('hone CLI', () => {
  test('hone train --json on the limericks fixture writes an adapter, run.json and the config it used', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    const data = requireFixture(t, 'chat_elements_limericks.jsonl');
    if (!model || !data) return;
    const dir = tempDir();
    // A config file gives some options, flags override one of them.
    writeFileSync(join(dir, 'hone.config.yaml'), 'rank: 4\nalpha: 8\nsteps: 3\nctx: 256\nlr: 0.005\ntargets: all\nbackend: cpu\n');
    const out = join(dir, 'run');
    const r = hone(['train', '--model', model, '--data', data, '--out', out, '--steps', '6', '--json'], dir);
    assert.equal(r.code, 0, r.stderr);
    const steps = r.events.filter((e) => e.type === 'step');
    assert.deepEqual(steps.map((e) => e.step), [1, 2, 3, 4, 5, 6]);
    const tokens = r.events.find((e) => e.type === 'tokens');
    assert.equal(tokens.stats.examples, 10);
    assert.ok(tokens.stats.lossTokens > 0 && tokens.stats.lossTokens < tokens.stats.tokens, 'only assistant turns carry loss');
    const done = r.events.at(-1);
    assert.equal(done.type, 'done');
    assert.ok(existsSync(join(out, 'adapter.gguf')));
    const run = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8'));
    assert.equal(run.config.rank, 4, 'from the config file');
    assert.equal(run.config.steps, 6, 'the flag wins over the config file');
    assert.equal(run.metrics.steps, 6);
    assert.equal(run.template.source, 'fallback');
    const used = JSON.parse(readFileSync(join(out, 'config.json'), 'utf8'));
    assert.equal(used.ubatch, 0, 'the micro-batch is left to the trainer');
    assert.ok(run.memory.ubatch >= 1 && run.memory.ubatch <= used.batch, run.memory.ubatch_reason);
    const asRan = { ...used, alpha: used.alpha || 2 * used.rank, ubatch: run.memory.ubatch, epochs: 0 };
    assert.deepEqual(asRan, run.config, "run.json records the config as it ran (alpha 0: 2 * rank, ubatch 0: the trainer's choice; steps, not epochs)");
    // A finished run is never overwritten.
    const again = hone(['train', '--model', model, '--data', data, '--out', out, '--json'], dir);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, /already holds a finished run/);
  });

  test('hone train --ctx auto trains at the context proposed for the data and records it', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    const data = requireFixture(t, 'chat_elements_limericks.jsonl');
    if (!model || !data) return;
    const dir = tempDir();
    const out = join(dir, 'run');
    const r = hone(['train', '--model', model, '--data', data, '--out', out, '--ctx', 'auto', '--batch', '4', '--ubatch', '1', '--steps', '2', '--backend', 'cpu', '--json'], dir);
    assert.equal(r.code, 0, r.stderr);
    const { stats } = r.events.find((e) => e.type === 'tokens');
    assert.ok(stats.suggestedCtx, 'chat data gets a proposal');
    assert.equal(stats.ctx, stats.suggestedCtx.ctx);
    assert.equal(stats.ctx % 64, 0);
    // ten examples: the 99th percentile is the longest, so every example fits whole
    assert.equal(stats.overLength, 0);
    assert.equal(stats.suggestedCtx.covers, 1);
    assert.ok(stats.lengths.max <= stats.ctx + 1 && stats.lengths.max > stats.ctx + 1 - 64, `longest ${stats.lengths.max} at ctx ${stats.ctx}`);
    assert.equal(JSON.parse(readFileSync(join(out, 'config.json'), 'utf8')).ctx, stats.ctx, 'config.json holds the context it trained at');
    // four examples a step, each row ctx positions: at most four rows a step
    const steps = r.events.filter((e) => e.type === 'step');
    assert.ok(steps.every((e, i) => (e.positions - (steps[i - 1]?.positions ?? 0)) % stats.ctx === 0 && e.positions <= 4 * stats.ctx * e.step), `positions ${steps.map((e) => e.positions)}`);
  });

  test('a malformed dataset exits non-zero with problems naming file and line', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    const src = requireFixture(t, 'chat_elements_limericks.jsonl');
    if (!model || !src) return;
    const dir = tempDir();
    const data = join(dir, 'broken.jsonl');
    const lines = readFileSync(src, 'utf8').trim().split('\n');
    lines.splice(2, 0, '{"messages": [{"role": "user", "content": "hi"}', '{"messages": [{"role": "user", "content": "no answer"}]}');
    writeFileSync(data, lines.join('\n') + '\n');
    const r = hone(['train', '--model', model, '--data', data, '--out', join(dir, 'o'), '--steps', '2', '--json']);
    assert.notEqual(r.code, 0);
    const err = r.events.find((e) => e.type === 'error');
    assert.equal(err.code, 'bad_dataset');
    const problems = err.detail.problems.filter((p: { severity: string }) => p.severity === 'error');
    assert.deepEqual(problems.map((p: { file: string; line: number; code: string }) => [p.file, p.line, p.code]), [[data, 3, 'bad_json'], [data, 4, 'no_assistant']]);
    assert.ok(!existsSync(join(dir, 'o')), 'nothing is written for a refused dataset');
    const text = hone(['train', '--model', model, '--data', data, '--out', join(dir, 'o'), '--steps', '2']);
    assert.notEqual(text.code, 0);
    assert.match(text.stderr, /broken\.jsonl:3/);
    assert.match(text.stderr, /broken\.jsonl:4/);
  });

  test('hone data inspect --json: dataset report, template, token statistics and a preview with the loss marked', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    const data = requireFixture(t, 'chat_elements_limericks.jsonl');
    if (!model || !data) return;
    const r = hone(['data', 'inspect', '--model', model, '--data', data, '--ctx', '48', '--truncate', 'drop', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.events.length, 1);
    const res = r.events[0];
    assert.deepEqual(Object.keys(res).sort(), ['preview', 'report', 'template', 'tokens', 'type']);
    assert.equal(res.report.records.valid, 10);
    assert.equal(res.report.format, 'openai-chat');
    const s = res.tokens;
    for (const k of ['examples', 'sequences', 'tokens', 'lossTokens', 'ctx', 'policy', 'overLength', 'truncated', 'dropped', 'chunked', 'failed', 'histogram', 'lengths']) {
      assert.ok(k in s, `tokens.${k}`);
    }
    assert.equal(s.examples, 10);
    assert.equal(s.histogram.reduce((n: number, b: { count: number }) => n + b.count, 0), 10);
    assert.equal(s.policy, 'drop');
    // Every limerick conversation is longer than 48 tokens with this tiny vocab: all dropped.
    assert.ok(s.lengths.min > 49);
    assert.equal(s.overLength, 10);
    assert.equal(s.dropped, 10);
    assert.equal(s.sequences, 0);
    // each one named by file and line, losing all its loss tokens
    assert.deepEqual(s.affected.map((a: { line: number }) => a.line), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (const a of s.affected) assert.ok(a.file === data && a.outcome === 'dropped' && a.lostLossTokens === a.lossTokens && a.lossTokens > 0, JSON.stringify(a));
    // truncated on the right instead: the loss tokens past the context are what each example loses
    const right = hone(['data', 'inspect', '--model', model, '--data', data, '--ctx', '160', '--truncate', 'right', '--json']).events[0].tokens;
    assert.equal(right.affected.length, 10);
    for (const a of right.affected) assert.ok(a.outcome === 'truncated' && a.lostLossTokens > 0 && a.lostLossTokens < a.lossTokens, JSON.stringify(a));
    assert.equal(right.lossTokens, right.affected.reduce((n: number, a: { lossTokens: number; lostLossTokens: number }) => n + a.lossTokens - a.lostLossTokens, 0));
    // a context that holds some examples: only the longer ones are listed
    const some = hone(['data', 'inspect', '--model', model, '--data', data, '--ctx', '210', '--json']).events[0].tokens;
    assert.ok(some.affected.length > 0 && some.affected.length < 10, JSON.stringify(some.affected));
    for (const a of some.affected) assert.ok(a.tokens > 211, JSON.stringify(a));
    const p = res.preview;
    assert.equal(p.source.line, 1);
    const marked = p.lossSpans.map(([b, e]: [number, number]) => p.text.slice(b, e));
    assert.deepEqual(marked, ['Gallium, oh gallium, so light - Melts in your hand, oh what a sight - At 86 degrees - Its liquid with ease - And in semiconductors, it\'s out of sight</s>']);
  });

  test('bad options and config files are named', (t) => {
    const dir = tempDir();
    writeFileSync(join(dir, 'hone.config.json'), JSON.stringify({ rank: 4, learningRate: 0.1 }));
    const r = hone(['train', '--out', join(dir, 'o'), '--model', 'm.gguf', '--data', 'd.jsonl'], dir);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /hone\.config\.json: unknown option 'learningRate'/);
    const r2 = hone(['train', '--rank', 'eight']);
    assert.equal(r2.code, 2);
    assert.match(r2.stderr, /--rank: 'rank' must be a number/);
  });
});
