/**
 * A hone-train process the test can talk to while it runs: its --json events as they come,
 * waiting for one, sending it signals, and its exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { bin } from './native.ts';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  events: Array<Record<string, any>>;
}

export class TrainProcess {
  readonly child: ChildProcess;
  readonly events: Array<Record<string, any>> = [];
  readonly exited: Promise<Exit>;
  private waiters: Array<{ pred: (e: Record<string, any>) => boolean; resolve: (e: Record<string, any>) => void }> = [];

  constructor(args: string[]) {
    this.child = spawn(bin('hone-train'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    this.child.stdout!.setEncoding('utf8');
    this.child.stderr!.setEncoding('utf8');
    this.child.stdout!.on('data', (d: string) => {
      out += d;
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        if (!line.startsWith('{')) continue;
        const e = JSON.parse(line);
        this.events.push(e);
        this.waiters = this.waiters.filter((w) => (w.pred(e) ? (w.resolve(e), false) : true));
      }
    });
    this.child.stderr!.on('data', (d: string) => { err += d; });
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => resolve({ code, signal, stderr: err, events: this.events }));
    });
  }

  /** The first event (already seen or still to come) matching `pred`; rejects if the process exits first. */
  waitFor(pred: (e: Record<string, any>) => boolean): Promise<Record<string, any>> {
    const seen = this.events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.waiters.push({ pred, resolve });
      this.exited.then((x) => reject(new Error(`hone-train exited (${x.code ?? x.signal}) before the event: ${x.stderr}`)));
    });
  }

  signal(sig: NodeJS.Signals): void {
    this.child.kill(sig);
  }
}
