/**
 * Settings slice: what the engine offers (info: backends, defaults) and the user's edits on top
 * of the engine's defaults. The effective config is a selector (defaults ⊕ edits), never stored.
 */
import type { TrainConfig } from '../../../../electron/common/engine-api.ts';
import type { HoneService } from '../../../../electron/common/service.ts';
import { PRESETS, type PresetName } from '../../lib/presets.ts';
import type { SliceCreator } from '../app-state.ts';
import { idle, type Loadable } from '../loadable.ts';

export type ServiceInfo = Awaited<ReturnType<HoneService['info']>>;

/** The options a person edits here; model and data come from the Models and Datasets views. */
export type EditableConfig = Omit<TrainConfig, 'model' | 'data' | 'out' | 'evalData' | 'chatTemplate'>;

export interface SettingsState {
  info: Loadable<ServiceInfo>;
  edits: Partial<EditableConfig>;
  /** The preset last applied, null once an edit departs from it. */
  preset: PresetName | null;
}

export interface SettingsSlice {
  settings: SettingsState;
  setInfo(info: Loadable<ServiceInfo>): void;
  setSetting<K extends keyof EditableConfig>(key: K, value: EditableConfig[K]): void;
  applyPreset(name: PresetName): void;
  resetSettings(): void;
}

export const createSettingsSlice: SliceCreator<SettingsSlice> = (set) => ({
  settings: { info: idle(), edits: {}, preset: null },
  setInfo: (info) => set((s) => ({ settings: { ...s.settings, info } })),
  setSetting: (key, value) => set((s) => ({ settings: { ...s.settings, edits: { ...s.settings.edits, [key]: value }, preset: null } })),
  applyPreset: (name) => set((s) => ({ settings: { ...s.settings, edits: { ...s.settings.edits, ...PRESETS[name].config }, preset: name } })),
  resetSettings: () => set((s) => ({ settings: { ...s.settings, edits: {}, preset: null } })),
});
