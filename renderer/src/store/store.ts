/**
 * The one store: every slice combined, with the middleware on the whole only: persist (what
 * survives a reload, store/persisted.ts) inside subscribeWithSelector (so plain modules such as
 * the plan scheduler can watch one derived value).
 */
import { createJSONStorage, persist, subscribeWithSelector, type StateStorage } from 'zustand/middleware';
import { createStore, type StoreApi } from 'zustand/vanilla';
import type { AppState } from './app-state.ts';
import { memoryStorage, mergePersisted, PERSIST_KEY, PERSIST_VERSION, persistedPart, type Persisted } from './persisted.ts';
import { createDatasetsSlice } from './slices/datasets.ts';
import { createModelsSlice } from './slices/models.ts';
import { createOpsSlice } from './slices/ops.ts';
import { createPlanSlice } from './slices/plan.ts';
import { createRunSlice } from './slices/run.ts';
import { createRunsSlice } from './slices/runs.ts';
import { createSettingsSlice } from './slices/settings.ts';

export type AppStore = ReturnType<typeof createAppStore>;
export type { AppState };

/** `storage`: where the persisted part lives (the window passes localStorage); default: memory. */
export function createAppStore(opts: { storage?: StateStorage } = {}) {
  const storage = opts.storage ?? memoryStorage();
  return createStore<AppState>()(
    subscribeWithSelector(
      persist<AppState, [], [], Persisted>(
        (...a) => ({
          ...createModelsSlice(...a),
          ...createDatasetsSlice(...a),
          ...createSettingsSlice(...a),
          ...createPlanSlice(...a),
          ...createRunSlice(...a),
          ...createOpsSlice(...a),
          ...createRunsSlice(...a),
        }),
        {
          name: PERSIST_KEY,
          version: PERSIST_VERSION,
          storage: createJSONStorage(() => storage),
          partialize: persistedPart,
          merge: mergePersisted,
        },
      ),
    ),
  );
}

// the vanilla API type, for functions that only read and set
export type AppStoreApi = StoreApi<AppState>;
