/**
 * Frames a broken or hostile client sends, and what the server must do with each: answer an
 * error and keep the socket (the frame is valid WebSocket, just not a call), close that socket
 * (the frame breaks the protocol), or nothing at all (the client hangs up mid-frame).
 */
import { frame, OP_BINARY, OP_CLOSE, OP_CONTINUATION, OP_PING, OP_TEXT, rawWebSocket, textFrame } from './raw-websocket.ts';

export type ServerAnswer = 'error-reply' | 'closes' | 'client-hangs-up';

export interface MalformedFrame {
  name: string;
  bytes: Buffer;
  answer: ServerAnswer;
}

const closePayload = (code: number) => {
  const b = Buffer.alloc(2);
  b.writeUInt16BE(code);
  return b;
};

export const MALFORMED_FRAMES: readonly MalformedFrame[] = [
  { name: 'text that is not JSON', bytes: textFrame('{"t":"call",'), answer: 'error-reply' },
  { name: 'a JSON array', bytes: textFrame('[1,2,3]'), answer: 'error-reply' },
  { name: 'a call without an id', bytes: textFrame('{"t":"call","method":"info","args":[]}'), answer: 'error-reply' },
  { name: 'a binary frame', bytes: frame(OP_BINARY, Buffer.from([0, 1, 2, 255])), answer: 'error-reply' },
  { name: 'text that is not UTF-8', bytes: frame(OP_TEXT, Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), answer: 'closes' },
  { name: 'an unmasked client frame', bytes: frame(OP_TEXT, '{}', { mask: false }), answer: 'closes' },
  { name: 'a reserved opcode', bytes: frame(0x3, 'x'), answer: 'closes' },
  { name: 'a reserved bit without an extension', bytes: frame(OP_TEXT, '{}', { rsv: 4 }), answer: 'closes' },
  { name: 'a ping over 125 bytes', bytes: frame(OP_PING, 'p'.repeat(200)), answer: 'closes' },
  { name: 'a fragmented ping', bytes: frame(OP_PING, 'p', { fin: false }), answer: 'closes' },
  { name: 'a continuation with nothing to continue', bytes: frame(OP_CONTINUATION, 'x'), answer: 'closes' },
  {
    name: 'a new message inside a fragmented one',
    bytes: Buffer.concat([frame(OP_TEXT, '{"t":', { fin: false }), frame(OP_TEXT, '"call"}')]),
    answer: 'closes',
  },
  { name: 'a length over the message limit', bytes: frame(OP_TEXT, '', { declaredLength: 2n * 1024n * 1024n }), answer: 'closes' },
  { name: 'a length of 2^63 - 1', bytes: frame(OP_TEXT, '', { declaredLength: 2n ** 63n - 1n }), answer: 'closes' },
  { name: 'a close frame with an invalid code', bytes: frame(OP_CLOSE, closePayload(999)), answer: 'closes' },
  { name: 'a close frame of one byte', bytes: frame(OP_CLOSE, Buffer.from([3])), answer: 'closes' },
  { name: 'a frame cut short, then the client hangs up', bytes: frame(OP_TEXT, 'x'.repeat(1000)).subarray(0, 300), answer: 'client-hangs-up' },
];

export type Observed = ServerAnswer | 'no-answer';

/**
 * Opens a raw socket, sends the frame and reports what the server did: an error reply (then
 * this side closes), a closed connection, or `no-answer` within `ms`.
 */
export async function sendMalformed(port: number, host: string, token: string, m: MalformedFrame, ms = 10_000): Promise<Observed> {
  const socket = await rawWebSocket(port, host, token);
  socket.on('error', () => {});
  if (m.answer === 'client-hangs-up') {
    socket.end(m.bytes);
    socket.destroy();
    return 'client-hangs-up';
  }
  return new Promise<Observed>((resolve) => {
    let seen = '';
    const timer = setTimeout(() => finish('no-answer'), ms);
    const finish = (o: Observed) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    socket.on('data', (chunk: Buffer) => {
      seen += chunk.toString('latin1');
      if (seen.includes('"ok":false')) finish('error-reply');
    });
    socket.on('close', () => finish('closes'));
    socket.resume();
    socket.write(m.bytes);
  });
}
