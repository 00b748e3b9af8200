/**
 * The window's options: the security flags every Hone window runs with (asserted by tests) and
 * its size. The page gets no Node, runs sandboxed in its own JavaScript world, and reaches the
 * app only through the preload's `window.hone` / `window.honeShell`.
 */
import type { BrowserWindowConstructorOptions, WebPreferences } from 'electron';
import type { Bounds } from './window-state.ts';

export function secureWebPreferences(preload: string): WebPreferences {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    // a file dropped outside the drop zone must not replace the app with the file
    navigateOnDragDrop: false,
    spellcheck: false,
    safeDialogs: true,
  };
}

export const MIN_WIDTH = 960;
export const MIN_HEIGHT = 640;

export function windowOptions(bounds: Bounds, preload: string): BrowserWindowConstructorOptions {
  return {
    x: bounds.x,
    y: bounds.y,
    width: bounds.width,
    height: bounds.height,
    minWidth: MIN_WIDTH,
    minHeight: MIN_HEIGHT,
    title: 'Hone',
    // shown once the page has painted: no white flash in dark mode
    show: false,
    backgroundColor: '#15171a',
    webPreferences: secureWebPreferences(preload),
  };
}
