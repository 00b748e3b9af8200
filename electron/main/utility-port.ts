/**
 * The engine host as an Electron utilityProcess: a HostPort over it, so EngineHost's requests,
 * events and crash handling are exactly those of the Node child process (services/engine).
 * A crash (a ggml abort, out of memory) ends only that process; the window shows host-exited.
 */
import type { ForkOptions, UtilityProcess } from 'electron';
import { EngineHost } from '../services/engine/client.ts';
import { FATAL_FILE_ENV, newFatalFile } from '../services/engine/fatal-report.ts';
import { exitReason, type HostPort } from '../services/engine/host-port.ts';

/** What of Electron's UtilityProcess the port uses (tests pass one backed by a child process). */
export type UtilityProcessLike = Pick<UtilityProcess, 'pid' | 'postMessage' | 'kill'> & {
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'exit', listener: (code: number) => void): unknown;
};

export function utilityProcessPort(proc: UtilityProcessLike): HostPort {
  let gone = false;
  return {
    get pid() {
      return proc.pid;
    },
    send: (m) => {
      if (!gone) proc.postMessage(m);
    },
    // utility processes take no signal: kill() ends the process (SIGTERM on POSIX)
    kill: () => void proc.kill(),
    onMessage: (l) => void proc.on('message', l),
    onExit: (l) =>
      void proc.on('exit', (code) => {
        gone = true;
        l(exitReason(code, null));
      }),
  };
}

export interface UtilityFork {
  fork(modulePath: string, args?: string[], options?: ForkOptions): UtilityProcessLike;
}

/** Starts the compiled engine host (out/build/engine-host/host-main.js) as a utility process. */
export function startUtilityHost(utilityProcess: UtilityFork, entry: string, env: NodeJS.ProcessEnv): EngineHost {
  const fatalFile = newFatalFile();
  const proc = utilityProcess.fork(entry, [], { serviceName: 'Hone engine', stdio: 'inherit', env: { ...env, [FATAL_FILE_ENV]: fatalFile } });
  return new EngineHost(utilityProcessPort(proc), { fatalFile });
}
