/**
 * The Node entry points `npm run build` compiles, each bundled to out/build/<out>.js. Add a
 * process's entry here when it has to run without tsx (web mode, Electron's main and preload).
 * The engine host must stay at engine-host/host-main: its client finds it there beside the
 * bundle it is part of (electron/services/engine/client.ts).
 */
export interface BuildEntry {
  /** The TypeScript entry, relative to the repository root. */
  in: string;
  /** The output path under out/build/, without `.js`. */
  out: string;
  /** Module format; `cjs` (written as .cjs) for a sandboxed Electron preload (it cannot load ES modules). Default `esm`. */
  format?: 'esm' | 'cjs';
}

export const ENTRIES: BuildEntry[] = [
  { in: 'electron/engine-host/host-main.ts', out: 'engine-host/host-main' },
  { in: 'electron/cli/hone.ts', out: 'cli/hone' },
  { in: 'electron/main/index.ts', out: 'main/main' },
  { in: 'electron/preload/preload.ts', out: 'preload/preload', format: 'cjs' },
];
