/** Web mode's WebSocket: calls go through the shared validator, errors are replies, events are forwarded. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ServiceEvent } from '../../electron/common/service.ts';
import { call, connect, cookie, openSocket, rawCall, testServer, until } from '../helpers/web-server.ts';

async function open(t: object) {
  const s = await testServer(t);
  return { s, u: await openSocket(s, cookie(s.token)) };
}

test('a valid call reaches the service with its arguments and its result comes back', async (t) => {
  const { s, u } = await open(t);
  const r = await call(u, 'c1', 'models.inspect', ['/models/a.gguf']);
  assert.deepEqual(r, { t: 'reply', id: 'c1', ok: true, result: { method: 'models.inspect', args: ['/models/a.gguf'] } });
  const v = await call(u, 'c2', 'runs.delete', ['run-1']);
  assert.deepEqual(v, { t: 'reply', id: 'c2', ok: true, result: null });
  assert.deepEqual(s.fake.calls, [
    { method: 'models.inspect', args: ['/models/a.gguf'] },
    { method: 'runs.delete', args: ['run-1'] },
  ]);
});

test('bad arguments get an invalid_argument reply naming the argument, and the service is not called', async (t) => {
  const { s, u } = await open(t);
  const cases: Array<[string, unknown[], RegExp]> = [
    ['models.inspect', [42], /models\.inspect: 'path'/],
    ['datasets.import', [[]], /datasets\.import: 'paths'/],
    ['runs.get', ['../etc'], /runs\.get: 'id'/],
    ['runs.events', ['run-1', -1], /runs\.events: 'since'/],
    ['runs.start', [{ model: 'm.gguf', data: ['d.jsonl'], rank: 'eight' }], /runs\.start: 'settings\.rank'/],
    ['info', ['extra'], /info: 'arguments'/],
  ];
  for (const [i, [method, args, names]] of cases.entries()) {
    const r = await call(u, `bad${i}`, method, args);
    assert.equal(r.ok, false, method);
    if (r.ok) continue;
    assert.equal(r.error.code, 'invalid_argument', method);
    assert.match(r.error.message, names);
  }
  assert.deepEqual(s.fake.calls, []);
});

test('an unknown method is unknown_request; a service error comes back with its own code', async (t) => {
  const { s, u } = await open(t);
  const r = await call(u, 'u1', 'fs.readFile', ['/etc/passwd']);
  assert.equal(r.ok, false);
  if (!r.ok) assert.equal(r.error.code, 'unknown_request');
  const proto = await call(u, 'u2', '__proto__', []);
  assert.equal(proto.ok, false);
  if (!proto.ok) assert.equal(proto.error.code, 'unknown_request');
  const e = await call(u, 'u3', 'runs.get', ['missing']);
  assert.deepEqual(e, { t: 'reply', id: 'u3', ok: false, error: { code: 'not_found', message: 'run missing: no such run' } });
  assert.deepEqual(s.fake.calls, [{ method: 'runs.get', args: ['missing'] }]);
});

test('malformed frames get an invalid_argument reply and the socket keeps working', async (t) => {
  const { s, u } = await open(t);
  const notJson = await rawCall(u, '{"t":"call",', null);
  assert.equal(notJson.ok, false);
  if (!notJson.ok) assert.match(notJson.error.message, /not JSON/);
  const frames: Array<[string, unknown, RegExp]> = [
    ['[1,2]', null, /JSON object/],
    ['{"t":"call","method":"info","args":[]}', null, /'id'/],
    ['{"t":"call","id":{},"method":"info","args":[]}', null, /'id'/],
    ['{"t":"hello","id":"h1"}', 'h1', /'t' must be 'call'/],
    ['{"t":"call","id":"m1","args":[]}', 'm1', /'method' is missing/],
    ['{"t":"call","id":"a1","method":"info"}', 'a1', /'args' is missing/],
    ['{"t":"call","id":"a2","method":"info","args":{}}', 'a2', /'arguments' must be a list/],
  ];
  for (const [text, id, says] of frames) {
    const r = await rawCall(u, text, id);
    assert.equal(r.ok, false, text);
    if (r.ok) continue;
    assert.equal(r.error.code, 'invalid_argument', text);
    assert.match(r.error.message, says, text);
  }
  const before = u.messages.length;
  u.ws.send(Buffer.from([1, 2, 3]), { binary: true });
  await until(() => u.messages.length > before, 'the reply to a binary frame');
  const bin = u.messages[before];
  assert.ok(bin.t === 'reply' && !bin.ok && /binary/.test(bin.error.message));
  assert.deepEqual(s.fake.calls, []);
  const ok = await call(u, 'after', 'info', []);
  assert.equal(ok.ok, true);
});

test('a message over the size limit closes that socket with 1009; the server goes on', async (t) => {
  const { s, u } = await open(t);
  const closed = new Promise<number>((resolve) => u.ws.on('close', (code) => resolve(code)));
  u.ws.send(JSON.stringify({ t: 'call', id: 'big', method: 'datasets.import', args: [['x'.repeat(2 * 1024 * 1024)]] }));
  assert.equal(await closed, 1009);
  assert.deepEqual(s.fake.calls, []);
  const again = await openSocket(s, cookie(s.token));
  assert.equal((await call(again, 'c', 'runs.list', [])).ok, true);
  again.ws.close();
});

test('events from subscribe reach every open socket, and a closed socket unsubscribes', async (t) => {
  const { s, u } = await open(t);
  const second = await openSocket(s, cookie(s.token));
  await until(() => s.fake.listeners.size === 2, 'both sockets to subscribe');
  const event: ServiceEvent = { type: 'host-exited', reason: 'killed', runId: 'run-1', error: { code: 'host_exited', message: 'the engine host died' } };
  s.fake.emit(event);
  await until(() => u.messages.length > 0 && second.messages.length > 0, 'the event on both sockets');
  assert.deepEqual(u.messages, [{ t: 'event', event }]);
  assert.deepEqual(second.messages, [{ t: 'event', event }]);
  second.ws.close();
  await until(() => s.fake.listeners.size === 1, 'the closed socket to unsubscribe');
  u.ws.close();
  await until(() => s.fake.listeners.size === 0, 'the last socket to unsubscribe');
});

test('the WebSocket lives at /ws only', async (t) => {
  const s = await testServer(t);
  const r = await connect(s, cookie(s.token), '/other');
  assert.equal(r.status, 404);
});
