/**
 * The load's uploaders, cycling through uploads the server must refuse (too large, bad names,
 * broken encoding, no token, cut off) and some it must take (a large file streamed, broken
 * JSONL later imported).
 */
import { request as httpRequest } from 'node:http';
import { connect as tcpConnect } from 'node:net';
import { dirname } from 'node:path';
import type { Address, RpcClient } from './rpc-client.ts';
import type { Running } from './socket-clients.ts';
import type { Tally } from './tally.ts';

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Sent {
  status: number;
  body: string;
}

/**
 * One POST /upload of `bytes` (sent in 64 KiB pieces), `declared` as its Content-Length
 * (chunked when null). `cutAfter` hangs up after that many bytes. Status -1: the server hung up.
 */
function upload(a: Address, name: string, bytes: number, o: { declared?: number | null; token?: string | null; cutAfter?: number; text?: string } = {}): Promise<Sent> {
  const headers: Record<string, string> = { Host: a.host };
  if (o.token !== null) headers.Authorization = `Bearer ${o.token ?? a.token}`;
  const declared = o.declared === undefined ? bytes : o.declared;
  if (declared === null) headers['Transfer-Encoding'] = 'chunked';
  else headers['Content-Length'] = String(declared);
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port: a.port, method: 'POST', path: `/upload?name=${encodeURIComponent(name)}`, headers }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', () => resolve({ status: -1, body }));
    });
    req.on('error', () => resolve({ status: -1, body: '' }));
    // a request destroyed before its answer may end without an error
    req.on('close', () => resolve({ status: -1, body: '' }));
    const piece = Buffer.from((o.text ?? '{"text":"load"}\n').repeat(Math.ceil(65536 / (o.text ?? '{"text":"load"}\n').length))).subarray(0, 65536);
    const limit = Math.min(bytes, o.cutAfter ?? bytes);
    let sent = 0;
    const pump = () => {
      while (sent < limit) {
        const n = Math.min(piece.length, limit - sent);
        sent += n;
        if (!req.write(piece.subarray(0, n))) return void req.once('drain', pump);
      }
      if (o.cutAfter !== undefined) req.destroy();
      else req.end();
    };
    pump();
  });
}

/** A chunked body whose chunk size is not hex: Node's HTTP parser must answer 400 and close. */
function brokenChunks(a: Address): Promise<number> {
  return new Promise((resolve) => {
    const s = tcpConnect({ host: '127.0.0.1', port: a.port });
    let got = '';
    s.on('data', (c: Buffer) => (got += c.toString()));
    s.on('error', () => {});
    s.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(got)?.[1] ?? -1)));
    s.write(`POST /upload?name=chunks.jsonl HTTP/1.1\r\nHost: ${a.host}\r\nAuthorization: Bearer ${a.token}\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nxx\r\n0\r\n\r\n`);
  });
}

type Case = (a: Address, tally: Tally, control: RpcClient, uploadsDir: string) => Promise<void>;

const expectStatus = (tally: Tally, what: string, got: number, want: number) => (got === want ? tally.asExpected(`upload ${what}: ${got}`) : tally.failed(`upload ${what}: ${got}, expected ${want}`));

const CASES: Array<[string, Case]> = [
  ['declared 3 GiB', async (a, tally) => expectStatus(tally, 'declared 3 GiB', (await upload(a, 'huge.jsonl', 64 * 1024, { declared: 3 * 1024 ** 3 })).status, 413)],
  ['not a dataset name', async (a, tally) => expectStatus(tally, 'not a dataset name', (await upload(a, 'run.sh', 1024)).status, 400)],
  ['no token', async (a, tally) => expectStatus(tally, 'no token', (await upload(a, 'a.jsonl', 1024, { token: null })).status, 401)],
  ['wrong token', async (a, tally) => expectStatus(tally, 'wrong token', (await upload(a, 'a.jsonl', 1024, { token: 'x'.repeat(43) })).status, 401)],
  ['broken chunk encoding', async (a, tally) => expectStatus(tally, 'broken chunk encoding', await brokenChunks(a), 400)],
  [
    'cut off mid-body',
    async (a, tally) => {
      const r = await upload(a, 'cut.jsonl', 8 * 1024 * 1024, { cutAfter: 1024 * 1024 });
      if (r.status === -1) tally.asExpected('upload cut off mid-body: connection gone');
      else tally.failed(`upload cut off mid-body: ${r.status}`);
    },
  ],
  [
    'a name that climbs',
    async (a, tally, _c, uploadsDir) => {
      const r = await upload(a, '../../../escape.jsonl', 1024);
      const path = r.status === 200 ? (JSON.parse(r.body) as { path: string }).path : '';
      if (dirname(path) === uploadsDir) tally.asExpected('upload with a climbing name: kept inside uploads/');
      else tally.failed(`upload with a climbing name: ${r.status} ${path}`);
    },
  ],
  [
    'broken JSONL, then imported',
    async (a, tally, control) => {
      const r = await upload(a, 'broken.jsonl', 256 * 1024, { text: '{"text":"ok"}\n{"text": 12, "x"\n\u0000\u00ff\n' });
      if (r.status !== 200) return tally.failed(`upload broken JSONL: ${r.status}`);
      tally.sent('ws datasets.import');
      const reply = await control.call('datasets.import', [[(JSON.parse(r.body) as { path: string }).path]]);
      if (reply.ok) tally.asExpected('import of broken JSONL: answered with its problems');
      else tally.asExpected(`import of broken JSONL: ${reply.error.code}`);
    },
  ],
  ['chunked 4 MiB', async (a, tally) => expectStatus(tally, 'chunked 4 MiB', (await upload(a, 'chunked.jsonl', 4 * 1024 * 1024, { declared: null })).status, 200)],
];

/** One large upload, streamed while the rest goes on: the server's memory must not follow its size. */
export async function largeUpload(a: Address, tally: Tally, bytes: number): Promise<void> {
  const kind = `upload ${bytes >> 20} MiB`;
  tally.sent(kind);
  const r = await upload(a, 'large.jsonl', bytes);
  if (r.status === 200) tally.asExpected(`${kind}: 200`);
  else tally.failed(`${kind}: ${r.status}`);
}

/** Cycles through the upload cases. */
export async function uploader(a: Address, tally: Tally, control: RpcClient, uploadsDir: string, running: Running): Promise<void> {
  for (let n = 0; running(); n++) {
    const [name, run] = CASES[n % CASES.length];
    tally.sent(`upload ${name}`);
    try {
      await run(a, tally, control, uploadsDir);
    } catch (e) {
      tally.failed(`upload ${name}: ${(e as Error).message}`);
    }
    await pause(20);
  }
}
