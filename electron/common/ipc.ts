/**
 * Electron's IPC channel names between main and the preload, and the reply envelope: errors
 * cross as `{code, message, detail}` data (contextBridge drops an Error's own properties).
 * No platform imports.
 */
import type { PlainError } from './errors.ts';

export const IPC = {
  /** renderer → main (invoke): `(method, args)` of the service; answers a CallReply. */
  call: 'hone:call',
  /** main → renderer: every ServiceEvent. */
  event: 'hone:event',
  /** renderer → main (invoke): `(method, args)` of the shell; answers a CallReply. */
  shell: 'hone:shell',
  /** main → renderer: a ShellCommand from the app menu. */
  command: 'hone:command',
} as const;

export type CallReply = { ok: true; result: unknown } | { ok: false; error: PlainError };
