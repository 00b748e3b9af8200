/**
 * Web mode under load: many sockets at once, broken frames, a client that never reads and
 * uploads over the limit, while the server keeps answering and writes nothing outside its data
 * folder. scripts/load-web.ts is the longer version against the real engine.
 */
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import type { ServiceEvent } from '../../electron/common/service.ts';
import { MAX_BUFFERED_BYTES } from '../../electron/server/socket.ts';
import { MALFORMED_FRAMES, sendMalformed } from '../helpers/malformed-frames.ts';
import { rawWebSocket, serverClosed, textFrame } from '../helpers/raw-websocket.ts';
import { bearer, call, cookie, openSocket, request, testServer, until, type TestServer } from '../helpers/web-server.ts';

const DROPPED = /dropped a WebSocket client that stopped reading/;

/** Every path under `root` except the data folder's own. */
function filesOutsideData(s: TestServer): string[] {
  const data = join(s.root, 'data');
  return readdirSync(s.root, { recursive: true, encoding: 'utf8' })
    .map((f) => join(s.root, f))
    .filter((p) => p !== data && !p.startsWith(data + '/'))
    .map((p) => relative(s.root, p))
    .sort();
}

/** A call whose reply echoes about `bytes` of arguments back (the fake service answers `{method, args}`). */
function bigCall(id: number, bytes: number): string {
  const paths = Array.from({ length: Math.ceil(bytes / 4000) }, (_, i) => `/d/${i}-${'x'.repeat(3990)}.jsonl`);
  return JSON.stringify({ t: 'call', id, method: 'datasets.import', args: [paths] });
}

/** An upload of `bytes` sent chunked (no Content-Length), so the limit is found mid-stream. */
function chunkedUpload(s: TestServer, bytes: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: s.port, path: '/upload?name=big.jsonl', method: 'POST', headers: { Host: s.host, ...bearer(s.token), 'Transfer-Encoding': 'chunked' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' || e.code === 'EPIPE' ? resolve(-1) : reject(e)));
    for (let sent = 0; sent < bytes; sent += 16 * 1024) req.write('x'.repeat(16 * 1024));
    req.end();
  });
}

test('a client that stops reading is dropped once its backlog passes the limit; a client that reads gets every event', async (t) => {
  const s = await testServer(t);
  const reader = await openSocket(s, cookie(s.token));
  const stalled = await rawWebSocket(s.port, s.host, s.token); // never reads
  await until(() => s.fake.listeners.size === 2, 'both sockets to subscribe');
  const big = { type: 'host-exited', reason: 'r'.repeat(256 * 1024), runId: null, error: { code: 'host_exited', message: 'x' } } as unknown as ServiceEvent;
  // far past the limit plus what the kernel's socket buffers hold
  const most = Math.ceil((4 * MAX_BUFFERED_BYTES) / (256 * 1024));
  let emitted = 0;
  while (emitted < most && !s.logs.some((l) => DROPPED.test(l))) {
    s.fake.emit(big);
    emitted++;
    await new Promise((r) => setImmediate(r));
  }
  assert.ok(s.logs.some((l) => DROPPED.test(l)), `after ${emitted} events of 256 KiB the stalled client is still held: ${s.logs.join('\n')}`);
  await serverClosed(stalled);
  await until(() => s.fake.listeners.size === 1, 'the dropped socket to unsubscribe');
  await until(() => reader.messages.length === emitted, 'every event on the reading socket', 30_000);
  assert.equal((await call(reader, 'after', 'runs.list', [])).ok, true);
});

test('with 50 sockets calling, broken frames, a stalled reader and uploads over the limit, the server keeps answering', async (t) => {
  const s = await testServer(t, { maxUploadBytes: 64 * 1024 });
  const before = filesOutsideData(s);

  // a cheap request, asked again and again while the rest goes on
  let loading = true;
  const slowest = { ms: 0, answered: 0 };
  const probe = (async () => {
    while (loading) {
      const start = Date.now();
      const r = await request(s, '/', { headers: cookie(s.token) });
      assert.equal(r.status, 200);
      slowest.ms = Math.max(slowest.ms, Date.now() - start);
      slowest.answered++;
      await new Promise((r) => setTimeout(r, 20));
    }
  })();

  const sockets = await Promise.all(Array.from({ length: 50 }, () => openSocket(s, cookie(s.token))));
  const callers = sockets.map(async (u, i) => {
    for (let n = 0; n < 10; n++) {
      const r = await call(u, `c${i}-${n}`, 'runs.list', []);
      assert.equal(r.ok, true);
    }
  });

  const stalled = await rawWebSocket(s.port, s.host, s.token);
  stalled.on('error', () => {});
  const frames = Math.ceil((4 * MAX_BUFFERED_BYTES) / (800 * 1024));
  for (let i = 0; i < frames; i++) stalled.write(textFrame(bigCall(i, 800 * 1024)));

  const malformed = MALFORMED_FRAMES.map(async (m) => [m.name, await sendMalformed(s.port, s.host, s.token, m), m.answer] as const);

  const declared = request(s, '/upload?name=big.jsonl', { method: 'POST', body: 'x'.repeat(64 * 1024 + 1), headers: cookie(s.token) });
  const streamed = chunkedUpload(s, 1024 * 1024);

  await Promise.all(callers);
  for (const [name, observed, expected] of await Promise.all(malformed)) assert.equal(observed, expected, name);
  assert.equal((await declared).status, 413);
  assert.equal(await streamed, 413);
  await until(() => s.logs.some((l) => DROPPED.test(l)), 'the stalled client to be dropped', 20_000);
  loading = false;
  await probe;

  assert.ok(slowest.answered > 0);
  // generous: this bounds "keeps answering", not speed
  assert.ok(slowest.ms < 10_000, `a request waited ${slowest.ms} ms`);
  const after = await openSocket(s, cookie(s.token));
  assert.equal((await call(after, 'last', 'runs.list', [])).ok, true);
  for (const u of [after, ...sockets]) u.ws.close();
  assert.deepEqual(filesOutsideData(s), before);
  assert.deepEqual(readdirSync(s.uploadsDir), []);
});
