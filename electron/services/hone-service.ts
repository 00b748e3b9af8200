/**
 * NodeHoneService: the one Node implementation of HoneService (common/service.ts), behind
 * every front end. It keeps the run registry under `<dataDir>/runs/` (docs/run-folder.md),
 * drives one engine host (started on first use, again after it died), one training job at a
 * time, and remembers added model folders in `<dataDir>/settings.json`.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { CHAT_DEFAULT_SAMPLING, type ChatRequest, type ChatResult, type ChatSampling } from '../common/chat.ts';
import type { InspectResult, TokenStats, TrainConfig } from '../common/engine-api.ts';
import { HoneError, toPlain } from '../common/errors.ts';
import type { ExportRequest, ExportResult } from '../common/export.ts';
import type { ListedModel, ModelList } from '../common/models.ts';
import type { DatasetImport, EngineCapabilities, PlanResult, RunDetail, RunEventRecord, RunSummary } from '../common/runs.ts';
import type { HoneService, RunSettings, ServiceEvent } from '../common/service.ts';
import { validateCall } from '../common/validate.ts';
import { resolveChatSource } from './chat/chat-source.ts';
import { scanDataset } from './dataset/index.ts';
import { EngineHost } from './engine/client.ts';
import { HostKeeper, type HostExit } from './engine/host-keeper.ts';
import { readJsonFile } from './json-file.ts';
import { findUp } from './locate.ts';
import { ModelCatalog } from './models/index.ts';
import { reason } from './models/fs-errors.ts';
import { checkpointsDir } from './runs/checkpoints.ts';
import { createExport, type MergeFn } from './export/create-export.ts';
import { EventsLog } from './runs/events-log.ts';
import { LiveRun } from './runs/live-run.ts';
import { RunRegistry } from './runs/registry.ts';
import { checkInputs, trainConfigFor } from './runs/run-config.ts';
import { newestFirst } from './runs/run-id.ts';
import { runsRoot } from './runs/run-folder.ts';
import { tokenStatsOf } from './runs/token-stats.ts';
import { CONTINUABLE_STATUSES, RESUMABLE_STATUSES, summaryOf, type RunStatusFile } from './runs/run-status.ts';
import { loadSettings, saveSettings, type AppSettings } from './settings-file.ts';

export interface NodeHoneServiceOptions {
  /** Hone's data folder (runs, settings.json, uploads). */
  dataDir: string;
  /** Starts an engine host (default: the host process beside this code). */
  hostFactory?: () => EngineHost;
  /** Home folder and environment the model list searches under (default: the process's). */
  home?: string;
  env?: Record<string, string | undefined>;
}

/** How long dispose() waits for a live run to finish its step and checkpoint before ending the host. */
const STOP_TIMEOUT_MS = 60_000;

export class NodeHoneService implements HoneService {
  readonly dataDir: string;
  private registry: RunRegistry;
  private hosts: HostKeeper;
  private catalog: ModelCatalog;
  private settings: AppSettings;
  private settingsWarnings: string[];
  private listeners = new Set<(e: ServiceEvent) => void>();
  private live: LiveRun | null = null;
  /** A start or resume is between its busy check and its run existing. */
  private claiming = false;
  /** Plans and inspections in flight on the host (a run being started waits for them). */
  private shortJobs = new Set<Promise<unknown>>();
  /** The run a resume in that state is for (delete refuses it meanwhile). */
  private resuming: string | null = null;
  private disposing: Promise<void> | null = null;
  /** The chat whose reply the host is generating (one at a time, like every host job). */
  private chatInFlight: string | null = null;
  private chatCount = 0;

  constructor(options: NodeHoneServiceOptions) {
    this.dataDir = resolve(options.dataDir);
    this.registry = new RunRegistry(runsRoot(this.dataDir));
    this.hosts = new HostKeeper(options.hostFactory ?? (() => EngineHost.start()), (exit) => this.onHostExit(exit));
    this.catalog = new ModelCatalog({ home: options.home, env: options.env });
    const loaded = loadSettings(this.dataDir);
    this.settings = loaded.settings;
    this.settingsWarnings = loaded.warnings;
  }

  async info(): Promise<{ version: string; dataDir: string; engine: EngineCapabilities }> {
    validateCall('info', []);
    return { version: packageVersion(), dataDir: this.dataDir, engine: await this.hosts.capabilities() };
  }

  readonly models = {
    list: async (): Promise<ModelList> => {
      validateCall('models.list', []);
      const list = await this.catalog.list({ folders: this.settings.modelFolders, trainableArchitectures: await this.trainableArchitectures() });
      return { ...list, warnings: [...this.settingsWarnings, ...list.warnings] };
    },
    inspect: async (path: string): Promise<ListedModel> => {
      validateCall('models.inspect', [path]);
      return this.catalog.inspect(path, { trainableArchitectures: await this.trainableArchitectures() });
    },
    addFolder: async (path: string): Promise<ModelList> => {
      validateCall('models.addFolder', [path]);
      if (!isAbsolute(path)) throw new HoneError('invalid_argument', `models.addFolder: the folder must be an absolute path (got ${JSON.stringify(path)})`);
      const folder = resolve(path);
      let isDir: boolean;
      try {
        isDir = statSync(folder).isDirectory();
      } catch (err) {
        throw new HoneError('io_error', `${folder}: ${reason(err)}`, { path: folder });
      }
      if (!isDir) throw new HoneError('io_error', `${folder}: not a folder`, { path: folder });
      if (!this.settings.modelFolders.includes(folder)) {
        const next = { ...this.settings, modelFolders: [...this.settings.modelFolders, folder] };
        saveSettings(this.dataDir, next);
        this.settings = next;
        this.settingsWarnings = []; // the file is good again
      }
      return this.models.list();
    },
  };

  readonly datasets = {
    import: async (paths: string[]): Promise<DatasetImport> => {
      validateCall('datasets.import', [paths]);
      paths.forEach((p, i) => {
        if (!isAbsolute(p)) throw new HoneError('invalid_argument', `datasets.import: paths[${i}] must be an absolute path (got ${JSON.stringify(p)})`);
      });
      const report = await scanDataset(paths);
      return { files: report.files.map((f) => f.path), report };
    },
    inspect: async (settings: RunSettings): Promise<InspectResult> => {
      validateCall('datasets.inspect', [settings]);
      const config = await this.configFor(settings);
      return this.hostJob(() => this.hosts.get().request('inspect', { model: config.model, data: config.data, config }));
    },
  };

  async plan(settings: RunSettings): Promise<PlanResult> {
    validateCall('plan', [settings]);
    const config = await this.configFor(settings);
    try {
      return await this.hostJob(() => this.hosts.get().request('plan', { config }));
    } catch (err) {
      if (toPlain(err).code !== 'unknown_request') throw err;
      throw new HoneError('unsupported', "plan: this engine host cannot plan a run yet (it does not know the 'plan' request)");
    }
  }

  readonly runs = {
    start: (settings: RunSettings) => this.start(settings),
    stop: (id: string) => this.halt('runs.stop', id, 'stop'),
    pause: (id: string) => this.halt('runs.pause', id, 'pause'),
    resume: (id: string) => this.resume(id),
    continue: (id: string, more: { steps?: number; epochs?: number }) => this.continueRun(id, more),
    list: async (): Promise<RunSummary[]> => {
      validateCall('runs.list', []);
      return this.registry.ids().map((id) => this.summary(id)).sort(newestFirst);
    },
    get: async (id: string): Promise<RunDetail> => {
      validateCall('runs.get', [id]);
      this.registry.mustExist(id);
      const live = this.live?.id === id ? this.live : null;
      return {
        ...this.summary(id),
        config: live ? live.config : this.registry.readConfig(id),
        folder: this.registry.folder(id),
        tokens: live?.tokens ?? this.loggedTokens(id),
      };
    },
    delete: async (id: string): Promise<void> => {
      validateCall('runs.delete', [id]);
      if (this.live?.id === id || this.resuming === id) throw this.busy();
      this.registry.remove(id);
    },
    events: async (id: string, since?: number): Promise<RunEventRecord[]> => {
      validateCall('runs.events', since === undefined ? [id] : [id, since]);
      return this.registry.events(id, since ?? 0);
    },
    opReport: async (id: string): Promise<unknown | null> => {
      validateCall('runs.opReport', [id]);
      this.registry.mustExist(id);
      const file = this.registry.file(id, 'ops');
      return existsSync(file) ? readJsonFile(file) : null;
    },
  };

  readonly exports = {
    create: async (request: ExportRequest): Promise<ExportResult> => {
      validateCall('exports.create', [request]);
      return createExport(request, {
        lookupRun: (id) => {
          this.registry.mustExist(id);
          return this.registry.folder(id);
        },
        merge: this.merge,
        defaults: () => this.trainDefaults(),
        onProgress: (p) => this.emit(p),
      });
    },
  };

  readonly chat = {
    generate: async (request: ChatRequest): Promise<ChatResult> => {
      validateCall('chat.generate', [request]);
      if (this.live || this.claiming) throw this.busy();
      if (this.chatInFlight) throw new HoneError('busy', `chat ${this.chatInFlight} is answering: one reply at a time (stop it first)`, { chatId: this.chatInFlight });
      const chatId = request.chatId ?? `chat-${Date.now().toString(36)}-${++this.chatCount}`;
      const source = await resolveChatSource(request, (id) => {
        this.registry.mustExist(id);
        return this.registry.folder(id);
      });
      const given = Object.fromEntries(Object.entries(request.sampling ?? {}).filter(([, v]) => v !== undefined)) as Partial<ChatSampling>;
      const payload = {
        model: source.model,
        adapter: source.adapter,
        scale: request.scale ?? 1,
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        sampling: { ...CHAT_DEFAULT_SAMPLING, ...given },
        compare: request.compare ?? false,
        backend: request.backend,
      };
      const r = await this.hostJob(async () => {
        this.chatInFlight = chatId;
        try {
          return await this.hosts.get().request('chat', payload, (e) => {
            if (e.type === 'chat-token') this.emit({ type: 'chat-token', chatId, which: e.which, text: e.text });
          });
        } catch (err) {
          if (toPlain(err).code !== 'unknown_request') throw err;
          throw new HoneError('unsupported', "this engine host cannot chat yet (it does not know the 'chat' request)");
        } finally {
          if (this.chatInFlight === chatId) this.chatInFlight = null;
        }
      });
      const notes = [...source.notes];
      if (r.template === 'fallback') notes.push("the model has no chat template: the conversation was rendered in Hone's plain fallback format (### User: / ### Assistant:), as training renders it");
      return { chatId, model: source.model, adapter: source.adapter, template: r.template, backend: r.backend, replies: r.replies, notes };
    },
    stop: async (chatId: string): Promise<{ stopping: boolean }> => {
      validateCall('chat.stop', [chatId]);
      if (this.chatInFlight !== chatId) return { stopping: false };
      await this.hosts.get().request('stop', {});
      return { stopping: true };
    },
  };

  subscribe(listener: (e: ServiceEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Stops a live run with a checkpoint (ending the host if it takes too long), then ends the host. Safe to call twice. */
  dispose(): Promise<void> {
    this.disposing ??= (async () => {
      const run = this.live;
      if (run) {
        await run.halt('stop');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([run.done, new Promise<void>((r) => (timer = setTimeout(r, STOP_TIMEOUT_MS)))]);
        clearTimeout(timer);
      }
      await this.hosts.close();
      if (run) await run.done;
      this.listeners.clear();
    })();
    return this.disposing;
  }

  private async start(settings: RunSettings): Promise<RunSummary> {
    validateCall('runs.start', [settings]);
    this.checkIdle();
    this.claiming = true;
    try {
      const config = await this.configFor(settings);
      await this.hostIdle();
      const host = this.hosts.get(); // before the folder: a host that cannot start leaves no run behind
      const created = this.registry.create((folder) => ({ ...config, out: folder }));
      return this.launch(created.status, created.config, 0, host, null);
    } finally {
      this.claiming = false;
    }
  }

  private async resume(id: string): Promise<RunSummary> {
    validateCall('runs.resume', [id]);
    if (this.live?.id === id && this.live.held) {
      // its stop could not checkpoint: try again (the state is still in the host's memory)
      await this.live.retry();
      return this.live.summary();
    }
    return this.claim(id, async () => {
      const st = this.settled(id);
      if (!RESUMABLE_STATUSES.includes(st.status)) {
        const hint = st.status === 'finished' ? ' (a finished run trains further with continue)' : '';
        throw new HoneError('invalid_argument', `run ${id} is ${st.status}: only a paused, stopped, interrupted or failed run resumes${hint}`);
      }
      const checkpoint = this.newestCheckpoint(id, 'resume from', '; start a new run instead');
      return this.relaunch({ ...st, error: null, adapter: null }, this.registry.readConfig(id), Math.max(0, st.segments - 1), { resume: checkpoint });
    });
  }

  /**
   * A finished or stopped run trains further: a new schedule segment of `more` steps or epochs
   * (same data, schedule settings and seed, so the data order starts over) on the adapter and
   * AdamW state of its newest checkpoint. config.json then holds the new segment's settings.
   */
  private async continueRun(id: string, more: { steps?: number; epochs?: number }): Promise<RunSummary> {
    validateCall('runs.continue', [id, more]);
    return this.claim(id, async () => {
      const st = this.settled(id);
      if (!CONTINUABLE_STATUSES.includes(st.status)) {
        throw new HoneError('invalid_argument', `run ${id} is ${st.status}: only a finished, stopped or paused run continues (an interrupted or failed one resumes first)`);
      }
      const checkpoint = this.newestCheckpoint(id, 'continue from', '');
      const before = this.registry.readConfig(id);
      const config: TrainConfig = more.steps !== undefined ? { ...before, steps: more.steps } : { ...before, steps: 0, epochs: more.epochs! };
      return this.relaunch({ ...st, error: null, adapter: null, segments: st.segments + 1 }, config, st.segments, { continueFrom: checkpoint });
    });
  }

  /** A resume or continue of run `id`: one job at a time, and the run cannot be deleted meanwhile. */
  private async claim<T>(id: string, fn: () => Promise<T>): Promise<T> {
    this.checkIdle();
    this.claiming = true;
    this.resuming = id;
    try {
      return await fn();
    } finally {
      this.claiming = false;
      this.resuming = null;
    }
  }

  private newestCheckpoint(id: string, what: string, hint: string): string {
    const checkpoint = this.registry.latestCheckpoint(id);
    if (!checkpoint) throw new HoneError('invalid_argument', `run ${id} has no checkpoint to ${what} (none in ${checkpointsDir(this.registry.folder(id))})${hint}`);
    return checkpoint;
  }

  /** An existing run trains again from a checkpoint, once its inputs are there and the host is free. */
  private async relaunch(status: RunStatusFile, config: TrainConfig, segment: number, from: Parameters<LiveRun['begin']>[1]): Promise<RunSummary> {
    await checkInputs(config);
    await this.hostIdle();
    return this.launch(status, config, segment, this.hosts.get(), from);
  }

  private launch(status: RunStatusFile, config: TrainConfig, segment: number, host: EngineHost, from: Parameters<LiveRun['begin']>[1]): RunSummary {
    const log = EventsLog.open(this.registry.file(status.id, 'events'));
    const run = new LiveRun(
      {
        registry: this.registry,
        emit: (e) => this.emit(e),
        onEnd: (r) => {
          if (this.live === r) this.live = null;
        },
      },
      status,
      config,
      log,
      segment,
    );
    this.live = run;
    run.begin(host, from);
    return run.summary();
  }

  private async halt(method: 'runs.stop' | 'runs.pause', id: string, kind: 'stop' | 'pause'): Promise<RunSummary> {
    validateCall(method, [id]);
    const run = this.live;
    if (!run || run.id !== id) {
      const st = this.settled(id);
      throw new HoneError('invalid_argument', `run ${id} is ${st.status}, not running: there is nothing to ${kind}`);
    }
    if (run.held) await run.discard(); // give up the held state: it ends resumable from its last good checkpoint
    else await run.halt(kind);
    return run.summary();
  }

  /**
   * A short engine job (plan, inspect, merge, chat). The host runs one job at a time: while a run trains or
   * is being started these answer `busy` here, and a run being started waits for those in flight.
   */
  private hostJob<T>(job: () => Promise<T>): Promise<T> {
    if (this.live || this.claiming) return Promise.reject(this.busy());
    const p = job();
    this.shortJobs.add(p);
    const forget = () => this.shortJobs.delete(p);
    p.then(forget, forget);
    return p;
  }

  /** The engine host's merge, a short job like a plan (`busy` while a run trains); `unsupported` from a host without it. */
  private merge: MergeFn = (payload, onProgress) =>
    this.hostJob(async () => {
      try {
        return await this.hosts.get().request('merge', payload, (e) => {
          if (e.type === 'merge-progress') onProgress(e.done, e.total, e.tensor);
        });
      } catch (err) {
        if (toPlain(err).code !== 'unknown_request') throw err;
        throw new HoneError('unsupported', "this engine host cannot merge yet (it does not know the 'merge' request)");
      }
    });

  /** Settles once no plan, inspection or chat is in flight on the host (a chat is stopped: a run comes first). */
  private async hostIdle(): Promise<void> {
    if (this.chatInFlight) await this.chat.stop(this.chatInFlight).catch(() => {});
    await Promise.allSettled([...this.shortJobs]);
  }

  /** Throws `busy` when a run is live or being started: one training job at a time. */
  private checkIdle(): void {
    if (this.live || this.claiming) throw this.busy();
  }

  private busy(): HoneError {
    const run = this.live;
    if (!run) return new HoneError('busy', 'another run is being started: one training job at a time');
    return new HoneError('busy', `run ${run.id} is ${run.status.status}: one training job at a time (stop or pause it first)`, { runId: run.id });
  }

  /** status.json of a run that is not live here, corrected when a restart cut it off. */
  private settled(id: string): RunStatusFile {
    if (this.live?.id === id) return this.live.status;
    return this.registry.settle(this.registry.statusOrBroken(id), false);
  }

  private summary(id: string): RunSummary {
    if (this.live?.id === id) return this.live.summary();
    return summaryOf(this.settled(id), this.registry.resumableStep(id));
  }

  /** The token statistics the run's log recorded last, or null (none yet, or an unreadable log). */
  private loggedTokens(id: string): TokenStats | null {
    try {
      let stats: TokenStats | null = null;
      for (const r of this.registry.events(id)) if (r.event.type === 'tokens') stats = tokenStatsOf(r.event.stats) ?? stats;
      return stats;
    } catch {
      return null;
    }
  }

  /** The full config of a run from settings, its inputs checked (`out` is set when a folder is made). */
  private async configFor(settings: RunSettings): Promise<TrainConfig> {
    const config = trainConfigFor(settings, await this.trainDefaults(), '');
    await checkInputs(config);
    return config;
  }

  /** The engine's defaults (the host's `capabilities`): the one place that says what a default is. */
  private async trainDefaults(): Promise<TrainConfig> {
    return (await this.hosts.capabilities()).defaults;
  }

  /** The architectures the engine trains, or undefined when the host cannot say now (the list then shows `trainable: null`). */
  private async trainableArchitectures(): Promise<string[] | undefined> {
    try {
      return (await this.hosts.capabilities()).trainableArchitectures;
    } catch {
      return undefined;
    }
  }

  private onHostExit(exit: HostExit): void {
    const runId = this.live?.id ?? null;
    this.emit({ type: 'host-exited', reason: exit.reason, runId, error: { code: 'host_exited', message: `the engine host stopped (${exit.reason})`, detail: exit } });
  }

  /** Sends an event to every listener; a listener that throws does not stop the others or the run. */
  private emit(e: ServiceEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(e);
      } catch {
        // the listener's own failure (a closed socket, a bug in a view): the run goes on
      }
    }
  }
}

let version: string | null = null;

/** The version in package.json of this installation. */
function packageVersion(): string {
  if (version) return version;
  const root = findUp('package.json', import.meta.url);
  if (!root) throw new HoneError('internal', `cannot find package.json in any folder above ${import.meta.url}`);
  const v = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: unknown }).version;
  if (typeof v !== 'string') throw new HoneError('internal', `${join(root, 'package.json')}: no version`);
  version = v;
  return v;
}
