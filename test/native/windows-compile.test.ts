/**
 * The engine's and hone-train's Windows code compiles: every source with a `_WIN32` branch is
 * compiled for Windows x64 by MinGW-w64 (syntax and types, against the patched llama.cpp
 * headers), so a change to it is caught here. The whole Windows build, run under Wine (engine
 * tests, a training run from a non-ASCII folder with the Linux build's losses), is
 * `node native/scripts/windows-cross.mjs` (docs/results/windows.md).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { prepareLlamaSource } from '../../native/scripts/llama-source.mjs';
import { repoRoot } from '../helpers/native.ts';

const CXX = 'x86_64-w64-mingw32-g++-posix';

function windowsSources(): string[] {
  return ['engine', 'cli'].flatMap((dir) => readdirSync(join(repoRoot, 'native', dir))
    .filter((f) => f.endsWith('.cpp') && readFileSync(join(repoRoot, 'native', dir, f), 'utf8').includes('_WIN32'))
    .map((f) => join(repoRoot, 'native', dir, f)));
}

function compile(file: string, includes: string[]): Promise<{ file: string; code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(CXX, ['-std=gnu++17', '-fsyntax-only', '-Wall', '-Wno-unused-parameter', ...includes.map((i) => `-I${i}`), file]);
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ file, code, stderr }));
  });
}

test('every source with Windows code compiles for Windows x64', { timeout: 300_000 }, async (t) => {
  if (spawnSync(CXX, ['--version']).status !== 0) {
    assert.ok(!process.env.CI, `${CXX} is missing: .ci/run installs mingw-w64`);
    t.skip(`${CXX} not installed (Debian: mingw-w64)`);
    return;
  }
  const { src } = prepareLlamaSource(join(repoRoot, 'native', 'patches'));
  const includes = [join(repoRoot, 'native', 'include'), join(repoRoot, 'native', 'engine'), join(src, 'include'), join(src, 'ggml', 'include'),
    join(src, 'ggml', 'src'), join(src, 'vendor'), join(src, 'common')];
  const files = windowsSources();
  assert.ok(files.length >= 10, `${files.length} sources with Windows code`);
  const results = [];
  for (let i = 0; i < files.length; i += 2) results.push(...await Promise.all(files.slice(i, i + 2).map((f) => compile(f, includes))));
  const failed = results.filter((r) => r.code !== 0);
  t.diagnostic(`${results.length} sources compiled for Windows: ${results.map((r) => r.file.split('/').slice(-2).join('/')).join(', ')}`);
  assert.deepEqual(failed.map((r) => `${r.file}\n${r.stderr.slice(0, 2000)}`), []);
});
