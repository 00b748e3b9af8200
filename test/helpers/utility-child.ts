/**
 * The engine host as Electron starts it in a utility process, without Electron: the parent's
 * messages arrive through a `process.parentPort` (as `{ data }` events, answered with
 * postMessage), not through Node's IPC. Forked by test/native/utility-host.test.ts.
 */
import { EventEmitter } from 'node:events';

const port = Object.assign(new EventEmitter(), { postMessage: (m: unknown) => void process.send!(m as object) });
// as Electron's parentPort: messages wait in a queue until a 'message' handler is registered
const queued: unknown[] = [];
process.on('message', (m) => (port.listenerCount('message') ? port.emit('message', { data: m }) : queued.push(m)));
port.on('newListener', (event) => {
  if (event === 'message') setImmediate(() => queued.splice(0).forEach((m) => port.emit('message', { data: m })));
});
(process as unknown as { parentPort: typeof port }).parentPort = port;
// a utility process ends with its app; this stand-in ends with its test
process.on('disconnect', () => process.exit(0));
await import('../../electron/engine-host/host-main.ts');
