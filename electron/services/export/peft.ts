/**
 * The PEFT export: `adapter_model.safetensors` + `adapter_config.json`, as PEFT's
 * `save_pretrained` writes a LoRA, so `PeftModel.from_pretrained(base, folder)` loads it in
 * transformers. Tensor names are transformers' (hf-names.ts); A is [rank, in] and B [out, rank]
 * at F32, which is ggml's row-major layout of the GGUF tensors unchanged, except that B of q/k
 * is permuted back for the architectures convert_hf_to_gguf.py permutes (qk-permute.ts).
 * The scale is the same on both sides: alpha / rank.
 */
import { HoneError } from '../../common/errors.ts';
import { TensorReader, type AdapterFile } from './adapter-file.ts';
import { perLayer, type BaseModel } from './base-model.ts';
import { hfArchitecture, hfModule } from './hf-names.ts';
import { unpermuteQK } from './qk-permute.ts';
import type { SafeTensor } from './safetensors.ts';
import { encodeF32 } from './tensor-codecs.ts';

export const PEFT_WEIGHTS = 'adapter_model.safetensors';
export const PEFT_CONFIG = 'adapter_config.json';

/** PEFT's key of a LoRA tensor of module `path` (PEFT saves without the adapter's name). */
export function peftKey(path: string, which: 'A' | 'B'): string {
  return `base_model.model.${path}.lora_${which}.weight`;
}

export interface PeftTensors {
  tensors: SafeTensor[];
  /** transformers module leaf names, in first-seen order (target_modules). */
  targets: string[];
  /** Full module path -> rank, for modules whose rank is not the most common one. */
  rankPattern: Record<string, number>;
  rank: number;
}

/** The adapter's A/B under PEFT names, B of q/k un-permuted where the architecture needs it. */
export async function peftTensors(adapter: AdapterFile, model: BaseModel, onTensor?: (done: number, total: number, name: string) => void): Promise<PeftTensors> {
  const arch = hfArchitecture(adapter.architecture, adapter.path);
  const modules = adapter.pairs.map((p) => ({ pair: p, module: hfModule(adapter.architecture, p.base, adapter.path) }));
  const reader = await TensorReader.open(adapter.header);
  const tensors: SafeTensor[] = [];
  const targets: string[] = [];
  const rankCount = new Map<number, number>();
  try {
    let done = 0;
    for (const { pair, module } of modules) {
      onTensor?.(++done, modules.length, pair.base);
      const a = await reader.f32(pair.a);
      let b = await reader.f32(pair.b);
      const out = pair.b.dims[1];
      if (arch.permutedQK && (module.gguf === 'attn_q' || module.gguf === 'attn_k')) {
        const layer = module.layer!;
        const nHead = perLayer(model, 'attention.head_count', layer);
        const heads = module.gguf === 'attn_q' ? nHead : (perLayer(model, 'attention.head_count_kv', layer) ?? nHead);
        if (!heads) throw new HoneError('bad_format', `${model.path}: no ${model.architecture}.attention.head_count for layer ${layer}, needed to undo llama.cpp's Q/K row order`);
        if (out % (2 * heads) !== 0) {
          throw new HoneError('bad_format', `${adapter.path}: '${pair.base}' has ${out} rows, not a whole number of ${heads} heads of even size; cannot undo llama.cpp's Q/K row order`);
        }
        b = unpermuteQK(b, out, pair.rank, heads);
      }
      tensors.push({ name: peftKey(module.path, 'A'), dtype: 'F32', shape: [pair.rank, pair.a.dims[0]], data: encodeF32(a) });
      tensors.push({ name: peftKey(module.path, 'B'), dtype: 'F32', shape: [out, pair.rank], data: encodeF32(b) });
      if (!targets.includes(module.leaf)) targets.push(module.leaf);
      rankCount.set(pair.rank, (rankCount.get(pair.rank) ?? 0) + 1);
    }
  } finally {
    await reader.close();
  }
  const rank = [...rankCount].sort((x, y) => y[1] - x[1] || x[0] - y[0])[0][0];
  const rankPattern: Record<string, number> = {};
  for (const { pair, module } of modules) if (pair.rank !== rank) rankPattern[module.path] = pair.rank;
  return { tensors, targets, rankPattern, rank };
}

/** adapter_config.json: LoraConfig's fields, as PEFT writes them for a causal LM. */
export function peftConfig(t: PeftTensors, alpha: number, baseModel: string | null): Record<string, unknown> {
  return {
    peft_type: 'LORA',
    task_type: 'CAUSAL_LM',
    base_model_name_or_path: baseModel,
    revision: null,
    r: t.rank,
    lora_alpha: alpha,
    lora_dropout: 0.0,
    target_modules: t.targets,
    bias: 'none',
    fan_in_fan_out: false,
    inference_mode: true,
    init_lora_weights: true,
    modules_to_save: null,
    layers_to_transform: null,
    layers_pattern: null,
    rank_pattern: t.rankPattern,
    alpha_pattern: {},
    use_rslora: false,
    use_dora: false,
  };
}
