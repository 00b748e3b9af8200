/**
 * How the parent reaches an engine host process, whatever started it: a Node child process
 * (the CLI, web mode, tests) or an Electron utilityProcess (the app). EngineHost speaks only
 * to this interface, so both run the same request, event and crash handling.
 */
import type { ChildProcess } from 'node:child_process';

export interface HostPort {
  readonly pid: number | undefined;
  /** Sends one request message (structured-clone-safe JSON). */
  send(message: unknown): void;
  /** Ends the process; SIGKILL where the platform has no gentler signal. */
  kill(signal?: NodeJS.Signals): void;
  onMessage(listener: (message: unknown) => void): void;
  /** Called once when the process is gone, with why in words ("exited with code 1", "killed by SIGKILL"). */
  onExit(listener: (reason: string) => void): void;
}

/** Words for how a process ended, the same for every kind of port. */
export function exitReason(code: number | null, signal: string | null): string {
  return signal ? `killed by ${signal}` : `exited with code ${code}`;
}

export function childProcessPort(child: ChildProcess): HostPort {
  return {
    get pid() {
      return child.pid;
    },
    send: (m) => {
      // a host that just died refuses the write; its exit reaches onExit, which fails the request
      if (child.connected) child.send(m as object);
    },
    kill: (signal = 'SIGTERM') => void child.kill(signal),
    onMessage: (l) => void child.on('message', l),
    onExit: (l) => {
      child.on('exit', (code, signal) => l(exitReason(code, signal)));
      child.on('error', (e) => l(`failed: ${e.message}`));
    },
  };
}
