/** The app's own message boxes: quitting during a run, and About. */
import type { BrowserWindow, Dialog, MessageBoxOptions } from 'electron';
import type { RunSummary } from '../common/runs.ts';
import type { QuitChoice } from './quit-guard.ts';

type Boxes = Pick<Dialog, 'showMessageBox'>;

function show(dialog: Boxes, win: BrowserWindow | null, options: MessageBoxOptions) {
  return win ? dialog.showMessageBox(win, options) : dialog.showMessageBox(options);
}

export async function confirmQuit(dialog: Boxes, win: BrowserWindow | null, run: RunSummary): Promise<QuitChoice> {
  const { response } = await show(dialog, win, {
    type: 'question',
    buttons: ['Stop and Quit', 'Keep Training'],
    defaultId: 1,
    cancelId: 1,
    title: 'A run is training',
    message: `“${run.title}” is training (step ${run.step} of ${run.nSteps}).`,
    detail: 'Quitting stops it after the current step and writes a checkpoint. You can resume it later from the Runs view.',
  });
  return response === 0 ? 'stop-and-quit' : 'keep-training';
}

export async function showAbout(dialog: Boxes, win: BrowserWindow | null, about: { version: string; dataDir: string; backends: string[] }): Promise<void> {
  await show(dialog, win, {
    type: 'info',
    buttons: ['OK'],
    title: 'About Hone',
    message: `Hone ${about.version}`,
    detail: `Fine-tunes language models on this machine.\n\nCompute: ${about.backends.join(', ') || 'unknown'}\nData folder: ${about.dataDir}`,
  });
}
