/**
 * A WebSocket client on a bare TCP socket, for what a well-behaved library will not do: frames
 * that break the protocol (unmasked, reserved opcodes, lying lengths, invalid UTF-8) and a peer
 * that stops reading while the server keeps sending.
 */
import { randomBytes } from 'node:crypto';
import { connect as tcpConnect, type Socket } from 'node:net';
import { WS_PATH } from '../../electron/common/rpc.ts';

export const OP_CONTINUATION = 0x0;
export const OP_TEXT = 0x1;
export const OP_BINARY = 0x2;
export const OP_CLOSE = 0x8;
export const OP_PING = 0x9;

export interface FrameOptions {
  fin?: boolean;
  /** The three reserved bits (0-7); no extension is negotiated, so any set bit is a protocol error. */
  rsv?: number;
  /** Clients must mask; false sends the payload in the clear. */
  mask?: boolean;
  /** The length to announce instead of the payload's own (a lie: longer, shorter, absurd). */
  declaredLength?: bigint;
}

/** One frame's bytes, as RFC 6455 lays them out. */
export function frame(opcode: number, payload: Buffer | string, o: FrameOptions = {}): Buffer {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  const { fin = true, rsv = 0, mask = true } = o;
  const length = o.declaredLength ?? BigInt(body.length);
  const head = [((fin ? 0x80 : 0) | ((rsv & 7) << 4) | (opcode & 0x0f)) >>> 0];
  const maskBit = mask ? 0x80 : 0;
  let ext = Buffer.alloc(0);
  if (length < 126n) head.push(maskBit | Number(length));
  else if (length < 65536n) {
    head.push(maskBit | 126);
    ext = Buffer.alloc(2);
    ext.writeUInt16BE(Number(length));
  } else {
    head.push(maskBit | 127);
    ext = Buffer.alloc(8);
    ext.writeBigUInt64BE(length);
  }
  if (!mask) return Buffer.concat([Buffer.from(head), ext, body]);
  const key = randomBytes(4);
  const masked = Buffer.from(body);
  for (let i = 0; i < masked.length; i++) masked[i] ^= key[i & 3];
  return Buffer.concat([Buffer.from(head), ext, key, masked]);
}

export const textFrame = (text: string) => frame(OP_TEXT, text);

/**
 * Opens a TCP connection and completes the WebSocket handshake with the Bearer token; resolves
 * with the socket once the server answered 101 (rejects with the status line otherwise).
 * Bytes after the handshake are the caller's to read, or not.
 */
export function rawWebSocket(port: number, host: string, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = tcpConnect({ host: '127.0.0.1', port });
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('error', reject);
      socket.pause();
      const status = head.subarray(0, head.indexOf('\r\n')).toString();
      if (!/^HTTP\/1\.1 101 /.test(status)) {
        socket.destroy();
        reject(new Error(`the WebSocket was refused: ${status}`));
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.on('data', onData);
    socket.on('error', reject);
    socket.on('connect', () => {
      const lines = [
        `GET ${WS_PATH} HTTP/1.1`,
        `Host: ${host}`,
        `Authorization: Bearer ${token}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
        'Sec-WebSocket-Version: 13',
      ];
      socket.write(lines.join('\r\n') + '\r\n\r\n');
    });
  });
}

/** Resolves when the server has ended the connection (reading, and dropping, what it sent). */
export function serverClosed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) return resolve();
    socket.on('error', () => {});
    socket.on('close', () => resolve());
    socket.on('data', () => {});
    socket.resume();
  });
}
