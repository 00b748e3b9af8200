/**
 * What survives a reload of the window: the chosen model, the data files, the settings edits
 * and the chart's controls (the run itself comes back from the service). Stored as JSON under
 * one key; anything unreadable in storage is ignored rather than trusted.
 */
import type { ListedModel } from '../../../electron/common/models.ts';
import type { AppState } from './app-state.ts';

export const PERSIST_KEY = 'hone.renderer';
export const PERSIST_VERSION = 1;

export interface Persisted {
  models: { selectedId: string | null; picked: ListedModel[] };
  datasets: { sources: string[] };
  settings: { edits: AppState['settings']['edits']; preset: AppState['settings']['preset'] };
  run: { chart: AppState['run']['chart'] };
}

export function persistedPart(s: AppState): Persisted {
  return {
    models: { selectedId: s.models.selectedId, picked: s.models.picked },
    datasets: { sources: s.datasets.sources },
    settings: { edits: s.settings.edits, preset: s.settings.preset },
    run: { chart: s.run.chart },
  };
}

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** The current state with the stored parts that have the right shape put back. */
export function mergePersisted(stored: unknown, current: AppState): AppState {
  if (!isObj(stored)) return current;
  const { models, datasets, settings, run } = stored as Partial<Record<keyof Persisted, unknown>>;
  const next = { ...current };
  if (isObj(models)) {
    const picked = Array.isArray(models.picked) ? (models.picked as unknown[]).filter((m): m is ListedModel => isObj(m) && typeof m.id === 'string' && typeof m.path === 'string') : [];
    next.models = { ...current.models, picked, selectedId: typeof models.selectedId === 'string' ? models.selectedId : null };
  }
  if (isObj(datasets) && isStrings(datasets.sources)) next.datasets = { ...current.datasets, sources: datasets.sources };
  if (isObj(settings) && isObj(settings.edits)) {
    const preset = settings.preset === 'quick' || settings.preset === 'balanced' || settings.preset === 'thorough' ? settings.preset : null;
    next.settings = { ...current.settings, edits: settings.edits as AppState['settings']['edits'], preset };
  }
  if (isObj(run) && isObj(run.chart) && typeof run.chart.smoothing === 'number' && typeof run.chart.showRaw === 'boolean') {
    next.run = { ...current.run, chart: { smoothing: run.chart.smoothing, showRaw: run.chart.showRaw } };
  }
  return next;
}

/** A Storage that lives as long as the store (tests, and where the page has no localStorage). */
export function memoryStorage(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v), removeItem: (k) => void m.delete(k) };
}
