/**
 * From llama.cpp's tensor names to Hugging Face transformers' module names, per architecture
 * (the inverse of gguf-py's tensor_mapping.py for the modules a LoRA adapts), and which
 * architectures convert_hf_to_gguf.py stores with Q/K rows permuted (its LlamaModel.permute,
 * `undo_permute`). One table: the PEFT export, the Axolotl config and docs/export.md read it.
 */
import { HoneError } from '../../common/errors.ts';

export interface HfArchitecture {
  /** Where the decoder layers are in the transformers model (`model.layers.{i}`). */
  layers: string;
  /** llama.cpp module (the name between `blk.N.` and `.weight`) -> transformers module inside a layer. */
  modules: Record<string, string>;
  /** convert_hf_to_gguf.py permutes the rows of Q and K (so a LoRA B of q/k must be permuted back). */
  permutedQK: boolean;
  /** What the output head is called (llama.cpp's `output.weight`). */
  output: string;
}

const LLAMA_MODULES = {
  attn_q: 'self_attn.q_proj',
  attn_k: 'self_attn.k_proj',
  attn_v: 'self_attn.v_proj',
  attn_output: 'self_attn.o_proj',
  ffn_gate: 'mlp.gate_proj',
  ffn_up: 'mlp.up_proj',
  ffn_down: 'mlp.down_proj',
};

const plain = (permutedQK: boolean): HfArchitecture => ({ layers: 'model.layers', modules: LLAMA_MODULES, permutedQK, output: 'lm_head' });

/**
 * GGUF `general.architecture` -> transformers layout. `llama` covers Llama 1-3 and Mistral 7B
 * (convert_hf_to_gguf.py writes MistralForCausalLM as llama); Phi-3 keeps its fused
 * qkv_proj and gate_up_proj, which llama.cpp stores as attn_qkv and ffn_up.
 */
export const HF_ARCHITECTURES: Record<string, HfArchitecture> = {
  llama: plain(true),
  qwen2: plain(false),
  qwen3: plain(false),
  gemma: plain(false),
  gemma2: plain(false),
  gemma3: plain(false),
  phi3: {
    layers: 'model.layers',
    modules: { attn_qkv: 'self_attn.qkv_proj', attn_output: 'self_attn.o_proj', ffn_up: 'mlp.gate_up_proj', ffn_down: 'mlp.down_proj' },
    permutedQK: false,
    output: 'lm_head',
  },
};

/** Where one adapted GGUF tensor is in transformers. */
export interface HfModule {
  /** Full module path (`model.layers.3.self_attn.q_proj`, `lm_head`). */
  path: string;
  /** Its last name (`q_proj`): what PEFT's target_modules lists. */
  leaf: string;
  /** llama.cpp's module name (`attn_q`, `output`). */
  gguf: string;
  layer: number | null;
}

export function hfArchitecture(arch: string, file: string): HfArchitecture {
  const a = HF_ARCHITECTURES[arch];
  if (!a) {
    throw new HoneError('unsupported', `${file}: architecture '${arch}' has no Hugging Face name mapping for a PEFT export yet (known: ${Object.keys(HF_ARCHITECTURES).join(', ')}); export gguf or merged instead`, { architecture: arch });
  }
  return a;
}

/** The transformers module a GGUF base tensor name (`blk.3.attn_q.weight`) is, or a refusal naming it. */
export function hfModule(arch: string, tensor: string, file: string): HfModule {
  const a = hfArchitecture(arch, file);
  if (tensor === 'output.weight') return { path: a.output, leaf: a.output.split('.').at(-1)!, gguf: 'output', layer: null };
  const m = /^blk\.(\d+)\.([a-z0-9_]+)\.weight$/.exec(tensor);
  const module = m ? a.modules[m[2]] : undefined;
  if (!m || !module) {
    const what = m?.[2];
    const fused = what && /qkv|gate_up/.test(what) ? ` (llama.cpp's fused ${what} has no single Hugging Face module in ${arch} models)` : '';
    throw new HoneError('unsupported', `${file}: tensor '${tensor}' has no Hugging Face equivalent in ${arch} models${fused}; a PEFT export cannot include it`, { tensor, architecture: arch });
  }
  const path = `${a.layers}.${m[1]}.${module}`;
  return { path, leaf: module.split('.').at(-1)!, gguf: m[2], layer: Number(m[1]) };
}
