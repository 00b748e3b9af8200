/**
 * One run while an engine host trains it: every engine event goes to events.jsonl and out to
 * the service's listeners, and the run's status follows what happens (docs/run-folder.md):
 * starting → running at the first step → finished | stopped | paused | failed, or interrupted
 * when the host dies. Stop and pause both ask the host to finish the step and checkpoint.
 */
import type { EngineEvent, TokenStats, TrainConfig, TrainResult } from '../../common/engine-api.ts';
import { toPlain, type PlainError } from '../../common/errors.ts';
import type { RunStatus, RunSummary } from '../../common/runs.ts';
import type { ServiceEvent } from '../../common/service.ts';
import type { EngineHost } from '../engine/client.ts';
import type { EventsLog } from './events-log.ts';
import type { RunRegistry } from './registry.ts';
import { isLive, summaryOf, withEvent, withStatus, type RunStatusFile } from './run-status.ts';

export interface LiveRunDeps {
  registry: RunRegistry;
  emit(e: ServiceEvent): void;
  /** Called once, as the run ends and before its final status goes out. */
  onEnd(run: LiveRun): void;
}

export class LiveRun {
  private intent: 'stop' | 'pause' | null = null;
  private host: EngineHost | null = null;
  /** The first failure to write the run's files; shown as the run's error, training goes on. */
  private writeError: PlainError | null = null;
  tokens: TokenStats | null = null;
  /** Its stop could not write a checkpoint: the host holds the state until retry() or discard(). */
  held = false;
  /** Settles when the train request has ended and the final status is written. */
  done: Promise<void> = Promise.resolve();

  constructor(
    private deps: LiveRunDeps,
    public status: RunStatusFile,
    readonly config: TrainConfig,
    private log: EventsLog,
    /** The schedule segment (0-based) its events belong to. */
    private segment: number,
  ) {}

  get id(): string {
    return this.status.id;
  }

  summary(): RunSummary {
    return summaryOf(this.status, this.deps.registry.resumableStep(this.id));
  }

  /**
   * Sends the train request and follows it to its end. `from`: a checkpoint to resume bit for
   * bit, or to continue as a new schedule segment.
   */
  begin(host: EngineHost, from: { resume: string } | { continueFrom: string } | null): void {
    this.host = host;
    this.setStatus('starting', null);
    let request: Promise<TrainResult>;
    const resume = from && 'resume' in from ? from.resume : null;
    const continueFrom = from && 'continueFrom' in from ? from.continueFrom : null;
    try {
      request = host.request('train', { config: this.config, resume, continueFrom }, (e) => this.onEvent(e));
    } catch (err) {
      request = Promise.reject(err);
    }
    this.done = request.then(
      (res) => this.end(res.stopped ? (this.intent === 'pause' ? 'paused' : 'stopped') : 'finished', null, res.adapter),
      (err) => {
        const e = toPlain(err);
        this.end(e.code === 'host_exited' ? 'interrupted' : 'failed', e, null);
      },
    );
  }

  /** Asks the host to finish the current step, checkpoint and end; the run shows `pausing` until it has. */
  async halt(kind: 'stop' | 'pause'): Promise<void> {
    if (!isLive(this.status.status) || !this.host) return;
    this.intent = kind;
    if (this.status.status !== 'pausing') this.setStatus('pausing', null);
    // A host that died meanwhile ends the train request too (interrupted): nothing to do here.
    await this.host.request('stop', {}).catch(() => {});
  }

  /** A held run: the host tries the checkpoint again (it stays pausing until it is written). */
  async retry(): Promise<void> {
    if (!this.held || !this.host) return;
    this.held = false;
    await this.host.request('retry-checkpoint', {});
  }

  /** A held run: end it, resumable from its last good checkpoint. */
  async discard(): Promise<void> {
    if (!this.held || !this.host) return;
    this.held = false;
    await this.host.request('discard', {});
  }

  private onEvent(e: EngineEvent): void {
    if (e.type === 'step' && this.status.status === 'starting') this.setStatus('running', null);
    if (e.type === 'checkpoint-failed') {
      // shown on the run (training goes on, or, held, waits for a retry); cleared by the next good checkpoint
      this.held = e.held;
      this.status = { ...this.status, error: { code: 'io_error', message: `checkpoint at step ${e.step} not written: ${e.message}`, detail: { lastGood: e.lastGood, held: e.held } } };
      this.deps.emit({ type: 'run-status', run: this.summary() });
    }
    if (e.type === 'checkpoint' && this.status.error?.message.startsWith('checkpoint at step')) this.status = { ...this.status, error: null };
    if (e.type === 'tokens') this.tokens = e.stats;
    this.status = withEvent(this.status, e);
    const record = this.write(() => this.log.append(this.segment, e));
    if (record) this.deps.emit({ type: 'run', runId: this.id, record });
    if (e.type === 'checkpoint') {
      // a checkpoint is a point a restart resumes from: its events and counters are on disk
      this.write(() => this.log.sync());
      this.write(() => this.deps.registry.writeStatus(this.status));
    }
  }

  private end(status: RunStatus, error: PlainError | null, adapter: string | null): void {
    this.deps.onEnd(this);
    if (adapter) this.status = { ...this.status, adapter };
    this.setStatus(status, error ?? this.writeError);
    this.write(() => this.log.close());
  }

  private setStatus(status: RunStatus, error: PlainError | null): void {
    this.status = withStatus(this.status, status, error, new Date());
    this.write(() => this.deps.registry.writeStatus(this.status));
    const record = this.write(() => this.log.append(this.segment, error ? { type: 'status', status, error } : { type: 'status', status }));
    if (record) this.deps.emit({ type: 'run', runId: this.id, record });
    this.deps.emit({ type: 'run-status', run: this.summary() });
  }

  /** Runs a file write; a failure is kept (the first one) instead of breaking the run. */
  private write<T>(fn: () => T): T | null {
    try {
      return fn();
    } catch (err) {
      this.writeError ??= toPlain(err);
      return null;
    }
  }
}
