#!/usr/bin/env node
// The engine for Windows x64, cross-compiled with MinGW-w64 and run under Wine, so the Windows
// code paths (backend lookup through GetModuleHandleExW/GetProcAddress, wide-character paths,
// the console stop handler, process memory) are compiled and executed somewhere.
//   node native/scripts/windows-cross.mjs [build] [run]     (both when none is named)
// Needs Debian's mingw-w64 (the posix thread model) and wine64. Builds hone-train.exe and
// hone-engine-tests.exe under native/build/windows/bin; `run` runs the engine's unit tests, a
// short CPU training run on the fixture model from a folder with a non-ASCII name, and a refusal
// of a missing model; prints one line per check and exits 1 if any failed.
// What this does not exercise: MSVC's compiler and runtime, the delay-load hook of the Node addon
// (the addon needs node.lib and Electron's headers for Windows), CUDA and Vulkan on Windows.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, prepareLlamaSource } from './llama-source.mjs';

const nativeDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(nativeDir, '..');
const buildDir = process.env.HONE_WINDOWS_BUILD_DIR || path.join(nativeDir, 'build', 'windows');
const binDir = path.join(buildDir, 'bin');
const TARGETS = ['hone-train', 'hone-engine-tests'];

function has(cmd, args = ['--version']) {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

function build() {
  if (!has('x86_64-w64-mingw32-g++-posix')) throw new Error('x86_64-w64-mingw32-g++-posix not found: install mingw-w64');
  const { src, tag, patches } = prepareLlamaSource(path.join(nativeDir, 'patches'));
  console.log(`[windows] llama.cpp ${tag} with ${patches.length} patch(es)`);
  const defs = {
    CMAKE_TOOLCHAIN_FILE: path.join(nativeDir, 'cmake', 'mingw-w64-x86_64.cmake'),
    HONE_LLAMA_DIR: src,
    CMAKE_BUILD_TYPE: 'Release',
    BUILD_SHARED_LIBS: 'OFF',
    GGML_NATIVE: 'OFF', // runs wherever Wine does
    GGML_OPENMP: 'OFF',
    // C at Windows 7's API level: Debian's MinGW-w64 headers lack Windows 8's thread
    // power-throttling type, which ggml-cpu.c uses from 0x602 on (MSVC builds keep it); C++
    // stays at the headers' Windows 10 (cpp-httplib, linked through llama-common, needs it)
    CMAKE_C_FLAGS: '-D_WIN32_WINNT=0x0601',
  };
  if (has('ccache')) defs.CMAKE_C_COMPILER_LAUNCHER = defs.CMAKE_CXX_COMPILER_LAUNCHER = 'ccache';
  const gen = has('ninja') ? ['-G', 'Ninja'] : [];
  const env = { ...process.env, CCACHE_BASEDIR: cacheDir(), CCACHE_NOHASHDIR: 'true' };
  execFileSync('cmake', ['-S', nativeDir, '-B', buildDir, ...gen, ...Object.entries(defs).map(([k, v]) => `-D${k}=${v}`)], { stdio: ['ignore', 'ignore', 'inherit'], env });
  const jobs = String(Number(process.env.HONE_JOBS) || os.availableParallelism());
  execFileSync('cmake', ['--build', buildDir, '-j', jobs, '--target', ...TARGETS], { stdio: 'inherit', env });
  for (const t of TARGETS) if (!fs.existsSync(path.join(binDir, `${t}.exe`))) throw new Error(`${t}.exe is missing under ${binDir}`);
  console.log(`[windows] built ${TARGETS.map((t) => `${t}.exe`).join(', ')} in ${binDir}`);
}

// Wine in a prefix of its own (created on first use), its own chatter silenced.
function wine() {
  const cmd = ['wine64', 'wine'].find((c) => has(c, ['--version']));
  if (!cmd) throw new Error('wine64 not found: install wine64');
  const prefix = process.env.WINEPREFIX || path.join(cacheDir(), 'wine-prefix');
  fs.mkdirSync(prefix, { recursive: true });
  const env = { ...process.env, WINEPREFIX: prefix, WINEDEBUG: '-all', WINEDLLOVERRIDES: 'mscoree,mshtml=' };
  return (exe, args, timeout = 600_000) => {
    const r = spawnSync(cmd, [path.join(binDir, exe), ...args], { env, encoding: 'utf8', timeout, maxBuffer: 64 << 20 });
    return { code: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
  };
}

function run() {
  const fixtures = process.env.HONE_FIXTURES ? path.resolve(process.env.HONE_FIXTURES) : path.resolve(repoRoot, '..', 'shared', 'fixtures');
  const exec = wine();
  const results = [];
  const check = (name, ok, detail) => {
    results.push(ok);
    console.log(`${ok ? 'ok' : 'FAILED'} windows: ${name}${detail ? ` (${detail})` : ''}`);
  };

  const units = exec('hone-engine-tests.exe', []);
  const passed = (units.stdout.match(/^ok /gm) ?? []).length;
  const failed = (units.stdout.match(/^not ok /gm) ?? []).length;
  check('hone-engine-tests.exe', units.code === 0 && passed > 0 && failed === 0, `${passed} passed, ${failed} failed, exit ${units.code}${units.code ? `: ${units.stderr.slice(-400)}` : ''}`);

  // a folder name outside ASCII: the paths go through the wide-character file APIs
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hone-windows-'));
  const wide = path.join(dir, 'modèle ß 模型');
  fs.mkdirSync(wide);
  const model = path.join(wide, 'stories260K.gguf');
  fs.copyFileSync(path.join(fixtures, 'stories260K.gguf'), model);
  const out = path.join(wide, 'run');
  const args = (o) => ['--data', path.join(fixtures, 'tinyshakespeare.txt'), '--out', o, '--steps', '4', '--ctx', '64', '--batch', '2',
    '--lr', '1e-2', '--backend', 'cpu', '--threads', '2', '--json'];
  const stepLosses = (stdout) => stdout.split('\n').filter((l) => l.startsWith('{"type":"step"')).map((l) => JSON.parse(l).loss);
  const train = exec('hone-train.exe', ['--model', model, ...args(out)]);
  const losses = stepLosses(train.stdout);
  // the same run by this machine's own build: the Windows engine computes the same losses
  const linuxBin = path.join(nativeDir, 'bin', 'hone-train');
  const linux = fs.existsSync(linuxBin) ? stepLosses(spawnSync(linuxBin, ['--model', model, ...args(path.join(dir, 'linux'))], { encoding: 'utf8' }).stdout ?? '') : [];
  const same = linux.length === 4 && losses.every((l, i) => Math.abs(l - linux[i]) <= 1e-3 * Math.abs(linux[i]));
  const adapter = fs.existsSync(path.join(out, 'adapter.gguf'));
  check('hone-train.exe trains 4 steps on the CPU from a non-ASCII folder, with the losses of the Linux build',
    train.code === 0 && losses.length === 4 && adapter && same,
    `exit ${train.code}, losses ${losses.map((l) => l.toFixed(4)).join(' ')} (Linux: ${linux.map((l) => l.toFixed(4)).join(' ') || 'not built'}), adapter ${adapter ? 'written' : 'missing'}${train.code ? `: ${train.stderr.slice(-400)}` : ''}`);

  const missing = exec('hone-train.exe', ['--model', path.join(wide, 'missing.gguf'), '--data', path.join(fixtures, 'tinyshakespeare.txt'),
    '--out', path.join(wide, 'none'), '--steps', '1', '--json']);
  const refusal = missing.stdout.split('\n').find((l) => l.includes('"type":"error"')) ?? '';
  check('hone-train.exe refuses a missing model with a named error', missing.code !== 0 && missing.signal === null && /"code":"(io_error|load_failed)"/.test(refusal),
    `exit ${missing.code}: ${refusal.slice(0, 200)}`);
  fs.rmSync(dir, { recursive: true, force: true });
  const bad = results.filter((r) => !r).length;
  console.log(`windows: ${results.length - bad} passed, ${bad} failed`);
  return bad === 0;
}

const steps = process.argv.slice(2);
const want = (s) => steps.length === 0 || steps.includes(s);
try {
  if (want('build')) build();
  if (want('run') && !run()) process.exitCode = 1;
} catch (e) {
  console.error(`[windows] ${e.message}`);
  process.exitCode = 1;
}
