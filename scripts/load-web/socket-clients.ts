/**
 * The load's WebSocket clients, each a loop that runs while `running()`: callers that read
 * everything, senders of broken frames, and slow readers that ask for large replies and never
 * read them.
 */
import type { Socket } from 'node:net';
import { MALFORMED_FRAMES, sendMalformed } from '../../test/helpers/malformed-frames.ts';
import { rawWebSocket, textFrame } from '../../test/helpers/raw-websocket.ts';
import { RpcClient, type Address } from './rpc-client.ts';
import type { Tally } from './tally.ts';

export type Running = () => boolean;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Cheap and not-so-cheap reads, as a page that follows a run makes them. */
function nextCall(n: number, runId: string): [string, unknown[]] {
  const calls: Array<[string, unknown[]]> = [
    ['runs.list', []],
    ['runs.get', [runId]],
    ['runs.events', [runId, Math.max(0, n * 10)]],
    ['runs.opReport', [runId]],
  ];
  return calls[n % calls.length];
}

/** Calls one after another on one socket; every reply must come, and say ok (opReport may be not_found before the first report). */
export async function caller(a: Address, runId: string, tally: Tally, running: Running): Promise<number> {
  const c = await RpcClient.open(a);
  for (let n = 0; running(); n++) {
    const [method, args] = nextCall(n, runId);
    tally.sent(`ws ${method}`);
    const start = performance.now();
    try {
      const r = await c.call(method, args);
      tally.took(`ws ${method}`, performance.now() - start);
      if (!r.ok) (method === 'runs.opReport' && r.error.code === 'not_found' ? tally.asExpected : tally.failed).call(tally, `ws ${method}: ${r.error.code}`);
    } catch (e) {
      tally.failed(`ws ${method}: ${(e as Error).message}`);
    }
    await pause(50);
  }
  const events = c.events;
  c.close();
  return events;
}

/** Sends every broken frame in turn on a fresh socket each; the server must answer each as its kind says. */
export async function frameBreaker(a: Address, tally: Tally, running: Running): Promise<void> {
  for (let n = 0; running(); n++) {
    const m = MALFORMED_FRAMES[n % MALFORMED_FRAMES.length];
    tally.sent('malformed frame');
    try {
      const observed = await sendMalformed(a.port, a.host, a.token, m);
      if (observed === m.answer) tally.asExpected(`frame: ${observed}`);
      else tally.failed(`frame "${m.name}": ${observed}, expected ${m.answer}`);
    } catch (e) {
      tally.failed(`frame "${m.name}": ${(e as Error).message}`);
    }
  }
}

/**
 * Opens a socket, asks for the run's whole event log again and again and never reads a byte.
 * The server must drop it (its write fails here), and this client comes back with a new one.
 */
export async function slowReader(a: Address, runId: string, tally: Tally, running: Running): Promise<void> {
  while (running()) {
    let socket: Socket;
    try {
      socket = await rawWebSocket(a.port, a.host, a.token);
    } catch (e) {
      tally.failed(`slow reader could not connect: ${(e as Error).message}`);
      await pause(200);
      continue;
    }
    let gone = false;
    socket.on('error', () => (gone = true));
    socket.on('close', () => (gone = true));
    for (let id = 0; running() && !gone; id++) {
      tally.sent('slow reader ws runs.events (never read)');
      socket.write(textFrame(JSON.stringify({ t: 'call', id, method: 'runs.events', args: [runId] })));
      await pause(100);
    }
    if (gone) tally.asExpected('slow reader dropped by the server');
    socket.destroy();
  }
}
