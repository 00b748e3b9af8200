/**
 * Quitting while a run trains: ask first, then stop it with a checkpoint (the service's dispose
 * finishes the step, writes the checkpoint and ends the engine host) before the app exits. The
 * window's close button quits through here too, so "keep training" keeps the window.
 */
import type { HoneService } from '../common/service.ts';
import type { RunSummary } from '../common/runs.ts';

/** Statuses in which a quit would cut a run off. */
const ACTIVE: ReadonlySet<RunSummary['status']> = new Set(['starting', 'running', 'pausing']);

export type QuitChoice = 'stop-and-quit' | 'keep-training';

export interface QuitGuardDeps {
  service: Pick<HoneService, 'runs'> & { dispose(): Promise<void> };
  /** Asks the user about the active run. */
  confirm(run: RunSummary): Promise<QuitChoice>;
  /** Really quits (Electron's app.quit, which emits before-quit again: then allowed). */
  quit(): void;
  log?(line: string): void;
}

export class QuitGuard {
  private state: 'idle' | 'asking' | 'stopping' | 'done' = 'idle';

  constructor(private deps: QuitGuardDeps) {}

  /** True once everything is stopped and the app may exit. */
  get done(): boolean {
    return this.state === 'done';
  }

  /**
   * For Electron's `before-quit` (and a window's `close`): returns true when the quit may go on
   * now; otherwise the caller prevents it and the guard quits itself when it is safe.
   */
  request(): boolean {
    if (this.state === 'done') return true;
    if (this.state === 'idle') void this.run();
    return false;
  }

  private async run(): Promise<void> {
    this.state = 'asking';
    try {
      const active = (await this.deps.service.runs.list()).find((r) => ACTIVE.has(r.status));
      if (active && (await this.deps.confirm(active)) === 'keep-training') {
        this.state = 'idle';
        return;
      }
      this.state = 'stopping';
      await this.deps.service.dispose();
    } catch (e) {
      // never trap the user in an app that cannot quit: log it and quit
      this.deps.log?.(`hone: stopping before quit failed: ${(e as Error).message}`);
    }
    this.state = 'done';
    this.deps.quit();
  }
}
