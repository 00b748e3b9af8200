/** Models slice: the machine's model list, files picked by path, and the one chosen to train. */
import type { ListedModel, ModelList } from '../../../../electron/common/models.ts';
import type { SliceCreator } from '../app-state.ts';
import { idle, type Loadable } from '../loadable.ts';

export interface ModelsState {
  list: Loadable<ModelList>;
  /** Models opened by path (models.inspect), shown with the list. */
  picked: ListedModel[];
  /** The last models.inspect or models.addFolder call, for its spinner and error. */
  pick: Loadable<null>;
  /** `ListedModel.id` of the chosen model. */
  selectedId: string | null;
}

export interface ModelsSlice {
  models: ModelsState;
  setModelList(list: Loadable<ModelList>): void;
  setModelPick(pick: Loadable<null>): void;
  addPickedModel(model: ListedModel): void;
  selectModel(id: string | null): void;
}

export const createModelsSlice: SliceCreator<ModelsSlice> = (set) => ({
  models: { list: idle(), picked: [], pick: idle(), selectedId: null },
  setModelList: (list) => set((s) => ({ models: { ...s.models, list } })),
  setModelPick: (pick) => set((s) => ({ models: { ...s.models, pick } })),
  addPickedModel: (model) =>
    set((s) => ({ models: { ...s.models, picked: [model, ...s.models.picked.filter((m) => m.id !== model.id)] } })),
  selectModel: (selectedId) => set((s) => ({ models: { ...s.models, selectedId } })),
});
