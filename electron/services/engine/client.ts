/**
 * The parent's side of the engine host: starts the host process, sends typed requests and
 * receives their events and replies. The process is reached through a `HostPort` (a Node child
 * process here; an Electron utilityProcess in the app, electron/main/utility-port.ts). If the host dies (a ggml abort, out of memory, SIGKILL),
 * every pending request gets a `host-exited` event with the reason and the last checkpoint
 * seen, then rejects with code `host_exited`: never a hung promise. Start a new host to resume.
 *
 * The host is started by file path, never imported: services/ does not depend on engine-host/.
 */
import { fork } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { join } from 'node:path';
import type { EngineEvent, HostMessage, RequestKind, Requests } from '../../common/engine-api.ts';
import { fromPlain, HoneError } from '../../common/errors.ts';
import { findUp, runsCompiled } from '../locate.ts';
import { FATAL_FILE_ENV, newFatalFile, takeFatalReport } from './fatal-report.ts';
import { childProcessPort, type HostPort } from './host-port.ts';

interface Pending {
  resolve(v: unknown): void;
  reject(e: unknown): void;
  onEvent?: (e: EngineEvent) => void;
  lastCheckpoint: string | null;
}

/**
 * The engine host's entry file: `engine-host/host-main.js` beside the compiled bundle this code
 * is part of (out/build/), or `electron/engine-host/host-main.ts` when running as TypeScript.
 */
export function hostEntry(moduleUrl: string = import.meta.url): string {
  const entry = join('engine-host', runsCompiled(moduleUrl) ? 'host-main.js' : 'host-main.ts');
  const dir = findUp(entry, moduleUrl);
  if (!dir) throw new HoneError('internal', `cannot find ${entry} in any folder above ${moduleUrl} (run \`npm run build\` for the compiled host)`);
  return join(dir, entry);
}

/** Node flags the host needs: none compiled, the tsx loader for TypeScript. */
export function hostExecArgv(moduleUrl: string = import.meta.url): string[] {
  return runsCompiled(moduleUrl) ? [] : ['--import', import.meta.resolve('tsx')];
}

export class EngineHost extends EventEmitter {
  private port: HostPort;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private exited: string | null = null;
  /** The newest checkpoint any request reported. */
  lastCheckpoint: string | null = null;

  /** Starts a host as a Node child process: the compiled host with plain node, or the .ts through tsx. */
  static start(env: NodeJS.ProcessEnv = process.env): EngineHost {
    const fatalFile = newFatalFile();
    const child = fork(hostEntry(), [], { execArgv: hostExecArgv(), env: { ...env, [FATAL_FILE_ENV]: fatalFile }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return new EngineHost(childProcessPort(child), { fatalFile });
  }

  /** `fatalFile`: where the host writes its report if ggml aborts it (the env HONE_FATAL_FILE it was started with). */
  constructor(port: HostPort, private options: { fatalFile?: string } = {}) {
    super();
    this.port = port;
    port.onMessage((m) => this.onMessage(m as HostMessage));
    port.onExit((reason) => this.onExit(reason));
  }

  get pid(): number | undefined {
    return this.port.pid;
  }

  get alive(): boolean {
    return this.exited === null;
  }

  request<K extends RequestKind>(kind: K, payload: Requests[K]['payload'], onEvent?: (e: EngineEvent) => void): Promise<Requests[K]['result']> {
    if (this.exited) return Promise.reject(new HoneError('host_exited', `the engine host stopped (${this.exited})`, { reason: this.exited, lastCheckpoint: this.lastCheckpoint }));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject, onEvent, lastCheckpoint: null });
      this.port.send({ id, kind, payload });
    });
  }

  /** Ends the host (it finishes nothing: use a stop request first to keep a checkpoint). */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.alive) this.port.kill(signal);
  }

  /** Resolves once the host process is gone. */
  closed(): Promise<void> {
    return this.alive ? new Promise((r) => this.once('host-exited', () => r())) : Promise.resolve();
  }

  private onMessage(m: HostMessage) {
    const p = this.pending.get(m.id);
    if (!p) return;
    if ('event' in m) {
      if (m.event.type === 'checkpoint') p.lastCheckpoint = this.lastCheckpoint = m.event.path;
      p.onEvent?.(m.event);
      this.emit('event', m.id, m.event);
      return;
    }
    this.pending.delete(m.id);
    if (m.ok) p.resolve(m.result);
    else p.reject(fromPlain(m.error));
  }

  private onExit(how: string) {
    if (this.exited) return;
    // a ggml abort (a GPU out of memory) says what failed before the process goes
    const fatal = this.options.fatalFile ? takeFatalReport(this.options.fatalFile) : null;
    const reason = fatal ? `${how}: ${fatal.message}` : how;
    this.exited = reason;
    for (const [id, p] of this.pending) {
      const lastCheckpoint = p.lastCheckpoint ?? this.lastCheckpoint;
      p.onEvent?.({ type: 'host-exited', reason, lastCheckpoint });
      p.reject(new HoneError('host_exited', `the engine host stopped (${reason})`, fatal ? { reason, lastCheckpoint, fatal } : { reason, lastCheckpoint }));
      this.pending.delete(id);
    }
    this.emit('host-exited', { reason, lastCheckpoint: this.lastCheckpoint });
  }
}
