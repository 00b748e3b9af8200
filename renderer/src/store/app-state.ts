/**
 * The store's shape: one slice per concern (models, datasets, settings, plan, run, ops, runs),
 * each a data field plus the setters that change it. Derived values (smoothed loss, ETA, GPU
 * share…) are selectors in selectors.ts, never stored.
 */
import type { StateCreator } from 'zustand';
import type { ModelsSlice } from './slices/models.ts';
import type { DatasetsSlice } from './slices/datasets.ts';
import type { SettingsSlice } from './slices/settings.ts';
import type { PlanSlice } from './slices/plan.ts';
import type { RunSlice } from './slices/run.ts';
import type { OpsSlice } from './slices/ops.ts';
import type { RunsSlice } from './slices/runs.ts';

export type AppState = ModelsSlice & DatasetsSlice & SettingsSlice & PlanSlice & RunSlice & OpsSlice & RunsSlice;

/** A slice creator of the combined store, inside its middleware (subscribeWithSelector, then persist). */
export type SliceCreator<T> = StateCreator<AppState, [['zustand/subscribeWithSelector', never], ['zustand/persist', unknown]], [], T>;
