/** The train/eval split: deterministic, order-independent, seeded, by ratio or by file. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { contentKey } from '../../electron/services/dataset/dedup.ts';
import { importDataset, type Example, type ImportOptions } from '../../electron/services/dataset/index.ts';
import { splitPoint } from '../../electron/services/dataset/split.ts';
import { jsonl, tempFiles } from '../helpers/temp-files.ts';

const records = Array.from({ length: 400 }, (_, i) => ({ prompt: `question ${i}`, completion: `answer ${i}` }));
const promptOf = (e: Example) => (e.kind === 'chat' ? e.messages[0].content : e.text);

/** Which prompts went to eval. */
async function evalSet(paths: string | string[], options: ImportOptions): Promise<string[]> {
  const { report, train, eval: evalExamples } = await importDataset(paths, options);
  assert.deepEqual([report.split.train, report.split.eval], [train.length, evalExamples.length], 'report matches the examples');
  return evalExamples.map(promptOf).sort();
}

test('the same data, seed and ratio always give the same split', async (t) => {
  const dir = tempFiles(t, { 'a.jsonl': jsonl(...records) });
  const first = await evalSet(dir, { evalRatio: 0.2, seed: 7 });
  assert.deepEqual(await evalSet(dir, { evalRatio: 0.2, seed: 7 }), first);
  assert.ok(first.length > 40 && first.length < 120, `about 20% in eval (got ${first.length} of 400)`);
  const otherSeed = await evalSet(dir, { evalRatio: 0.2, seed: 8 });
  assert.notDeepEqual(otherSeed, first, 'another seed gives another split');
});

test("a record's side does not depend on record order, file order or the other files", async (t) => {
  const shuffled = [...records].sort((a, b) => (a.prompt < b.prompt ? 1 : -1)); // another order
  const dir = tempFiles(t, {
    'all.jsonl': jsonl(...records),
    'parts/x.jsonl': jsonl(...shuffled.slice(0, 150)),
    'parts/y.jsonl': jsonl(...shuffled.slice(150)),
  });
  const options = { evalRatio: 0.25, seed: 'abc' };
  const whole = await evalSet(join(dir, 'all.jsonl'), options);
  assert.deepEqual(await evalSet([join(dir, 'parts', 'y.jsonl'), join(dir, 'parts', 'x.jsonl')], options), whole);
  const half = await evalSet(join(dir, 'parts', 'x.jsonl'), options);
  assert.deepEqual(half, whole.filter((p) => half.includes(p)));
  assert.ok(half.every((p) => whole.includes(p)));
});

test('the rule is the documented one: eval when the seeded hash of the content is below the ratio', async (t) => {
  const dir = tempFiles(t, { 'a.jsonl': jsonl(...records.slice(0, 50)) });
  const { train, eval: evalExamples } = await importDataset(dir, { evalRatio: 0.3, seed: 1 });
  for (const e of evalExamples) assert.ok(splitPoint(contentKey(e), '1') < 0.3);
  for (const e of train) assert.ok(splitPoint(contentKey(e), '1') >= 0.3);
});

test('duplicates always land on the same side', async (t) => {
  const dir = tempFiles(t, { 'a.jsonl': jsonl(...records.slice(0, 100), ...records.slice(0, 100)) });
  const { report, train, eval: evalExamples } = await importDataset(dir, { evalRatio: 0.3 });
  assert.equal(report.records.duplicates, 100);
  const trainPrompts = new Set(train.map(promptOf));
  assert.ok(evalExamples.every((e) => !trainPrompts.has(promptOf(e))));
  assert.equal(evalExamples.length % 2, 0);
});

test('a separate eval file: all its records are eval and no ratio split happens', async (t) => {
  const dir = tempFiles(t, {
    'train.jsonl': jsonl(...records.slice(0, 30)),
    'eval.jsonl': jsonl(...records.slice(30, 35)),
  });
  const { report, train, eval: evalExamples } = await importDataset(join(dir, 'train.jsonl'), {
    evalPaths: [join(dir, 'eval.jsonl')],
    evalRatio: 0.5,
  });
  assert.deepEqual(report.split, { train: 30, eval: 5, rule: 'eval-file', ratio: 0, seed: '0' });
  assert.deepEqual(report.files.map((f) => f.role), ['train', 'eval']);
  assert.deepEqual(evalExamples.map(promptOf), records.slice(30, 35).map((r) => r.prompt));
  assert.equal(train.length, 30);
});

test('small datasets get at least one eval record when the ratio asks for eval', async (t) => {
  const three = records.slice(0, 3);
  const dir = tempFiles(t, { 'three.jsonl': jsonl(...three), 'one.jsonl': jsonl(three[0]) });
  const ratio = 0.1;
  const seed = 2; // a seed where none of the three draws eval by itself
  const points = three.map((r) => splitPoint(contentKey(contentExample(r)), String(seed)));
  assert.ok(points.every((p) => p >= ratio), 'precondition: no record draws eval by itself');
  const { report, eval: evalExamples } = await importDataset(join(dir, 'three.jsonl'), { evalRatio: ratio, seed });
  assert.deepEqual([report.split.train, report.split.eval], [2, 1]);
  assert.deepEqual(evalExamples.map(promptOf), [three[points.indexOf(Math.min(...points))].prompt]);
  // Never at the cost of an empty train set, and never without a ratio.
  const one = await importDataset(join(dir, 'one.jsonl'), { evalRatio: ratio, seed });
  assert.deepEqual([one.report.split.train, one.report.split.eval], [1, 0]);
  const none = await importDataset(join(dir, 'three.jsonl'));
  assert.deepEqual([none.report.split.train, none.report.split.eval], [3, 0]);
});

/** The Example a prompt/completion record normalises to (for computing its key in tests). */
function contentExample(r: { prompt: string; completion: string }): Example {
  return {
    kind: 'chat',
    messages: [
      { role: 'user', content: r.prompt },
      { role: 'assistant', content: r.completion },
    ],
    source: { file: '', line: 0 },
  };
}
