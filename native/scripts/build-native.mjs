#!/usr/bin/env node
// Builds ggml + llama.cpp (pinned, patched) and the Hone engine, CLI and tools.
// Backends: CPU always; Metal on macOS arm64; CUDA only when HONE_CUDA=1 (never detected:
// nvcc may exist on machines without a GPU, and a ggml-cuda build takes a long time).
// GGML_NATIVE is on for local builds (HONE_NATIVE=0 turns it off). HONE_DIST=1 makes the
// distributable engine (`npm run dist`): no GGML_NATIVE; shared ggml and llama libraries with the
// backends as modules loaded at run time (GGML_BACKEND_DL), every CPU variant on x86-64, all of
// them copied beside the addon (one copy of ggml per process); no test tools.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, prepareLlamaSource } from './llama-source.mjs';

const nativeDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const binDir = path.join(nativeDir, 'bin');

const VOCABS = ['llama-spm', 'llama-bpe', 'qwen2', 'phi-3'];
const TARGETS = ['hone-train', 'llama-quantize', 'test-backend-ops', 'llama-finetune', 'hone-test-out-prod-cpu', 'hone-test-mul-mat-id-back-cpu', 'hone-engine-tests', 'hone-fuzz-gguf'];
// what a package carries (no tests: the kernel test links ggml-cpu itself, which a DL build does not have)
const DIST_TARGETS = ['hone-train', 'llama-quantize'];
const SHARED_LIB = /\.(so|dylib|dll)$/;

// The Node addon's headers: node-api-headers and node-addon-api from node_modules (devDependencies;
// nothing is downloaded). Without them the addon is skipped and the rest still builds.
function napiDirs() {
  try {
    const require = createRequire(path.join(nativeDir, '..', 'package.json'));
    const headers = require('node-api-headers');
    const addonApi = path.dirname(require.resolve('node-addon-api/package.json'));
    return { include: headers.include_dir, def: headers.def_paths.node_api_def, addonApi };
  } catch {
    return null;
  }
}

function has(cmd) {
  try { execFileSync(cmd, ['--version'], { stdio: 'ignore' }); return true; } catch { return false; }
}

function main() {
  if (process.env.HONE_SKIP_NATIVE === '1') {
    console.log('[hone] HONE_SKIP_NATIVE=1: native build skipped');
    return;
  }
  const { src, tag, patches } = prepareLlamaSource(path.join(nativeDir, 'patches'));
  console.log(`[hone] llama.cpp ${tag} with ${patches.length} patch(es): ${src}`);

  const cuda = process.env.HONE_CUDA === '1';
  const metal = process.platform === 'darwin' && process.arch === 'arm64';
  const dist = process.env.HONE_DIST === '1';
  const native = !dist && process.env.HONE_NATIVE !== '0';
  const defs = {
    HONE_LLAMA_DIR: src,
    CMAKE_BUILD_TYPE: 'Release',
    BUILD_SHARED_LIBS: dist ? 'ON' : 'OFF',
    CMAKE_POSITION_INDEPENDENT_CODE: 'ON',
    GGML_NATIVE: native ? 'ON' : 'OFF',
    GGML_CUDA: cuda ? 'ON' : 'OFF',
    GGML_METAL: metal ? 'ON' : 'OFF',
    GGML_OPENMP: 'OFF',
  };
  if (dist) {
    defs.GGML_BACKEND_DL = 'ON';
    // a CUDA module that needs NCCL would not load where NCCL is not installed
    if (cuda) defs.GGML_CUDA_NCCL = 'OFF';
    // one CPU module per instruction-set level, the best one picked on the user's machine
    if (process.arch === 'x64') defs.GGML_CPU_ALL_VARIANTS = 'ON';
    // Metal's shaders inside its library: nothing to find beside it at run time
    if (metal) defs.GGML_METAL_EMBED_LIBRARY = 'ON';
  }
  if (cuda) defs.CMAKE_CUDA_ARCHITECTURES = process.env.HONE_CUDA_ARCH || 'native';
  if (has('ccache')) {
    defs.CMAKE_C_COMPILER_LAUNCHER = 'ccache';
    defs.CMAKE_CXX_COMPILER_LAUNCHER = 'ccache';
    if (cuda) defs.CMAKE_CUDA_COMPILER_LAUNCHER = 'ccache';
  }
  // One build folder per checkout and configuration (CMake ties a build folder to its source).
  const key = createHash('sha256').update(JSON.stringify({ defs, nativeDir })).digest('hex').slice(0, 12);
  const buildDir = process.env.HONE_BUILD_DIR || path.join(cacheDir(), 'build', key);
  const gen = has('ninja') ? ['-G', 'Ninja'] : [];
  const jobs = String(Number(process.env.HONE_JOBS) || os.availableParallelism());

  const args = ['-S', nativeDir, '-B', buildDir, ...gen, ...Object.entries(defs).map(([k, v]) => `-D${k}=${v}`)];
  // Not part of the build folder's key: node_modules paths do not change what llama.cpp builds.
  const napi = napiDirs();
  if (napi) args.push(`-DHONE_NAPI_INCLUDE=${napi.include}`, `-DHONE_NODE_ADDON_API=${napi.addonApi}`, `-DHONE_NAPI_DEF=${napi.def}`);
  else console.log('[hone] node-api-headers / node-addon-api not installed: the Node addon is skipped');
  // (a DL build's backend modules are dependencies of ggml: they come with any of these)
  const tools = dist ? DIST_TARGETS : TARGETS;
  const targets = napi ? [...tools, 'hone_node'] : tools;
  // ccache: hash paths relative to the cache root, so a new patch series (a new source and
  // build folder) still hits the cache for every file the patches did not change.
  const env = { ...process.env, CCACHE_BASEDIR: cacheDir(), CCACHE_NOHASHDIR: 'true' };
  execFileSync('cmake', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
  execFileSync('cmake', ['--build', buildDir, '-j', jobs, '--target', ...targets], { stdio: 'inherit', env });

  fs.mkdirSync(binDir, { recursive: true });
  // libraries of an earlier distributable build must not shadow a static one (and the reverse)
  for (const f of fs.readdirSync(binDir)) if (SHARED_LIB.test(f)) fs.rmSync(path.join(binDir, f));
  for (const t of TARGETS.filter((x) => !tools.includes(x))) fs.rmSync(path.join(binDir, process.platform === 'win32' ? `${t}.exe` : t), { force: true });
  for (const t of tools) {
    const exe = process.platform === 'win32' ? `${t}.exe` : t;
    const found = [path.join(buildDir, 'bin', exe), path.join(buildDir, exe)].find((p) => fs.existsSync(p));
    if (!found) throw new Error(`build finished but ${exe} is missing under ${buildDir}`);
    const dest = path.join(binDir, exe);
    fs.copyFileSync(found, `${dest}.tmp`);
    fs.chmodSync(`${dest}.tmp`, 0o755);
    fs.renameSync(`${dest}.tmp`, dest);
  }
  if (napi) {
    const found = path.join(buildDir, 'bin', 'hone.node');
    if (!fs.existsSync(found)) throw new Error(`build finished but hone.node is missing under ${buildDir}`);
    fs.copyFileSync(found, path.join(binDir, 'hone.node.tmp'));
    fs.renameSync(path.join(binDir, 'hone.node.tmp'), path.join(binDir, 'hone.node'));
  }
  if (dist) {
    const libs = fs.readdirSync(path.join(buildDir, 'bin')).filter((f) => SHARED_LIB.test(f));
    if (!libs.some((f) => f.includes('ggml-cpu'))) throw new Error(`distributable build finished but no CPU backend module is in ${path.join(buildDir, 'bin')}`);
    for (const f of libs) fs.copyFileSync(path.join(buildDir, 'bin', f), path.join(binDir, f));
    console.log(`[hone] ${libs.length} shared libraries beside the engine: ${libs.join(', ')}`);
    // a Windows package carries the CUDA runtime the CUDA module links (the user has only the driver)
    if (cuda && process.platform === 'win32') {
      const cudaBin = path.join(process.env.CUDA_PATH || '', 'bin');
      const runtime = fs.existsSync(cudaBin) ? fs.readdirSync(cudaBin).filter((f) => /^(cudart64|cublas64|cublasLt64)_\d+\.dll$/.test(f)) : [];
      if (runtime.length < 3) throw new Error(`the CUDA runtime DLLs (cudart, cublas, cublasLt) are not all in ${cudaBin} (CUDA_PATH)`);
      for (const f of runtime) fs.copyFileSync(path.join(cudaBin, f), path.join(binDir, f));
      console.log(`[hone] CUDA runtime beside the engine: ${runtime.join(', ')}`);
    }
  }
  // Vocab files from the llama.cpp source: real tokenizers for synthetic test models.
  fs.mkdirSync(path.join(binDir, 'vocab'), { recursive: true });
  for (const v of VOCABS) fs.copyFileSync(path.join(src, 'models', `ggml-vocab-${v}.gguf`), path.join(binDir, 'vocab', `${v}.gguf`));
  fs.writeFileSync(path.join(binDir, 'build.json'), JSON.stringify({ tag, patches: patches.map((p) => path.basename(p)), cuda, metal, native, dist }, null, 2) + '\n');
  console.log(`[hone] native tools in ${path.relative(process.cwd(), binDir) || binDir}`);
}

try {
  main();
} catch (e) {
  console.error(`[hone] native build failed: ${e.message}`);
  process.exit(1);
}
