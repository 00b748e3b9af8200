/**
 * The service and the shell over Electron IPC. Every call is checked here, in main, by the same
 * validator web mode uses (validateCall, through dispatchCall) plus main's path check, and only
 * from the app's own page; replies are envelopes (`CallReply`) so error codes survive the bridge.
 */
import type { IpcMain, IpcMainInvokeEvent } from 'electron';
import { dispatchCall } from '../common/dispatch.ts';
import { HoneError, toPlain } from '../common/errors.ts';
import { IPC, type CallReply } from '../common/ipc.ts';
import type { HoneService, ServiceEvent } from '../common/service.ts';
import { validateShellCall, type HoneShell } from '../common/shell.ts';
import { validateCall } from '../common/validate.ts';
import { isAppUrl } from './app-protocol.ts';
import { checkInputPaths } from './path-checks.ts';

/** The shell's calls as main implements them (onCommand is main → page, not a call). */
export type ShellHandlers = Omit<HoneShell, 'onCommand'>;

/** Only the app's own page (its main frame, from the app protocol) may call. */
export function isTrustedSender(event: Pick<IpcMainInvokeEvent, 'senderFrame'>): boolean {
  return isAppUrl(event.senderFrame?.url);
}

function untrusted(event: Pick<IpcMainInvokeEvent, 'senderFrame'>): CallReply {
  return { ok: false, error: toPlain(new HoneError('invalid_argument', `calls are only answered for the app's own page (not ${JSON.stringify(event.senderFrame?.url ?? null)})`)) };
}

export async function answerServiceCall(service: HoneService, method: unknown, args: unknown): Promise<CallReply> {
  try {
    const call = validateCall(method, args);
    checkInputPaths(call.method, call.args);
    return { ok: true, result: (await dispatchCall(service, call.method, call.args)) ?? null };
  } catch (e) {
    return { ok: false, error: toPlain(e) };
  }
}

export async function answerShellCall(shell: ShellHandlers, method: unknown, args: unknown): Promise<CallReply> {
  try {
    const call = validateShellCall(method, args);
    const fn = shell[call.method] as (...a: unknown[]) => Promise<unknown>;
    return { ok: true, result: (await fn.apply(shell, call.args)) ?? null };
  } catch (e) {
    return { ok: false, error: toPlain(e) };
  }
}

/** Registers the two call channels; returns the function that removes them. */
export function serveIpc(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, service: HoneService, shell: ShellHandlers): () => void {
  ipcMain.handle(IPC.call, (event, method: unknown, args: unknown) => (isTrustedSender(event) ? answerServiceCall(service, method, args) : untrusted(event)));
  ipcMain.handle(IPC.shell, (event, method: unknown, args: unknown) => (isTrustedSender(event) ? answerShellCall(shell, method, args) : untrusted(event)));
  return () => {
    ipcMain.removeHandler(IPC.call);
    ipcMain.removeHandler(IPC.shell);
  };
}

/** Sends every service event to the pages `targets` lists at the time (windows come and go). */
export function forwardEvents(service: HoneService, targets: () => Array<{ send(channel: string, e: ServiceEvent): void; isDestroyed(): boolean }>): () => void {
  return service.subscribe((e) => {
    for (const t of targets()) if (!t.isDestroyed()) t.send(IPC.event, e);
  });
}
