/**
 * The host's side of its link to the parent: Node's IPC channel when started with
 * child_process.fork, Electron's `process.parentPort` when started as a utilityProcess. The
 * messages are the same either way (engine-api.ts); only the envelope differs.
 */
import type { HostMessage, RequestMessage } from '../common/engine-api.ts';

export interface ParentPort {
  send(m: HostMessage): void;
  onMessage(f: (m: RequestMessage) => void): void;
  /** The parent is gone: end the host (Electron ends utility processes with the app itself). */
  onParentGone(f: () => void): void;
}

/** Electron's MessagePortMain-like parent port of a utility process (`event.data` carries the message). */
interface UtilityParentPort {
  postMessage(m: unknown): void;
  on(ev: 'message', f: (e: { data: unknown }) => void): void;
}

export function parentPort(proc: NodeJS.Process = process): ParentPort | null {
  const utility = (proc as { parentPort?: UtilityParentPort }).parentPort;
  if (utility) {
    return {
      send: (m) => utility.postMessage(m),
      onMessage: (f) => utility.on('message', (e) => f(e.data as RequestMessage)),
      onParentGone: () => {},
    };
  }
  if (!proc.send) return null;
  return {
    send: (m) => void proc.send!(m),
    onMessage: (f) => void proc.on('message', (m) => f(m as RequestMessage)),
    onParentGone: (f) => void proc.on('disconnect', f),
  };
}
