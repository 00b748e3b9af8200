#!/usr/bin/env node
// Runs every test suite and prints one closing line: "N passed, N failed[, N skipped]".
// unit: no model, parallel. native: the engine through its CLI on real GGUF files, serial.
// Each suite runs under node's test runner with the TAP reporter, whose totals we add up.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function testFiles(dir) {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { recursive: true })
    .filter((f) => f.endsWith('.test.ts') || f.endsWith('.test.mjs'))
    .sort()
    .map((f) => path.join(dir, f));
}

const SUITES = [
  { name: 'unit', dir: 'test/unit', concurrency: [] },
  { name: 'native', dir: 'test/native', concurrency: ['--test-concurrency=1'] },
  { name: 'ui', dir: 'test/ui', concurrency: ['--test-concurrency=1'] },
];

function runSuite(suite, files) {
  return new Promise((resolve) => {
    const args = ['--import', 'tsx', '--test', '--test-reporter=tap', ...suite.concurrency, ...files];
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const totals = { pass: 0, fail: 0, skipped: 0, cancelled: 0 };
    let buf = '';
    child.stdout.on('data', (d) => {
      process.stdout.write(d);
      buf += d;
    });
    child.on('close', (code) => {
      for (const k of Object.keys(totals)) {
        const m = buf.match(new RegExp(`^# ${k} (\\d+)$`, 'm'));
        if (m) totals[k] = Number(m[1]);
      }
      resolve({ code, totals });
    });
  });
}

// The TypeScript typecheck counts as one test: a type error fails the run.
function typecheck() {
  return new Promise((resolve) => {
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const child = spawn(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], { cwd: root, stdio: 'inherit' });
    child.on('close', (code) => resolve(code === 0));
  });
}

const only = process.argv.slice(2);
let passed = 0, failed = 0, skipped = 0;
if (!only.length || only.includes('typecheck')) {
  console.log('\n=== typecheck ===');
  const ok = await typecheck();
  ok ? passed++ : failed++;
  console.log(`=== typecheck: ${ok ? 'passed' : 'FAILED'} ===`);
}
for (const suite of SUITES) {
  if (only.length && !only.includes(suite.name)) continue;
  const files = testFiles(suite.dir);
  if (files.length === 0) continue;
  console.log(`\n=== ${suite.name}: ${files.length} file(s) ===`);
  const { code, totals } = await runSuite(suite, files);
  passed += totals.pass;
  failed += totals.fail + totals.cancelled;
  skipped += totals.skipped;
  if (code !== 0 && totals.fail + totals.cancelled === 0) failed += 1; // the runner itself failed
  console.log(`=== ${suite.name}: ${totals.pass} passed, ${totals.fail + totals.cancelled} failed, ${totals.skipped} skipped ===`);
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
