// Web mode's client: HoneService over one WebSocket (rpc.ts frames), against a fake socket the
// test drives: replies, errors, events, a dropped connection, the reconnect and its backoff.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { HoneError } from '../../electron/common/errors.ts';
import type { CallMessage } from '../../electron/common/rpc.ts';
import { SERVICE_METHODS } from '../../electron/common/service.ts';
import { backoffDelay, createWebClient, socketUrlFor, type SocketLike } from '../../renderer/src/service/web-client.ts';
import { runSummary } from './data.ts';

class FakeSocket implements SocketLike {
  readyState = 0;
  sent: CallMessage[] = [];
  closedWith: number | null = null;
  onopen: SocketLike['onopen'] = null;
  onclose: SocketLike['onclose'] = null;
  onmessage: SocketLike['onmessage'] = null;
  onerror: SocketLike['onerror'] = null;
  constructor(readonly url: string) {}
  send(text: string) {
    if (this.readyState !== 1) throw new Error('send on a socket that is not open');
    this.sent.push(JSON.parse(text));
  }
  close(code = 1000) {
    this.closedWith = code;
    this.drop(code);
  }
  // test side
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  reply(id: number, result: unknown) {
    this.onmessage?.({ data: JSON.stringify({ t: 'reply', id, ok: true, result }) });
  }
  replyError(id: number, code: string, message: string) {
    this.onmessage?.({ data: JSON.stringify({ t: 'reply', id, ok: false, error: { code, message } }) });
  }
  event(event: unknown) {
    this.onmessage?.({ data: JSON.stringify({ t: 'event', event }) });
  }
  drop(code = 1006) {
    this.readyState = 3;
    this.onclose?.({ code, reason: '' });
  }
}

function setup() {
  const sockets: FakeSocket[] = [];
  const client = createWebClient({
    url: 'ws://127.0.0.1:9/ws',
    createSocket: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    backoff: { initialMs: 100, maxMs: 1000, factor: 2 },
    random: () => 0.5,
  });
  return { client, sockets, last: () => sockets[sockets.length - 1] };
}

describe('web client', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends calls made while connecting once the socket opens, and resolves their replies', async () => {
    const { client, last } = setup();
    const list = client.runs.list();
    const get = client.runs.get('run-7');
    expect(last().sent).toEqual([]);
    last().open();
    expect(last().sent).toEqual([
      { t: 'call', id: 1, method: 'runs.list', args: [] },
      { t: 'call', id: 2, method: 'runs.get', args: ['run-7'] },
    ]);
    last().reply(2, { id: 'run-7' });
    last().reply(1, []);
    await expect(list).resolves.toEqual([]);
    await expect(get).resolves.toEqual({ id: 'run-7' });
  });

  it('turns an error reply into a HoneError with its code, and drops trailing undefined arguments', async () => {
    const { client, last } = setup();
    last().open();
    const p = client.runs.events('run-1', undefined);
    expect(last().sent[0]).toEqual({ t: 'call', id: 1, method: 'runs.events', args: ['run-1'] });
    last().replyError(1, 'not_found', 'run run-1: no such run');
    const err = await p.catch((e) => e);
    expect(err).toBeInstanceOf(HoneError);
    expect(err).toMatchObject({ code: 'not_found', message: 'run run-1: no such run' });
  });

  it('delivers events to every subscriber until it unsubscribes', () => {
    const { client, last } = setup();
    last().open();
    const a: unknown[] = [];
    const b: unknown[] = [];
    const offA = client.subscribe((e) => a.push(e));
    client.subscribe((e) => b.push(e));
    const e1 = { type: 'run-status', run: runSummary() };
    last().event(e1);
    offA();
    last().event(e1);
    expect(a).toEqual([e1]);
    expect(b).toEqual([e1, e1]);
  });

  it('rejects unanswered calls with host_exited when the socket drops, then reconnects with backoff', async () => {
    const { client, sockets, last } = setup();
    const states: string[] = [];
    client.onConnection((i) => states.push(`${i.state}${i.retryInMs != null ? `@${i.retryInMs}` : ''}`));
    last().open();
    const pending = client.plan({ model: '/m.gguf', data: ['/d.jsonl'] });
    last().drop(1006);
    const err = await pending.catch((e) => e);
    expect(err).toMatchObject({ code: 'host_exited', detail: { method: 'plan', closeCode: 1006 } });
    // while closed, a call fails at once instead of waiting
    await expect(client.models.list()).rejects.toMatchObject({ code: 'host_exited' });
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(99);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(2);
    // a failed attempt waits twice as long
    last().drop();
    vi.advanceTimersByTime(199);
    expect(sockets).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(sockets).toHaveLength(3);
    last().open();
    expect(client.connection()).toEqual({ state: 'open', attempt: 0, retryInMs: null });
    expect(states).toEqual(['open', 'closed@100', 'connecting', 'closed@200', 'connecting', 'open']);
  });

  it('stops for good on close(): no reconnect, pending calls rejected', async () => {
    const { client, sockets, last } = setup();
    last().open();
    const p = client.info();
    client.close();
    await expect(p).rejects.toMatchObject({ code: 'host_exited' });
    expect(last().closedWith).toBe(1000);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
  });

  it('offers every method of the contract', () => {
    const { client } = setup();
    for (const m of Object.keys(SERVICE_METHODS)) {
      const [g, n] = m.includes('.') ? m.split('.') : [null, m];
      const fn = g ? (client as unknown as Record<string, Record<string, unknown>>)[g][n] : (client as unknown as Record<string, unknown>)[m];
      expect(typeof fn, m).toBe('function');
    }
    expect(typeof client.subscribe).toBe('function');
  });
});

describe('backoff and address', () => {
  it('doubles up to the cap, spread ±25 %', () => {
    const b = { initialMs: 500, maxMs: 15_000, factor: 2 };
    expect([1, 2, 3, 10].map((n) => backoffDelay(b, n, () => 0.5))).toEqual([500, 1000, 2000, 15_000]);
    expect(backoffDelay(b, 1, () => 0)).toBe(375);
    expect(backoffDelay(b, 1, () => 1)).toBe(625);
  });

  it('uses the page’s own host and scheme', () => {
    expect(socketUrlFor({ protocol: 'http:', host: '127.0.0.1:8765' })).toBe('ws://127.0.0.1:8765/ws');
    expect(socketUrlFor({ protocol: 'https:', host: 'box.example:443' })).toBe('wss://box.example:443/ws');
  });
});
