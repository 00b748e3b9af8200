// What a package carries, checked without Electron's binary: electron-builder --dir packs a
// fresh build against a stand-in Electron (an executable holding the fuse wire Electron ships
// with). The asar holds only the compiled app and the renderer; the native engine lies unpacked
// in resources/native, byte for byte the build's; the fuses are flipped as configured.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { build } from '../../scripts/build.ts';
import { buildRenderer } from '../../scripts/build-renderer.ts';
import { binDir, repoRoot, sha256, tempDir } from '../helpers/native.ts';

const require = createRequire(import.meta.url);
const SENTINEL = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX';
// Electron's own defaults, in FuseV1Options order: RunAsNode on, cookie encryption off,
// NODE_OPTIONS on, --inspect on, asar integrity off, only-from-asar off, v8 snapshot off, file:// privileges on
const SHIPPED_WIRE = '10110001';

function standInElectron(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const exe = join(dir, 'electron');
  writeFileSync(exe, Buffer.concat([Buffer.from('#!/bin/sh\necho stand-in\n# '), Buffer.from(SENTINEL), Buffer.from([1, SHIPPED_WIRE.length]), Buffer.from(SHIPPED_WIRE + '\n')]));
  chmodSync(exe, 0o755);
  writeFileSync(join(dir, 'version'), JSON.parse(readFileSync(join(repoRoot, 'node_modules', 'electron', 'package.json'), 'utf8')).version);
}

test('electron-builder --dir: the asar, the unpacked engine and the fuses', { timeout: 300_000 }, async (t) => {
  const project = tempDir('hone-package-');
  t.after(() => rmSync(project, { recursive: true, force: true }));
  for (const f of ['package.json', 'electron-builder.yml']) cpSync(join(repoRoot, f), join(project, f));
  cpSync(join(repoRoot, 'docs'), join(project, 'docs'), { recursive: true });
  cpSync(binDir, join(project, 'native', 'bin'), { recursive: true });
  // the builder resolves the production dependencies (the bundles carry them; `files` leaves them out)
  symlinkSync(join(repoRoot, 'node_modules'), join(project, 'node_modules'), 'dir');
  await build({ outdir: join(project, 'out', 'build') });
  await buildRenderer(join(project, 'out', 'renderer'));
  const electronDist = join(project, 'electron-dist');
  standInElectron(electronDist);

  const cli = join(repoRoot, 'node_modules', 'electron-builder', 'cli.js');
  const version = readFileSync(join(electronDist, 'version'), 'utf8');
  const r = spawnSync(process.execPath, [cli, '--linux', 'dir', '--projectDir', project, `-c.electronDist=${electronDist}`, `-c.electronVersion=${version}`, `-c.directories.output=${join(project, 'dist')}`], { encoding: 'utf8', timeout: 240_000 });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  const out = join(project, 'dist', 'linux-unpacked');

  // the asar: package.json, the four bundles, the renderer; no sources, maps, modules or native files
  const asar = require('@electron/asar') as { listPackage(p: string, o?: object): string[]; extractFile(p: string, f: string): Buffer };
  const files = asar.listPackage(join(out, 'resources', 'app.asar')).map((f) => f.replaceAll('\\', '/'));
  for (const f of ['/package.json', '/out/build/main/main.js', '/out/build/preload/preload.cjs', '/out/build/engine-host/host-main.js', '/out/build/cli/hone.js', '/out/renderer/index.html']) assert.ok(files.includes(f), `${f} in the asar`);
  for (const f of files) assert.ok(!/\.(ts|tsx|map|node|gguf)$|\/node_modules\/|\/native\//.test(f), `${f} should not be in the asar`);
  const pkg = JSON.parse(asar.extractFile(join(out, 'resources', 'app.asar'), 'package.json').toString());
  assert.equal(pkg.main, 'out/build/main/main.js');

  // the engine, unpacked where binding.ts looks (<resources>/native), identical to the build's
  const native = join(out, 'resources', 'native');
  for (const f of ['hone.node', 'hone-train', 'llama-quantize']) {
    assert.ok(existsSync(join(native, f)), `${f} unpacked`);
    assert.equal(sha256(join(native, f)), sha256(join(binDir, f)), f);
  }
  assert.deepEqual(readdirSync(join(native, 'vocab')).sort(), readdirSync(join(binDir, 'vocab')).sort());
  assert.ok(!existsSync(join(native, 'test-backend-ops')) && !existsSync(join(native, 'llama-finetune')), 'test tools stay out of the package');
  assert.ok(existsSync(join(out, 'resources', 'docs', 'training.md')), 'the docs Help opens');

  // the fuses, read back from the packaged executable
  const { getCurrentFuseWire, FuseV1Options } = require('@electron/fuses') as typeof import('@electron/fuses');
  // a fuse's state is the byte '0' (off) or '1' (on) in the wire
  const FuseState = { DISABLE: '0'.charCodeAt(0), ENABLE: '1'.charCodeAt(0) };
  const wire = await getCurrentFuseWire(join(out, 'hone'));
  const want: Array<[number, number]> = [
    [FuseV1Options.RunAsNode, FuseState.DISABLE],
    [FuseV1Options.EnableCookieEncryption, FuseState.ENABLE],
    [FuseV1Options.EnableNodeOptionsEnvironmentVariable, FuseState.DISABLE],
    [FuseV1Options.EnableNodeCliInspectArguments, FuseState.DISABLE],
    [FuseV1Options.EnableEmbeddedAsarIntegrityValidation, FuseState.ENABLE],
    [FuseV1Options.OnlyLoadAppFromAsar, FuseState.ENABLE],
    [FuseV1Options.GrantFileProtocolExtraPrivileges, FuseState.DISABLE],
  ];
  for (const [fuse, state] of want) assert.equal((wire as unknown as Record<number, number>)[fuse], state, FuseV1Options[fuse]);
});
