/**
 * The engine's model loader on damaged GGUF files: the real stories260K header cut at every
 * 16th offset and a few hundred seeded mutations (bit flips, edge values in its counts, lengths,
 * dimensions, types and offsets, spans removed or repeated), each loaded in a child process. No
 * case may crash or hang; every refusal names its status and says what is wrong. Longer sweeps:
 * `native/bin/hone-fuzz-gguf --model M.gguf --cases 20000 --stride 1 --seed S`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { bin, run } from '../helpers/native.ts';

describe('the model loader on damaged GGUF files', () => {
  test('every cut and mutated header is loaded or refused by name, none crashes or hangs', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const seed = process.env.HONE_FUZZ_SEED ?? '1';
    const r = run(bin('hone-fuzz-gguf'), ['--model', model, '--cases', '400', '--stride', '16', '--seed', seed], 600_000);
    t.diagnostic(`seed ${seed}\n${r.stdout.split('\n').filter((l) => /^(truncated|mutated|header)/.test(l)).join('\n')}`);
    assert.equal(r.code, 0, `crashes or hangs (replay with --seed ${seed}):\n${r.stdout.slice(-3000)}${r.stderr.slice(-1000)}`);
    assert.doesNotMatch(r.stdout, /^UNNAMED/m, 'a refusal without a message');
    const truncated = /^truncated: (\d+) cases, (\d+) loaded, (\d+) refused/m.exec(r.stdout);
    const mutated = /^mutated: (\d+) cases, (\d+) loaded, (\d+) refused/m.exec(r.stdout);
    assert.ok(truncated && mutated, r.stdout);
    assert.ok(Number(truncated[1]) > 100, `the header was cut at ${truncated[1]} offsets`);
    assert.equal(Number(truncated[2]), 0, 'a file cut inside its header never loads');
    assert.equal(Number(mutated[1]), 400);
    assert.ok(Number(mutated[3]) > 0, 'some mutations are refused');
  });
});
