/** Plan slice: the service's memory plan and op placement for the settings as they stand. */
import type { PlanResult } from '../../../../electron/common/runs.ts';
import type { SliceCreator } from '../app-state.ts';
import { idle, type Loadable } from '../loadable.ts';

export interface PlanState {
  result: Loadable<PlanResult>;
  /** The settings key (selectRunSettingsKey) `result` answers; stale when it differs. */
  key: string | null;
}

export interface PlanSlice {
  plan: PlanState;
  setPlan(result: Loadable<PlanResult>, key: string | null): void;
}

export const createPlanSlice: SliceCreator<PlanSlice> = (set) => ({
  plan: { result: idle(), key: null },
  setPlan: (result, key) => set({ plan: { result, key } }),
});
