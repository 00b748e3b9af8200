/**
 * The engine's capabilities as the contract names them: hone_capabilities_json (snake_case,
 * the engine's spelling) read into EngineCapabilities. The defaults are the engine's; only
 * options the engine has no notion of (paths, the chat template override) start empty here.
 */
import type { TrainConfig } from '../common/engine-api.ts';
import type { BackendInfo, EngineCapabilities } from '../common/runs.ts';
import { OPTION_KINDS } from '../common/settings-schema.ts';
import type { HoneAddon } from './binding.ts';

const camel = (k: string) => k.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Options that are not engine settings: what to train on and where to write. */
const UNSET: Pick<TrainConfig, 'model' | 'data' | 'out' | 'evalData' | 'chatTemplate' | 'profile'> = {
  model: '',
  data: [],
  out: '',
  evalData: [],
  chatTemplate: '',
  profile: false,
};

interface RawCapabilities {
  backends: Array<{ name: string; kind: 'cpu' | 'gpu'; request: BackendInfo['request']; description: string; free_bytes: number; total_bytes: number }>;
  trainable_architectures: string[];
  defaults: Record<string, unknown>;
}

export function readCapabilities(addon: HoneAddon): EngineCapabilities {
  const raw = JSON.parse(addon.capabilities()) as RawCapabilities;
  const defaults: Record<string, unknown> = { ...UNSET };
  for (const [k, v] of Object.entries(raw.defaults)) defaults[camel(k)] = v;
  const missing = Object.keys(OPTION_KINDS).filter((k) => !(k in defaults));
  if (missing.length) throw new Error(`the engine reports no default for ${missing.join(', ')}`); // a build mismatch
  const backends = raw.backends.map((b) => ({
    name: b.name, kind: b.kind, request: b.request, description: b.description, freeBytes: b.free_bytes, totalBytes: b.total_bytes,
  }));
  // GPUs first (the order `auto` tries them), the CPU last
  backends.sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'gpu' ? -1 : 1));
  return { backends, trainableArchitectures: raw.trainable_architectures, defaults: defaults as unknown as TrainConfig };
}
