/**
 * The one store: every slice combined, with the only middleware (subscribeWithSelector, so
 * plain modules such as the plan scheduler can watch one derived value) on the whole.
 */
import { subscribeWithSelector } from 'zustand/middleware';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppState } from './app-state.ts';
import { createDatasetsSlice } from './slices/datasets.ts';
import { createModelsSlice } from './slices/models.ts';
import { createOpsSlice } from './slices/ops.ts';
import { createPlanSlice } from './slices/plan.ts';
import { createRunSlice } from './slices/run.ts';
import { createRunsSlice } from './slices/runs.ts';
import { createSettingsSlice } from './slices/settings.ts';

export type AppStore = ReturnType<typeof createAppStore>;
export type { AppState };

export function createAppStore() {
  return createStore<AppState>()(
    subscribeWithSelector((...a) => ({
      ...createModelsSlice(...a),
      ...createDatasetsSlice(...a),
      ...createSettingsSlice(...a),
      ...createPlanSlice(...a),
      ...createRunSlice(...a),
      ...createOpsSlice(...a),
      ...createRunsSlice(...a),
    })),
  );
}

// the vanilla API type, for functions that only read and set
export type AppStoreApi = StoreApi<AppState>;
