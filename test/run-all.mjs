#!/usr/bin/env node
// Runs every test suite and prints one closing line: "N passed, N failed[, N skipped]".
// unit: no model, parallel. renderer: the views and the store under vitest (JSX, a DOM).
// native: the engine through its CLI on real GGUF files, serial. ui: chromium end to end.
// Node's suites run with the TAP reporter, vitest with its JSON report; their totals add up.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function testFiles(dir) {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { recursive: true })
    .filter((f) => /\.test\.(ts|tsx|mjs)$/.test(f))
    .sort()
    .map((f) => path.join(dir, f));
}

const SUITES = [
  { name: 'unit', dir: 'test/unit', concurrency: [] },
  { name: 'renderer', dir: 'test/renderer', vitest: 'test/renderer/vitest.config.ts' },
  { name: 'native', dir: 'test/native', concurrency: ['--test-concurrency=1'] },
  { name: 'ui', dir: 'test/ui', concurrency: ['--test-concurrency=1'] },
  // the desktop app through Electron's binary; skipped (with the reason) where it is not installed
  { name: 'electron', dir: 'test/electron', concurrency: ['--test-concurrency=1'] },
];

// vitest runs the folder itself (its config names the files); the JSON report has the totals
function runVitest(suite) {
  return new Promise((resolve) => {
    const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'hone-vitest-')), 'report.json');
    const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const args = [vitest, 'run', '--config', suite.vitest, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`];
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('close', (code) => {
      const totals = { pass: 0, fail: 0, skipped: 0, cancelled: 0 };
      try {
        const r = JSON.parse(fs.readFileSync(report, 'utf8'));
        totals.pass = r.numPassedTests;
        totals.fail = r.numFailedTests;
        totals.skipped = r.numPendingTests + r.numTodoTests;
      } catch {
        // no report: the runner itself failed, counted below
      }
      fs.rmSync(path.dirname(report), { recursive: true, force: true });
      resolve({ code, totals });
    });
  });
}

function runSuite(suite, files) {
  if (suite.vitest) return runVitest(suite);
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

// The TypeScript typecheck counts as one test: a type error fails the run. The renderer and its
// tests have their own projects (DOM and JSX, no Node in the renderer).
const TS_PROJECTS = ['tsconfig.json', 'renderer/tsconfig.json', 'test/renderer/tsconfig.json'];
async function typecheck() {
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  let ok = true;
  for (const project of TS_PROJECTS) {
    const code = await new Promise((resolve) => {
      const child = spawn(process.execPath, [tsc, '--noEmit', '-p', project], { cwd: root, stdio: 'inherit' });
      child.on('close', resolve);
    });
    if (code !== 0) ok = false;
  }
  return ok;
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
