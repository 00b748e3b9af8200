/**
 * The desktop shell's small API beside the service (Electron only: web mode has no dialogs and
 * no file manager): native pickers, showing folders, links in the system browser, and commands
 * the app menu sends to the page. The preload exposes it as `window.honeShell`; main validates
 * every call with `validateShellCall`. No platform imports.
 */
import { HoneError } from './errors.ts';
import { isRunId } from './validate.ts';

export interface HoneShell {
  /** A native open dialog for one `.gguf`; null when cancelled. */
  pickModel(): Promise<string | null>;
  /** A native open dialog for dataset files, or for one folder; [] when cancelled. */
  pickDatasets(kind: 'files' | 'folder'): Promise<string[]>;
  /** Opens a run's folder in the system's file manager. */
  showRunFolder(id: string): Promise<void>;
  /** Opens the folder that holds every run. */
  openRunsFolder(): Promise<void>;
  /** Shows a file Hone wrote (an export) selected in the file manager; only paths inside the data folder. */
  showItem(path: string): Promise<void>;
  /** Opens an https link in the system browser when its host is on the allow-list. */
  openExternal(url: string): Promise<void>;
  /** Commands from the app menu (File ▸ Open model…); returns the unsubscribe function. */
  onCommand(listener: (command: ShellCommand) => void): () => void;
}

export type ShellCommand =
  | { type: 'open-model'; path: string }
  | { type: 'add-datasets'; paths: string[] }
  | { type: 'show-view'; view: 'models' | 'datasets' | 'settings' | 'train' | 'ops' | 'runs' };

/** Every shell call by name with its argument kinds (the same scheme as SERVICE_METHODS). */
export const SHELL_METHODS = {
  pickModel: [],
  pickDatasets: ['kind'],
  showRunFolder: ['id'],
  openRunsFolder: [],
  showItem: ['path'],
  openExternal: ['url'],
} as const satisfies Record<string, readonly string[]>;

export type ShellMethod = keyof typeof SHELL_METHODS;

/** Hosts whose https links open in the system browser; every other link is refused. */
export const EXTERNAL_HOSTS = ['github.com', 'huggingface.co', 'ollama.com', 'llama.cpp.ai'] as const;

export function isAllowedExternal(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  return u.protocol === 'https:' && !u.username && !u.password && (EXTERNAL_HOSTS as readonly string[]).includes(u.hostname);
}

function bad(method: string, arg: string, what: string, v: unknown): HoneError {
  const shown = JSON.stringify(v);
  return new HoneError('invalid_argument', `shell.${method}: '${arg}' ${what} (got ${shown === undefined ? 'nothing' : shown.slice(0, 80)})`);
}

export function validateShellCall(method: unknown, args: unknown): { method: ShellMethod; args: unknown[] } {
  if (typeof method !== 'string' || !Object.prototype.hasOwnProperty.call(SHELL_METHODS, method)) {
    throw new HoneError('unknown_request', `unknown shell call ${JSON.stringify(method)?.slice(0, 80)}`);
  }
  const m = method as ShellMethod;
  const kinds: readonly string[] = SHELL_METHODS[m];
  if (!Array.isArray(args) || args.length !== kinds.length) throw bad(m, 'arguments', `must be a list of ${kinds.length}`, args);
  kinds.forEach((kind, i) => {
    const v = args[i];
    if (kind === 'kind' && v !== 'files' && v !== 'folder') throw bad(m, kind, "must be 'files' or 'folder'", v);
    if (kind === 'id' && !isRunId(v)) throw bad(m, kind, 'is not a run id', v);
    if (kind === 'path' && (typeof v !== 'string' || v.length === 0 || v.length > 4096 || v.includes('\0'))) throw bad(m, kind, 'must be a path', v);
    if (kind === 'url' && (typeof v !== 'string' || !isAllowedExternal(v))) throw bad(m, kind, `must be an https link to ${EXTERNAL_HOSTS.join(', ')}`, v);
  });
  return { method: m, args };
}
