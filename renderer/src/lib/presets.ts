/**
 * Starting points for the Settings view. Each sets only what it is about; everything else stays
 * at the engine's defaults (or the user's edits).
 */
import type { TrainConfig } from '../../../electron/common/engine-api.ts';

export type PresetName = 'quick' | 'balanced' | 'thorough';

export interface Preset {
  label: string;
  description: string;
  config: Partial<TrainConfig>;
}

export const PRESETS: Record<PresetName, Preset> = {
  quick: {
    label: 'Quick test',
    description: '30 steps at rank 4 on short contexts: checks data, template and memory in a minute.',
    config: { rank: 4, alpha: 0, targets: 'attn_q,attn_v', lr: 5e-4, schedule: 'constant', warmup: 0, steps: 30, epochs: 0, ctx: 256, batch: 1, ubatch: 0, evalSplit: 0.05, evalEvery: 10 },
  },
  balanced: {
    label: 'Balanced',
    description: 'One epoch at rank 8 on the attention projections, cosine schedule with warm-up.',
    config: { rank: 8, alpha: 0, targets: 'attn_q,attn_k,attn_v,attn_output', lr: 2e-4, schedule: 'cosine', warmup: 20, steps: 0, epochs: 1, ctx: 512, batch: 4, ubatch: 0, evalSplit: 0.05, evalEvery: 50 },
  },
  thorough: {
    label: 'Thorough',
    description: 'Three epochs at rank 16 on every projection and the FFN, long contexts.',
    config: { rank: 16, alpha: 0, targets: 'all', lr: 1e-4, schedule: 'cosine', warmup: 50, steps: 0, epochs: 3, ctx: 1024, batch: 8, ubatch: 0, evalSplit: 0.1, evalEvery: 100 },
  },
};

export const PRESET_NAMES = Object.keys(PRESETS) as PresetName[];

/** The modules a LoRA can target (the engine's HONE_TARGET_* names), in the order shown. */
export const TARGET_MODULES = ['attn_q', 'attn_k', 'attn_v', 'attn_output', 'ffn_gate', 'ffn_up', 'ffn_down', 'output'] as const;
export type TargetModule = (typeof TARGET_MODULES)[number];

/** `all` targets every projection and the FFN (not the output head: `all,output` adds it). */
const ALL: TargetModule[] = ['attn_q', 'attn_k', 'attn_v', 'attn_output', 'ffn_gate', 'ffn_up', 'ffn_down'];

export function parseTargets(list: string): TargetModule[] {
  const out = new Set<TargetModule>();
  for (const raw of list.split(',').map((t) => t.trim()).filter(Boolean)) {
    if (raw === 'all') ALL.forEach((t) => out.add(t));
    else if ((TARGET_MODULES as readonly string[]).includes(raw)) out.add(raw as TargetModule);
  }
  return TARGET_MODULES.filter((t) => out.has(t));
}

export function formatTargets(targets: readonly TargetModule[]): string {
  return TARGET_MODULES.filter((t) => targets.includes(t)).join(',');
}
