/**
 * The window's size and position, remembered in the data folder (window.json) and put back on
 * a display that still exists: a window saved on an unplugged monitor opens centred on the
 * primary one instead of off screen.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeJsonAtomic } from '../services/json-file.ts';

export interface Bounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

export interface WindowState {
  bounds: Bounds;
  maximized: boolean;
}

export interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

export const DEFAULT_SIZE = { width: 1280, height: 800 };
/** How much of a saved window must lie on some display to be put back where it was. */
const MIN_VISIBLE = 64;

export function windowStateFile(dataDir: string): string {
  return join(dataDir, 'window.json');
}

function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** The saved state, or null when there is none or it is not readable (a bad file is not an error: the default is used). */
export function loadWindowState(dataDir: string): WindowState | null {
  const file = windowStateFile(dataDir);
  if (!existsSync(file)) return null;
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as { bounds?: Record<string, unknown>; maximized?: unknown };
    const b = v.bounds ?? {};
    if (!isNumber(b.width) || !isNumber(b.height)) return null;
    return {
      bounds: { x: isNumber(b.x) ? b.x : undefined, y: isNumber(b.y) ? b.y : undefined, width: b.width, height: b.height },
      maximized: v.maximized === true,
    };
  } catch {
    return null;
  }
}

export function saveWindowState(dataDir: string, state: WindowState): void {
  writeJsonAtomic(windowStateFile(dataDir), state);
}

function overlap(b: Required<Bounds>, a: Area): number {
  const w = Math.min(b.x + b.width, a.x + a.width) - Math.max(b.x, a.x);
  const h = Math.min(b.y + b.height, a.y + a.height) - Math.max(b.y, a.y);
  return w > 0 && h > 0 ? Math.min(w, h) : 0;
}

/**
 * Where to open the window: the saved bounds when enough of them is on one of the displays'
 * work areas (shrunk to fit that display), else the default size centred on the primary one.
 */
export function placeWindow(saved: WindowState | null, workAreas: Area[], minSize = { width: 960, height: 640 }): WindowState {
  const primary = workAreas[0] ?? { x: 0, y: 0, ...DEFAULT_SIZE };
  const centred = (width: number, height: number): Bounds => {
    const w = Math.max(minSize.width, Math.min(width, primary.width));
    const h = Math.max(minSize.height, Math.min(height, primary.height));
    return { x: Math.round(primary.x + (primary.width - w) / 2), y: Math.round(primary.y + (primary.height - h) / 2), width: w, height: h };
  };
  if (!saved) return { bounds: centred(DEFAULT_SIZE.width, DEFAULT_SIZE.height), maximized: false };
  const { x, y, width, height } = saved.bounds;
  if (x === undefined || y === undefined) return { bounds: centred(width, height), maximized: saved.maximized };
  const b = { x, y, width, height };
  const home = workAreas.find((a) => overlap(b, a) >= MIN_VISIBLE);
  if (!home) return { bounds: centred(width, height), maximized: saved.maximized };
  return {
    bounds: { x, y, width: Math.max(minSize.width, Math.min(width, home.width)), height: Math.max(minSize.height, Math.min(height, home.height)) },
    maximized: saved.maximized,
  };
}
