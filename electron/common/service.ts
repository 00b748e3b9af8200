/**
 * HoneService: the one interface every front end stands on (the Electron window through the
 * preload, a browser through web mode, the `hone` command, tests). One Node implementation
 * lives in `electron/services/`; front ends only transport calls and events. No platform imports.
 *
 * Methods are named `group.name` on the wire (`runs.start`); `SERVICE_METHODS` lists them and
 * `validateCall` checks their arguments, so web mode and Electron's main check exactly alike.
 */
import type { ChatRequest, ChatResult, ChatToken } from './chat.ts';
import type { InspectResult, TrainConfig } from './engine-api.ts';
import type { PlainError } from './errors.ts';
import type { ExportProgress, ExportRequest, ExportResult } from './export.ts';
import type { ModelList, ListedModel } from './models.ts';
import type { DatasetImport, EngineCapabilities, PlanResult, RunDetail, RunEventRecord, RunSummary } from './runs.ts';

/** What a caller sets for a run: the model and data, everything else falls back to the engine's defaults. */
export type RunSettings = Partial<TrainConfig> & { model: string; data: string[] };

export interface HoneService {
  /** Version, data folder and what this engine can do (backends, trainable architectures, defaults). */
  info(): Promise<{ version: string; dataDir: string; engine: EngineCapabilities }>;
  models: {
    list(): Promise<ModelList>;
    /** One file the user picked or dropped (a path on the machine the service runs on). */
    inspect(path: string): Promise<ListedModel>;
    /** Adds a folder to scan from now on (remembered in the data folder). */
    addFolder(path: string): Promise<ModelList>;
  };
  datasets: {
    /** Reads and validates files or folders (no model): formats, counts, problems by file and line. */
    import(paths: string[]): Promise<DatasetImport>;
    /** Renders through a model's template: token statistics, truncation list, a masked preview. */
    inspect(settings: RunSettings): Promise<InspectResult>;
  };
  /** Memory per pool and the op placement of the graph the run would get, without training. */
  plan(settings: RunSettings): Promise<PlanResult>;
  runs: {
    start(settings: RunSettings): Promise<RunSummary>;
    /** Finish the current step, checkpoint, end as `stopped` (resumable). */
    stop(id: string): Promise<RunSummary>;
    /** As stop, but the run shows as `paused` and `resume` picks it up. */
    pause(id: string): Promise<RunSummary>;
    /** Picks up a paused, stopped or interrupted run from its newest checkpoint, bit for bit. */
    resume(id: string): Promise<RunSummary>;
    /** A finished or stopped run trains further: a new schedule segment on its adapter and optimizer state. */
    continue(id: string, more: { steps?: number; epochs?: number }): Promise<RunSummary>;
    list(): Promise<RunSummary[]>;
    get(id: string): Promise<RunDetail>;
    /** Removes the run's folder; never a model or dataset file. */
    delete(id: string): Promise<void>;
    /** The run's recorded events with `seq > since` (a reloaded window gets the whole curve). */
    events(id: string, since?: number): Promise<RunEventRecord[]>;
    /** ops.json of the run (running: the graph as scheduled; finished: as it ran), or null before one exists. */
    opReport(id: string): Promise<unknown | null>;
  };
  exports: {
    /**
     * Writes a trained adapter in one format (docs/export.md): atomically, under a temporary
     * name beside `out`, renamed when complete. Slow steps send `export-progress` events.
     */
    create(request: ExportRequest): Promise<ExportResult>;
  };
  chat: {
    /**
     * A reply to a conversation through llama.cpp with the adapter applied (docs/chat.md):
     * streamed as `chat-token` events tagged with the request's chatId; with `compare` the base
     * answers first, then the base with the adapter. `busy` while a run trains.
     */
    generate(request: ChatRequest): Promise<ChatResult>;
    /** Ends the reply in progress of that chat (its text so far is kept) and skips the next. */
    stop(chatId: string): Promise<{ stopping: boolean }>;
  };
  /** Live events of every run and of the engine host; returns the unsubscribe function. */
  subscribe(listener: (e: ServiceEvent) => void): () => void;
}

export type ServiceEvent =
  | { type: 'run'; runId: string; record: RunEventRecord }
  | { type: 'run-status'; run: RunSummary }
  | { type: 'host-exited'; reason: string; runId: string | null; error: PlainError }
  | ExportProgress
  | ChatToken;

/** Every method by its wire name, with the argument kinds `validateCall` checks. */
export const SERVICE_METHODS = {
  info: [],
  'models.list': [],
  'models.inspect': ['path'],
  'models.addFolder': ['path'],
  'datasets.import': ['paths'],
  'datasets.inspect': ['settings'],
  plan: ['settings'],
  'runs.start': ['settings'],
  'runs.stop': ['id'],
  'runs.pause': ['id'],
  'runs.resume': ['id'],
  'runs.continue': ['id', 'more'],
  'runs.list': [],
  'runs.get': ['id'],
  'runs.delete': ['id'],
  'runs.events': ['id', 'since?'],
  'runs.opReport': ['id'],
  'exports.create': ['export'],
  'chat.generate': ['chat'],
  'chat.stop': ['chatId'],
} as const satisfies Record<string, readonly string[]>;

export type ServiceMethod = keyof typeof SERVICE_METHODS;
