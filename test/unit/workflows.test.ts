// The CI workflows for hosted runners (Linux, macOS arm64 and its Metal job, Windows x64) cannot
// run on the machines these tests run on; what can be checked here is checked: each parses, every
// job has steps with a name or a `uses`, and every `npm run X` / `node test/run-all.mjs S` /
// script path they call exists.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';

const root = join(import.meta.dirname, '..', '..');
const scripts = Object.keys(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).scripts);
const suites = [...readFileSync(join(root, 'test', 'run-all.mjs'), 'utf8').matchAll(/\{ name: '([a-z]+)'/g)].map((m) => m[1]);

test('every workflow parses and calls only scripts and suites that exist', () => {
  const dir = join(root, '.github', 'workflows');
  const files = readdirSync(dir).filter((f) => f.endsWith('.yml'));
  assert.deepEqual(files.sort(), ['linux.yml', 'macos-metal.yml', 'macos.yml', 'windows.yml']);
  for (const f of files) {
    const wf = parse(readFileSync(join(dir, f), 'utf8')) as { on: unknown; jobs: Record<string, { 'runs-on': string; steps: Array<{ name?: string; uses?: string; run?: string }> }> };
    assert.ok(wf.on, `${f}: triggers`);
    for (const [name, job] of Object.entries(wf.jobs)) {
      assert.match(job['runs-on'], /^(ubuntu|macos|windows)-/, `${f} ${name}`);
      assert.ok(job.steps.length > 0);
      for (const step of job.steps) {
        assert.ok(step.uses || (step.run && step.name), `${f} ${name}: a run step needs a name (${step.run})`);
        for (const m of (step.run ?? '').matchAll(/npm run ([\w:-]+)/g)) assert.ok(scripts.includes(m[1]), `${f}: npm run ${m[1]} is not a script`);
        for (const m of (step.run ?? '').matchAll(/(?:\.\/)?((?:native|\.github)\/scripts\/[\w.-]+)/g)) assert.ok(existsSync(join(root, m[1])), `${f}: ${m[1]} does not exist`);
        for (const m of (step.run ?? '').matchAll(/test\/run-all\.mjs((?: [a-z]+)+)/g)) {
          for (const s of m[1].trim().split(' ')) assert.ok(suites.includes(s), `${f}: no test suite '${s}'`);
        }
      }
    }
  }
  assert.ok(suites.includes('electron') && suites.includes('ui'));
});
