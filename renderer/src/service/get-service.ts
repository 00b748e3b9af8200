/**
 * The one HoneService the renderer talks to: the preload's `window.hone` inside Electron, else
 * a WebSocket client of the page's own server (web mode). One bundle serves both.
 */
import type { HoneService } from '../../../electron/common/service.ts';
import type { HoneShell } from '../../../electron/common/shell.ts';
import { pathImporter, uploadImporter, type FileImporter } from './upload.ts';
import { createWebClient, socketUrlFor, type ConnectionInfo } from './web-client.ts';

declare global {
  interface Window {
    /** Set by Electron's preload: the service over IPC. */
    hone?: HoneService;
    /** Set by Electron's preload: the real path of a dropped or picked File. */
    honeFiles?: { pathForFile(file: File): string };
    /** Set by Electron's preload: native dialogs, the file manager, menu commands. */
    honeShell?: HoneShell;
  }
}

/** How the page reaches its service, and whether that link is up. */
export interface ServiceLink {
  service: HoneService;
  files: FileImporter;
  shell?: HoneShell;
  /** Web mode only: the socket's state and changes to it; Electron's IPC is always up. */
  connection?: { get(): ConnectionInfo; on(listener: (i: ConnectionInfo) => void): () => void };
}

let cached: ServiceLink | null = null;

export function getServiceLink(): ServiceLink {
  if (cached) return cached;
  if (window.hone) {
    const files = window.honeFiles;
    cached = { service: window.hone, files: files ? pathImporter((f) => files.pathForFile(f)) : uploadImporter(), shell: window.honeShell };
  } else {
    const client = createWebClient({ url: socketUrlFor(window.location) });
    cached = { service: client, files: uploadImporter(), connection: { get: () => client.connection(), on: (l) => client.onConnection(l) } };
  }
  return cached;
}

export function getService(): HoneService {
  return getServiceLink().service;
}
