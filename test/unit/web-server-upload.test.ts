/** POST /upload: sanitised names inside uploads/ only, the size limit, and nothing left behind by a failure. */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { pbkdf2 } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { freeName, sanitiseUploadName } from '../../electron/server/upload.ts';
import { cookie, request, testServer, until, type TestServer } from '../helpers/web-server.ts';

const listUploads = (s: TestServer) => (existsSync(s.uploadsDir) ? readdirSync(s.uploadsDir).sort() : []);

function upload(s: TestServer, name: string, body: string | Buffer, headers: Record<string, string> = {}) {
  return request(s, `/upload?name=${encodeURIComponent(name)}`, { method: 'POST', body, headers: { ...cookie(s.token), ...headers } });
}

test('a file lands in uploads/ under its sanitised name; the reply is its server-side path and size', async (t) => {
  const s = await testServer(t);
  const body = '{"text":"hello"}\n{"text":"world"}\n';
  const r = await upload(s, 'chats.jsonl', body);
  assert.equal(r.status, 200);
  const reply = JSON.parse(r.body) as { path: string; bytes: number };
  assert.deepEqual(reply, { path: join(s.uploadsDir, 'chats.jsonl'), bytes: Buffer.byteLength(body) });
  assert.equal(readFileSync(reply.path, 'utf8'), body);
  assert.equal(r.headers['cache-control'], 'no-store');

  const again = JSON.parse((await upload(s, 'chats.jsonl', 'x\n')).body) as { path: string };
  assert.equal(again.path, join(s.uploadsDir, 'chats-1.jsonl'));
  const third = JSON.parse((await upload(s, 'CHATS.jsonl', 'y\n')).body) as { path: string };
  assert.equal(third.path, join(s.uploadsDir, 'CHATS-2.jsonl'));
  assert.equal(readFileSync(join(s.uploadsDir, 'chats.jsonl'), 'utf8'), body, 'the first file is untouched');
  assert.deepEqual(listUploads(s), ['CHATS-2.jsonl', 'chats-1.jsonl', 'chats.jsonl']);
});

test('a name that climbs or carries separators lands only inside uploads/, as its plain file name', async (t) => {
  const s = await testServer(t);
  const names: Array<[string, string]> = [
    ['../../etc/passwd.txt', 'passwd.txt'],
    ['..\\..\\windows\\system.ini.csv', 'system.ini.csv'],
    ['/abs/path/notes.md', 'notes.md'],
    ['.hidden.json', 'hidden.json'],
    ['bad\u0000\u0007name\r\n.tsv', 'badname.tsv'],
    ['con:fig?.txt', 'config.txt'],
  ];
  for (const [raw, want] of names) {
    const r = await upload(s, raw, 'data\n');
    assert.equal(r.status, 200, raw);
    const { path } = JSON.parse(r.body) as { path: string };
    assert.equal(dirname(path), s.uploadsDir, raw);
    assert.equal(path, join(s.uploadsDir, want), raw);
  }
  assert.equal(existsSync(join(s.root, 'etc')), false);
  assert.equal(existsSync(join(s.root, 'data', 'etc')), false);
  assert.deepEqual(listUploads(s), names.map(([, n]) => n).sort());
});

test('a name without a dataset extension, or without a name at all, is refused with 400 and writes nothing', async (t) => {
  const s = await testServer(t);
  for (const raw of ['passwd', '../..', '..', 'model.gguf', 'run.sh', 'a.jsonl.exe', '   ']) {
    const r = await upload(s, raw, 'data\n');
    assert.equal(r.status, 400, raw);
    assert.equal((JSON.parse(r.body) as { error: { code: string } }).error.code, 'invalid_argument', raw);
  }
  const none = await request(s, '/upload', { method: 'POST', body: 'x', headers: cookie(s.token) });
  assert.equal(none.status, 400);
  assert.match(none.body, /\?name=FILE/);
  assert.equal((await request(s, '/upload?name=a.txt', { headers: cookie(s.token) })).status, 405);
  assert.deepEqual(listUploads(s), []);
});

test('a body over the limit is refused with 413: by its Content-Length before reading, or mid-stream, leaving nothing', async (t) => {
  const s = await testServer(t, { maxUploadBytes: 1000 });
  const declared = await upload(s, 'big.jsonl', 'x'.repeat(1001));
  assert.equal(declared.status, 413);
  assert.match(declared.body, /larger than the limit of 1000 bytes/);
  assert.deepEqual(listUploads(s), []);

  // chunked: no Content-Length, the limit is found while streaming
  const status = await new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: s.port, path: '/upload?name=big.jsonl', method: 'POST', headers: { Host: s.host, ...cookie(s.token), 'Transfer-Encoding': 'chunked' } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    let sent = 0;
    const pump = () => {
      // bounded: 64 chunks of 100 bytes, well past the limit
      while (sent < 64 && !req.destroyed) {
        sent++;
        if (!req.write('y'.repeat(100))) return void req.once('drain', pump);
      }
    };
    pump();
  });
  assert.equal(status, 413);
  await until(() => listUploads(s).length === 0, 'the partial file to be removed');
  const exact = await upload(s, 'fits.jsonl', 'z'.repeat(1000));
  assert.equal(exact.status, 200, 'a body of exactly the limit is accepted');
  assert.deepEqual(listUploads(s), ['fits.jsonl']);
});

test('a connection dropped mid-upload leaves nothing behind', async (t) => {
  const s = await testServer(t);
  const req = httpRequest({ host: '127.0.0.1', port: s.port, path: '/upload?name=dropped.jsonl', method: 'POST', headers: { Host: s.host, ...cookie(s.token), 'Content-Length': '100000' } });
  req.on('error', () => {});
  req.write('a'.repeat(5000));
  await until(() => listUploads(s).includes('dropped.jsonl.part'), 'the upload to start');
  req.destroy();
  await until(() => listUploads(s).length === 0, 'the server to remove the partial file');
  assert.equal(existsSync(join(s.uploadsDir, 'dropped.jsonl')), false);
});

test('a connection dropped before the server starts reading the body leaves nothing behind and does not hold up shutdown', async (t) => {
  const s = await testServer(t);
  // the file system calls before the body is read wait behind a busy thread pool, so the client is gone by then
  const busy = Array.from({ length: 8 }, () => promisify(pbkdf2)('p', 's', 400_000, 32, 'sha256'));
  // one hangs up halfway through its body, one right after sending all of it
  const reqs = [100000, 5000].map((length) => {
    const req = httpRequest({ host: '127.0.0.1', port: s.port, path: '/upload?name=early.jsonl', method: 'POST', headers: { Host: s.host, ...cookie(s.token), 'Content-Length': String(length) } });
    req.on('error', () => {});
    req.write('a'.repeat(5000));
    return req;
  });
  await new Promise((r) => setTimeout(r, 200));
  for (const req of reqs) req.destroy();
  await Promise.all(busy);
  const closed = await Promise.race([s.close().then(() => 'closed'), new Promise((r) => setTimeout(r, 10_000)).then(() => 'still waiting on the upload')]);
  assert.equal(closed, 'closed');
  assert.deepEqual(listUploads(s), []);
});

test('sanitiseUploadName keeps names short with their extension; freeName counts past taken names', () => {
  const long = sanitiseUploadName('a'.repeat(300) + '.jsonl');
  assert.ok(long.length <= 120 && long.endsWith('.jsonl'), long);
  assert.equal(freeName('d.csv', new Set(['d.csv', 'd-1.csv'])), 'd-2.csv');
  assert.equal(freeName('d.csv', new Set()), 'd.csv');
  assert.throws(() => sanitiseUploadName(null), /\?name=FILE/);
});
