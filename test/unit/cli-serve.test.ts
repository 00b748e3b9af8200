/** `hone serve`: flags, the printed address with its token, a clean stop on SIGTERM and SIGINT. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parseServeArgs } from '../../electron/cli/serve.ts';
import { cookie, request } from '../helpers/web-server.ts';

const child = fileURLToPath(new URL('../helpers/serve-child.ts', import.meta.url));

test('serve flags: port, host, data folder, static folder, --allow-remote; bad ones name the flag', () => {
  assert.deepEqual(parseServeArgs([]), { port: 0, host: '127.0.0.1', dataDir: null, staticDir: null, allowRemote: false, help: false });
  assert.deepEqual(parseServeArgs(['--port', '8080', '--host=::1', '--data-dir', 'd', '--static-dir=s', '--allow-remote']), {
    port: 8080, host: '::1', dataDir: 'd', staticDir: 's', allowRemote: true, help: false,
  });
  assert.throws(() => parseServeArgs(['--port', 'http']), /'--port': "http" is not a port number/);
  assert.throws(() => parseServeArgs(['--port', '70000']), /'--port'/);
  assert.throws(() => parseServeArgs(['--port']), /'--port' needs a value/);
  assert.throws(() => parseServeArgs(['--data-dir', '--port', '1']), /'--data-dir' needs a value/);
  assert.throws(() => parseServeArgs(['--hots', 'x']), /unknown option '--hots'/);
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`hone serve prints its address with the token, serves it, and on ${signal} closes and exits 0`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'hone-serve-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const proc = spawn(process.execPath, ['--import', 'tsx', child, '--data-dir', join(dir, 'data'), '--static-dir', join(dir, 'none')], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    t.after(() => proc.kill('SIGKILL'));
    let out = '';
    proc.stdout.on('data', (d) => (out += d));
    proc.stderr.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no address printed: ${out}`)), 20_000);
      proc.stdout.on('data', () => {
        const m = /open (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43})/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]);
        }
      });
    });
    assert.match(out, new RegExp(`service for ${join(dir, 'data').replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')}`));
    const u = new URL(url);
    const s = { port: Number(u.port), host: u.host };
    const token = u.searchParams.get('token')!;
    assert.equal((await request(s, '/')).status, 401);
    const redirect = await request(s, `/?token=${token}`);
    assert.equal(redirect.status, 303);
    const page = await request(s, '/', { headers: cookie(token) });
    assert.equal(page.status, 200);
    assert.match(page.body, /not built/);
    proc.kill(signal);
    assert.equal(await exited, 0, out);
    assert.match(out, /stopping\ndisposed\n/);
  });
}

test('hone serve refuses a non-loopback host without --allow-remote, exit code 2', async () => {
  const proc = spawn(process.execPath, ['--import', 'tsx', child, '--host', '0.0.0.0', '--data-dir', tmpdir()], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  proc.stdout.on('data', (d) => (err += d));
  proc.stderr.on('data', (d) => (err += d));
  const code = await new Promise<number | null>((resolve) => proc.on('exit', (c) => resolve(c)));
  assert.equal(code, 2);
  assert.match(err, /refusing to listen on 0\.0\.0\.0: .*--allow-remote/);
  assert.doesNotMatch(err, /service for/, 'no service is made for a refused address');
});
