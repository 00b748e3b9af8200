/** Training options: defaults < config file < flags, file-relative paths, named errors. */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseArgs } from '../../electron/cli/args.ts';
import type { TrainConfig } from '../../electron/common/engine-api.ts';
import { findConfigFile, readConfigFile, resolveConfig } from '../../electron/cli/config.ts';
import { tempFiles } from '../helpers/temp-files.ts';

test('the engine\'s defaults < config file < flags', (t) => {
  const dir = tempFiles(t);
  const file = join(dir, 'hone.config.json');
  writeFileSync(file, JSON.stringify({ rank: 16, lr: 0.001, 'max-grad-norm': 0.5, data: ['a.jsonl', 'sub/b.jsonl'], model: '/abs/m.gguf' }));
  const fromFile = readConfigFile(file);
  const { options } = parseArgs(['--lr', '2e-4', '--truncate', 'left', '--ignore-weights']);
  // the defaults come from the engine host (capabilities); any value shows it flows through
  const defaults = { ctx: 777, rank: 3, lr: 1 } as TrainConfig;
  const cfg = resolveConfig(defaults, fromFile, options);
  assert.equal(cfg.rank, 16); // file
  assert.equal(cfg.lr, 2e-4); // flag over file
  assert.equal(cfg.maxGradNorm, 0.5); // kebab-case key in the file
  assert.equal(cfg.ctx, 777); // default
  assert.equal(cfg.truncate, 'left');
  assert.equal(cfg.ignoreWeights, true);
  assert.deepEqual(cfg.data, [join(dir, 'a.jsonl'), join(dir, 'sub', 'b.jsonl')], 'paths in a file are relative to it');
  assert.equal(cfg.model, '/abs/m.gguf');
});

test('YAML config files and the search for hone.config.*', (t) => {
  const dir = tempFiles(t);
  assert.equal(findConfigFile(undefined, dir), null);
  writeFileSync(join(dir, 'hone.config.yaml'), 'rank: 4\nschedule: cosine\ntargets: all\n');
  const found = findConfigFile(undefined, dir)!;
  assert.equal(found, join(dir, 'hone.config.yaml'));
  assert.deepEqual(readConfigFile(found), { rank: 4, schedule: 'cosine', targets: 'all' });
});

test('bad config files and flags are errors naming the key and where it is', (t) => {
  const dir = tempFiles(t);
  mkdirSync(dir, { recursive: true });
  const f = join(dir, 'c.json');
  writeFileSync(f, JSON.stringify({ rank: 'big' }));
  assert.throws(() => readConfigFile(f), (e: { code: string; message: string }) => e.code === 'bad_config' && e.message.includes(`${f}: 'rank' must be a number`));
  writeFileSync(f, JSON.stringify({ schedule: 'exponential' }));
  assert.throws(() => readConfigFile(f), /'schedule' must be one of constant, linear, cosine/);
  writeFileSync(f, '{ not json');
  assert.throws(() => readConfigFile(f), /cannot read the config file/);
  assert.throws(() => parseArgs(['--nope', '1']), /unknown option '--nope'/);
  assert.throws(() => parseArgs(['--steps']), /'--steps' needs a value/);
  assert.throws(() => findConfigFile(join(dir, 'missing.json')), /config file not found/);
});

test('list flags take values up to the next flag; --resume takes an optional folder', () => {
  const a = parseArgs(['--data', 'x.jsonl', 'y.csv', '--steps=5', '--resume', '--json']);
  assert.deepEqual(a.options.data, ['x.jsonl', 'y.csv']);
  assert.equal(a.options.steps, 5);
  assert.equal(a.cli.resume, true);
  assert.equal(a.cli.json, true);
  assert.equal(parseArgs(['--resume', 'run/checkpoints/4']).cli.resume, 'run/checkpoints/4');
});
