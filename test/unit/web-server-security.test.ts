/** Web mode's gate: the token and its cookie, the Host check, the Origin check, headers, static files. */
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startServer } from '../../electron/server/server.ts';
import { bearer, connect, cookie, fakeService, openSocket, request, testServer } from '../helpers/web-server.ts';

test('without a token every route answers 401: the page, a static file, upload and the WebSocket', async (t) => {
  const s = await testServer(t);
  for (const path of ['/', '/index.html', '/app.js', '/assets/style.css', '/no-such-file']) {
    const r = await request(s, path);
    assert.equal(r.status, 401, path);
    assert.doesNotMatch(r.body, /console\.log|<title>/, path);
  }
  const up = await request(s, '/upload?name=a.jsonl', { method: 'POST', body: '{}\n' });
  assert.equal(up.status, 401);
  const ws = await connect(s, {});
  assert.equal(ws.status, 401);
  assert.deepEqual(s.fake.calls, []);
});

test('a wrong token is refused however it comes: in the URL, as a cookie, as a Bearer header, on the WebSocket', async (t) => {
  const s = await testServer(t);
  const wrong = s.token.slice(0, -1) + (s.token.endsWith('A') ? 'B' : 'A');
  assert.equal((await request(s, `/?token=${wrong}`)).status, 401);
  assert.equal((await request(s, '/?token=')).status, 401);
  assert.equal((await request(s, '/', { headers: cookie(wrong) })).status, 401);
  assert.equal((await request(s, '/', { headers: bearer(wrong) })).status, 401);
  assert.equal((await request(s, '/', { headers: { Authorization: `Basic ${s.token}` } })).status, 401);
  assert.equal((await connect(s, cookie(wrong))).status, 401);
  assert.equal((await connect(s, bearer(wrong))).status, 401);
});

test('the token in the URL sets an HttpOnly SameSite=Strict cookie and redirects to the same address without it', async (t) => {
  const s = await testServer(t);
  assert.ok(Buffer.from(s.token, 'base64url').length >= 16, 'token has at least 128 bits');
  assert.equal(s.url, `http://127.0.0.1:${s.port}/?token=${s.token}`);

  const r = await request(s, `/?token=${s.token}`);
  assert.equal(r.status, 303);
  assert.equal(r.headers.location, '/');
  assert.deepEqual(r.headers['set-cookie'], [`hone_token=${s.token}; HttpOnly; SameSite=Strict; Path=/`]);

  const deep = await request(s, `/assets/style.css?v=2&token=${s.token}`);
  assert.equal(deep.status, 303);
  assert.equal(deep.headers.location, '/assets/style.css?v=2');

  // a path that the URL parser would turn into a protocol-relative address stays on this server
  const sneaky = await request(s, `/.//evil.example/?token=${s.token}`);
  assert.equal(sneaky.status, 303);
  assert.match(sneaky.headers.location ?? '', /^\/[^/\\]/);

  const page = await request(s, '/', { headers: cookie(s.token) });
  assert.equal(page.status, 200);
  assert.match(page.body, /<title>Hone<\/title>/);
  assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
  const js = await request(s, '/app.js', { headers: cookie(s.token) });
  assert.equal(js.status, 200);
  assert.equal(js.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(js.body, 'console.log("hone");\n');
  const css = await request(s, '/assets/style.css', { headers: bearer(s.token) });
  assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
});

test('every response carries the CSP, nosniff, no-referrer and no-store, refusals included', async (t) => {
  const s = await testServer(t);
  for (const r of [await request(s, '/', { headers: cookie(s.token) }), await request(s, '/'), await request(s, '/', { headers: { Host: 'evil.example' } })]) {
    const csp = String(r.headers['content-security-policy']);
    for (const part of ["default-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "img-src 'self' data:", "style-src 'self' 'unsafe-inline'"]) {
      assert.ok(csp.includes(part), `${r.status}: CSP has ${part}: ${csp}`);
    }
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.equal(r.headers['cache-control'], 'no-store');
  }
  const ok = await request(s, '/', { headers: cookie(s.token) });
  assert.match(String(ok.headers['content-security-policy']), new RegExp(`connect-src 'self' ws://127\\.0\\.0\\.1:${s.port};`));
});

test('a Host that is not this server (DNS rebinding) is refused on HTTP and on the WebSocket, even with the token', async (t) => {
  const s = await testServer(t);
  const other = s.port === 65535 ? s.port - 1 : s.port + 1;
  for (const host of ['evil.example', `evil.example:${s.port}`, `127.0.0.1:${other}`, `localhost:${other}`, '127.0.0.1']) {
    const r = await request(s, '/', { headers: { ...cookie(s.token), Host: host } });
    assert.equal(r.status, 421, `HTTP Host ${host}`);
    const u = await request(s, '/upload?name=a.txt', { method: 'POST', body: 'x', headers: { ...cookie(s.token), Host: host } });
    assert.equal(u.status, 421, `upload Host ${host}`);
    const ws = await connect({ port: s.port, host }, cookie(s.token));
    assert.equal(ws.status, 421, `WebSocket Host ${host}`);
  }
  for (const host of [`127.0.0.1:${s.port}`, `localhost:${s.port}`, `LOCALHOST:${s.port}`, `[::1]:${s.port}`]) {
    assert.equal((await request(s, '/', { headers: { ...cookie(s.token), Host: host } })).status, 200, host);
  }
  assert.deepEqual(s.fake.calls, []);
});

test('a foreign Origin is refused on upload and on the WebSocket; the server\'s own origin is accepted', async (t) => {
  const s = await testServer(t);
  for (const origin of ['http://evil.example', `http://127.0.0.1:${s.port + 1}`, `https://127.0.0.1:${s.port}`, 'null']) {
    const up = await request(s, '/upload?name=a.txt', { method: 'POST', body: 'x', headers: { ...cookie(s.token), Origin: origin } });
    assert.equal(up.status, 403, `upload from ${origin}`);
    const ws = await connect(s, { ...cookie(s.token), Origin: origin });
    assert.equal(ws.status, 403, `WebSocket from ${origin}`);
  }
  const up = await request(s, '/upload?name=a.txt', { method: 'POST', body: 'x', headers: { ...cookie(s.token), Origin: s.origin } });
  assert.equal(up.status, 200);
  const ws = await openSocket(s, { ...cookie(s.token), Origin: s.origin });
  ws.ws.close();
});

test('static paths with .., encoded dots, encoded slashes or a symlink out never reach a file outside the folder', async (t) => {
  const s = await testServer(t);
  symlinkSync(join(s.root, 'secret.txt'), join(s.staticDir, 'link.txt'));
  const paths = [
    '/../secret.txt',
    '/assets/../../secret.txt',
    '/%2e%2e/secret.txt',
    '/%2E%2E/secret.txt',
    '/..%2fsecret.txt',
    '/%2e%2e%2fsecret.txt',
    '/assets/..%2f..%2fsecret.txt',
    '/assets/..%5c..%5csecret.txt',
    '/..\\secret.txt',
    '/%00/secret.txt',
    '/%zz',
    '/link.txt',
    '/assets',
  ];
  for (const path of paths) {
    const r = await request(s, path, { headers: cookie(s.token) });
    assert.ok(r.status === 404 || r.status === 403 || r.status === 400, `${path} answered ${r.status}`);
    assert.doesNotMatch(r.body, /SECRET/, path);
  }
});

test('before the renderer is built, / says so (still behind the token)', async (t) => {
  const s = await testServer(t, { staticDir: join('/nonexistent-hone-static', String(process.pid)) });
  assert.equal((await request(s, '/')).status, 401);
  const page = await request(s, '/', { headers: cookie(s.token) });
  assert.equal(page.status, 200);
  assert.match(page.body, /not built/);
  assert.equal((await request(s, '/app.js', { headers: cookie(s.token) })).status, 404);
});

test('binding anything but loopback without allowRemote is refused before listening, naming the flag', async () => {
  const { service } = fakeService();
  for (const host of ['0.0.0.0', '::', '192.0.2.10']) {
    await assert.rejects(startServer({ service, host, staticDir: '.', dataDir: '.' }), (e: Error & { code?: string }) => {
      assert.equal(e.code, 'invalid_argument');
      assert.match(e.message, new RegExp(`refusing to listen on ${host.replace(/\./g, '\\.')}: .*--allow-remote`));
      return true;
    });
  }
});

test('close() ends open sockets and stops listening', async (t) => {
  const s = await testServer(t);
  const u = await openSocket(s, cookie(s.token));
  const closed = new Promise<number>((resolve) => u.ws.on('close', (code) => resolve(code)));
  await s.close();
  assert.equal(await closed, 1001);
  assert.equal(s.fake.listeners.size, 0);
  await assert.rejects(request(s, '/', { headers: cookie(s.token) }), /ECONNREFUSED/);
});
