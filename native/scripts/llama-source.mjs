// Where the pinned llama.cpp source comes from and how it is prepared:
// the node-llama-cpp tarball ships the release as a git bundle; we clone it into a
// cache folder outside the repo and apply our numbered patches in order.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const NODE_LLAMA_CPP = {
  spec: 'node-llama-cpp@3.21.1',
  tarball: 'node-llama-cpp-3.21.1.tgz',
  integrity: 'sha512-E3N0Ev2Va0wzydvXYFwM9Hvyo07PoWjt8T/9GMc43Cvt8YkV/NU/tYUgEMC1grTPv2o9PRjQi0G3Wb5P/awiMg==',
};

export function cacheDir() {
  return process.env.HONE_CACHE_DIR || path.join(os.homedir(), '.cache', 'hone');
}

function run(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], ...opts }).toString();
}

function sha512(file) {
  return 'sha512-' + createHash('sha512').update(fs.readFileSync(file)).digest('base64');
}

/** Downloads (through npm and its cache) and verifies the pinned tarball; returns its path. */
export function fetchTarball(dir) {
  const file = path.join(dir, NODE_LLAMA_CPP.tarball);
  if (!fs.existsSync(file) || sha512(file) !== NODE_LLAMA_CPP.integrity) {
    fs.mkdirSync(dir, { recursive: true });
    run('npm', ['pack', NODE_LLAMA_CPP.spec, '--pack-destination', dir, '--silent']);
  }
  const got = sha512(file);
  if (got !== NODE_LLAMA_CPP.integrity) {
    throw new Error(`${file}: integrity mismatch (expected ${NODE_LLAMA_CPP.integrity}, got ${got})`);
  }
  return file;
}

export function patchFiles(patchDir) {
  if (!fs.existsSync(patchDir)) return [];
  return fs.readdirSync(patchDir).filter((f) => /^\d{4}-.*\.patch$/.test(f)).sort()
    .map((f) => path.join(patchDir, f));
}

/** Hash of the patch series: a new series gives a new source folder, never an in-place edit. */
export function patchesHash(patches) {
  const h = createHash('sha256');
  for (const p of patches) h.update(path.basename(p)).update(fs.readFileSync(p));
  return h.digest('hex').slice(0, 12);
}

/** Returns the path of a patched llama.cpp source tree, preparing it if needed. */
export function prepareLlamaSource(patchDir) {
  const root = cacheDir();
  const tarball = fetchTarball(root);
  const patches = patchFiles(patchDir);
  const infoDir = path.join(root, 'node-llama-cpp-3.21.1');
  const bundle = path.join(infoDir, 'package', 'llama', 'gitRelease.bundle');
  if (!fs.existsSync(bundle)) {
    fs.mkdirSync(infoDir, { recursive: true });
    run('tar', ['-xzf', tarball, '-C', infoDir, 'package/llama/gitRelease.bundle', 'package/llama/llama.cpp.info.json']);
  }
  const info = JSON.parse(fs.readFileSync(path.join(infoDir, 'package', 'llama', 'llama.cpp.info.json'), 'utf8'));
  const src = path.join(root, 'src', `llama.cpp-${info.tag}-${patchesHash(patches)}`);
  if (fs.existsSync(path.join(src, '.hone-ready'))) return { src, tag: info.tag, patches };

  const tmp = `${src}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(src), { recursive: true });
  run('git', ['clone', '--quiet', bundle, tmp]);
  for (const p of patches) {
    try {
      run('git', ['-C', tmp, 'apply', '--whitespace=nowarn', p]);
    } catch (e) {
      fs.rmSync(tmp, { recursive: true, force: true });
      throw new Error(`patch ${path.basename(p)} does not apply to llama.cpp ${info.tag}`);
    }
  }
  fs.writeFileSync(path.join(tmp, '.hone-ready'), patches.map((p) => path.basename(p)).join('\n') + '\n');
  fs.rmSync(src, { recursive: true, force: true });
  fs.renameSync(tmp, src);
  return { src, tag: info.tag, patches };
}
