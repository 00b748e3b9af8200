/**
 * A well-behaved web-mode client for the load script: one WebSocket (the `ws` library, which
 * reads everything), calls matched to replies by id, events counted.
 */
import { WebSocket } from 'ws';
import { parseServerMessage, WS_PATH, type ReplyMessage } from '../../electron/common/rpc.ts';

export interface Address {
  port: number;
  host: string;
  token: string;
}

export class RpcClient {
  events = 0;
  private next = 0;
  private pending = new Map<number, { resolve: (r: ReplyMessage) => void; reject: (e: Error) => void }>();

  private constructor(private ws: WebSocket) {
    ws.on('message', (data) => {
      const m = parseServerMessage(String(data));
      if (m.t === 'event') this.events++;
      else if (typeof m.id === 'number') this.pending.get(m.id)?.resolve(m);
    });
    ws.on('close', () => {
      for (const p of this.pending.values()) p.reject(new Error('socket closed'));
      this.pending.clear();
    });
  }

  static open(a: Address): Promise<RpcClient> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${a.port}${WS_PATH}`, { headers: { Host: a.host, Authorization: `Bearer ${a.token}` } });
      ws.once('open', () => resolve(new RpcClient(ws)));
      ws.once('error', reject);
      ws.on('error', () => {});
    });
  }

  /** The reply to one call; rejects when the socket closes or nothing came back within `ms`. */
  call(method: string, args: unknown[], ms = 30_000): Promise<ReplyMessage> {
    const id = ++this.next;
    return new Promise<ReplyMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error('no reply in time'));
      }, ms);
      const done = () => {
        clearTimeout(timer);
        this.pending.delete(id);
      };
      this.pending.set(id, {
        resolve: (r) => (done(), resolve(r)),
        reject: (e) => (done(), reject(e)),
      });
      this.ws.send(JSON.stringify({ t: 'call', id, method, args }));
    });
  }

  close(): void {
    this.ws.close();
  }
}
