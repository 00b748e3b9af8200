/**
 * The service on real engine hosts that a test can SIGKILL at a chosen event: `killWhen` arms
 * one kill, fired (after an optional delay) by the first service event it matches. The next
 * call that needs the engine starts a new host, as in the app.
 */
import type { RunStatus, RunSummary } from '../../electron/common/runs.ts';
import type { ServiceEvent } from '../../electron/common/service.ts';
import { EngineHost } from '../../electron/services/engine/client.ts';
import { NodeHoneService } from '../../electron/services/hone-service.ts';

const ENDED: readonly RunStatus[] = ['finished', 'stopped', 'paused', 'failed', 'interrupted'];

export class KillableService {
  readonly service: NodeHoneService;
  readonly hosts: EngineHost[] = [];
  /** The hosts this service's kills ended. */
  private killed = new Set<EngineHost>();
  private kill: { when: (e: ServiceEvent) => boolean; delayMs: number; fired: (e: ServiceEvent) => void } | null = null;
  private waiters: Array<(e: ServiceEvent) => void> = [];

  constructor(dataDir: string) {
    this.service = new NodeHoneService({ dataDir, hostFactory: () => (this.hosts.push(EngineHost.start()), this.hosts.at(-1)!) });
    this.service.subscribe((e) => {
      if (this.kill?.when(e)) this.fire(e);
      for (const w of [...this.waiters]) w(e);
    });
  }

  /** Arms one SIGKILL of the current host; resolves with the event that fired it. */
  killWhen(when: (e: ServiceEvent) => boolean, delayMs = 0): Promise<ServiceEvent> {
    return new Promise((fired) => (this.kill = { when, delayMs, fired }));
  }

  /**
   * Disarms a kill that never fired (the job ended first) and waits until a killed host is gone,
   * so the next request starts a new host instead of meeting the dying one.
   */
  async settle(): Promise<void> {
    this.kill = null;
    await Promise.all([...this.killed].map((h) => h.closed()));
  }

  /** Run `id`'s summary once it ended (any end: finished, interrupted, ...). */
  ended(id: string, ms = 60_000): Promise<RunSummary> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`run ${id} did not end in ${ms} ms`)), ms);
      const w = (e: ServiceEvent) => {
        if (e.type !== 'run-status' || e.run.id !== id || !ENDED.includes(e.run.status)) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((x) => x !== w);
        resolve(e.run);
      };
      this.waiters.push(w);
    });
  }

  dispose(): Promise<void> {
    return this.service.dispose();
  }

  private fire(e: ServiceEvent): void {
    const { delayMs, fired } = this.kill!;
    this.kill = null;
    const host = this.hosts.at(-1)!;
    const go = () => {
      this.killed.add(host);
      host.kill('SIGKILL');
      fired(e);
    };
    // a busy wait, not a timer: a timer's delay is at least a millisecond and lands late on a loaded machine
    if (delayMs <= 0) return go();
    const until = performance.now() + delayMs;
    while (performance.now() < until);
    go();
  }
}
