/** Datasets slice: the files the user gave, their import report, and the token inspection. */
import type { InspectResult } from '../../../../electron/common/engine-api.ts';
import type { DatasetImport } from '../../../../electron/common/runs.ts';
import type { SliceCreator } from '../app-state.ts';
import { idle, type Loadable } from '../loadable.ts';

export interface DatasetsState {
  /** Paths as given (files or folders), the run's `data`. */
  sources: string[];
  report: Loadable<DatasetImport>;
  /** Files being uploaded (web mode), or null. */
  upload: { done: number; total: number } | null;
  inspect: Loadable<InspectResult>;
  /** The settings key the inspection was made for (model, data, ctx, policy…). */
  inspectKey: string | null;
}

export interface DatasetsSlice {
  datasets: DatasetsState;
  setDatasetSources(sources: string[]): void;
  setDatasetReport(report: Loadable<DatasetImport>): void;
  setUpload(upload: DatasetsState['upload']): void;
  setDatasetInspect(inspect: Loadable<InspectResult>, key: string | null): void;
}

export const createDatasetsSlice: SliceCreator<DatasetsSlice> = (set) => ({
  datasets: { sources: [], report: idle(), upload: null, inspect: idle(), inspectKey: null },
  setDatasetSources: (sources) => set((s) => ({ datasets: { ...s.datasets, sources } })),
  setDatasetReport: (report) => set((s) => ({ datasets: { ...s.datasets, report } })),
  setUpload: (upload) => set((s) => ({ datasets: { ...s.datasets, upload } })),
  setDatasetInspect: (inspect, inspectKey) => set((s) => ({ datasets: { ...s.datasets, inspect, inspectKey } })),
});
