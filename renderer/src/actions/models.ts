/** Model actions: list the machine's models, open one by path, add a folder, choose one. */
import type { AppEnv } from '../app/env.ts';
import { failed, loading, ready } from '../store/loadable.ts';

export async function loadModels(env: AppEnv): Promise<void> {
  const { setModelList } = env.store.getState();
  setModelList(loading(env.store.getState().models.list));
  try {
    setModelList(ready(await env.service.models.list()));
  } catch (e) {
    setModelList(failed(e, env.store.getState().models.list));
  }
}

/** A `.gguf` the user typed or dropped: described from its header and chosen when it reads. */
export async function openModelPath(env: AppEnv, path: string): Promise<void> {
  const s = env.store.getState();
  s.setModelPick(loading());
  try {
    const model = await env.service.models.inspect(path.trim());
    s.addPickedModel(model);
    s.setModelPick(ready(null));
    if (!model.error) s.selectModel(model.id);
  } catch (e) {
    s.setModelPick(failed(e));
  }
}

export async function addModelFolder(env: AppEnv, path: string): Promise<void> {
  const s = env.store.getState();
  s.setModelPick(loading());
  try {
    s.setModelList(ready(await env.service.models.addFolder(path.trim())));
    s.setModelPick(ready(null));
  } catch (e) {
    s.setModelPick(failed(e));
  }
}
