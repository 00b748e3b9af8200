/**
 * What the preload puts on the page, built from the contract alone: `hone` has exactly the
 * HoneService methods (from SERVICE_METHODS, plus subscribe), `honeShell` exactly HoneShell,
 * `honeFiles` the real path of a dropped File. Each is a function over invoke/on: nothing of
 * ipcRenderer itself reaches the page, and listeners never see Electron's event object.
 */
import { IPC, type CallReply } from '../common/ipc.ts';
import { SERVICE_METHODS, type HoneService, type ServiceEvent } from '../common/service.ts';
import { SHELL_METHODS, type HoneShell, type ShellCommand } from '../common/shell.ts';

/** The part of ipcRenderer the preload uses. */
export interface IpcRendererLike {
  invoke(channel: string, ...args: unknown[]): Promise<unknown>;
  on(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
  removeListener(channel: string, listener: (event: unknown, ...args: unknown[]) => void): unknown;
}

async function unwrap(reply: Promise<unknown>): Promise<unknown> {
  const r = (await reply) as CallReply;
  // a plain {code, message, detail} object crosses contextBridge whole (an Error loses its code)
  if (!r.ok) throw r.error;
  return r.result;
}

function listen<T>(ipc: IpcRendererLike, channel: string, listener: (value: T) => void): () => void {
  const handler = (_event: unknown, value: unknown) => listener(value as T);
  ipc.on(channel, handler);
  return () => void ipc.removeListener(channel, handler);
}

export function serviceApi(ipc: IpcRendererLike): HoneService {
  const api: Record<string, unknown> = {};
  for (const method of Object.keys(SERVICE_METHODS)) {
    const call = (...args: unknown[]) => unwrap(ipc.invoke(IPC.call, method, args));
    const [group, name] = method.includes('.') ? method.split('.') : [null, method];
    if (group) ((api[group] ??= {}) as Record<string, unknown>)[name] = call;
    else api[name] = call;
  }
  api.subscribe = (listener: (e: ServiceEvent) => void) => listen(ipc, IPC.event, listener);
  return api as unknown as HoneService;
}

export function shellApi(ipc: IpcRendererLike): HoneShell {
  const api: Record<string, unknown> = {};
  for (const method of Object.keys(SHELL_METHODS)) api[method] = (...args: unknown[]) => unwrap(ipc.invoke(IPC.shell, method, args));
  api.onCommand = (listener: (c: ShellCommand) => void) => listen(ipc, IPC.command, listener);
  return api as unknown as HoneShell;
}

export function filesApi(getPathForFile: (file: File) => string): { pathForFile(file: File): string } {
  return {
    pathForFile: (file) => {
      const p = getPathForFile(file);
      // a File made in the page (not from a drop or a picker) has no path
      if (!p) throw { code: 'invalid_argument', message: `${file.name} has no path on this machine (drop it from the file manager)` };
      return p;
    },
  };
}
