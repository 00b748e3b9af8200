// llama.cpp's names to transformers' for a PEFT export, and the Q/K row order of the llama
// family: our permute is convert_hf_to_gguf.py's reshape/swapaxes, and unpermute undoes it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HoneError } from '../../electron/common/errors.ts';
import { HF_ARCHITECTURES, hfModule } from '../../electron/services/export/hf-names.ts';
import { peftKey } from '../../electron/services/export/peft.ts';
import { permuteQK, unpermuteQK } from '../../electron/services/export/qk-permute.ts';
import { rng } from '../helpers/train-data.ts';

/**
 * convert_hf_to_gguf.py's LlamaModel.permute written as the numpy it is, on nested arrays:
 * w.reshape(n_head, 2, rows // n_head // 2, cols).swapaxes(1, 2).reshape(rows, cols)
 */
function numpyPermute(w: number[][], nHead: number): number[][] {
  const rows = w.length;
  const half = rows / nHead / 2;
  const r4 = Array.from({ length: nHead }, (_, h) => Array.from({ length: 2 }, (_, s) => Array.from({ length: half }, (_, j) => w[h * 2 * half + s * half + j])));
  const swapped = r4.map((head) => Array.from({ length: half }, (_, j) => Array.from({ length: 2 }, (_, s) => head[s][j])));
  return swapped.flat(2);
}

function matrix(rows: number, cols: number, seed: number): number[][] {
  const r = rng(seed);
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.fround(r() - 0.5)));
}

test('permuteQK is convert_hf_to_gguf.py permute; unpermuteQK inverts it (Q with all heads, K with the KV heads)', () => {
  for (const [rows, cols, heads] of [[64, 4, 8], [32, 4, 4], [64, 8, 4], [8, 3, 1], [128, 16, 2]]) {
    const w = matrix(rows, cols, rows + cols + heads);
    const flat = Float32Array.from(w.flat());
    const ours = permuteQK(flat, rows, cols, heads);
    assert.deepEqual(Array.from(ours), numpyPermute(w, heads).flat(), `${rows}x${cols} over ${heads} heads`);
    assert.deepEqual(Array.from(unpermuteQK(ours, rows, cols, heads)), Array.from(flat), 'unpermute(permute(w)) = w');
    assert.deepEqual(Array.from(permuteQK(unpermuteQK(flat, rows, cols, heads), rows, cols, heads)), Array.from(flat), 'permute(unpermute(w)) = w');
    if (heads > 1 || rows > 2) assert.notDeepEqual(Array.from(ours), Array.from(flat), 'it moves rows');
  }
});

test('the permutation reorders whole rows: row r of a head pairs the rotary halves', () => {
  // one head of 8 rows: transformers [0 1 2 3 | 4 5 6 7] -> llama.cpp [0 4 1 5 2 6 3 7]
  const w = Float32Array.from([0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(Array.from(permuteQK(w, 8, 1, 1)), [0, 4, 1, 5, 2, 6, 3, 7]);
  assert.deepEqual(Array.from(unpermuteQK(Float32Array.from([0, 4, 1, 5, 2, 6, 3, 7]), 8, 1, 1)), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.throws(() => unpermuteQK(new Float32Array(12), 6, 2, 2), /multiple of 2 x heads/);
});

test('GGUF names map to transformers modules and PEFT keys per architecture', () => {
  const q = hfModule('llama', 'blk.3.attn_q.weight', 'a.gguf');
  assert.deepEqual(q, { path: 'model.layers.3.self_attn.q_proj', leaf: 'q_proj', gguf: 'attn_q', layer: 3 });
  assert.equal(peftKey(q.path, 'A'), 'base_model.model.model.layers.3.self_attn.q_proj.lora_A.weight');
  assert.equal(hfModule('qwen2', 'blk.0.ffn_gate.weight', 'a.gguf').path, 'model.layers.0.mlp.gate_proj');
  assert.equal(hfModule('gemma2', 'blk.11.ffn_down.weight', 'a.gguf').path, 'model.layers.11.mlp.down_proj');
  assert.equal(hfModule('qwen3', 'blk.2.attn_output.weight', 'a.gguf').path, 'model.layers.2.self_attn.o_proj');
  assert.equal(hfModule('phi3', 'blk.1.attn_qkv.weight', 'a.gguf').path, 'model.layers.1.self_attn.qkv_proj');
  assert.equal(hfModule('phi3', 'blk.1.ffn_up.weight', 'a.gguf').path, 'model.layers.1.mlp.gate_up_proj');
  assert.deepEqual(hfModule('llama', 'output.weight', 'a.gguf'), { path: 'lm_head', leaf: 'lm_head', gguf: 'output', layer: null });
  assert.equal(HF_ARCHITECTURES.llama.permutedQK, true);
  for (const arch of ['qwen2', 'qwen3', 'gemma', 'gemma2', 'gemma3', 'phi3']) assert.equal(HF_ARCHITECTURES[arch].permutedQK, false, arch);
});

test('a fused llama.cpp tensor with no transformers module, an unknown tensor or architecture, is refused by name', () => {
  const refused = (arch: string, tensor: string, pattern: RegExp) =>
    assert.throws(() => hfModule(arch, tensor, '/x/adapter.gguf'), (e: HoneError) => e.code === 'unsupported' && e.message.startsWith('/x/adapter.gguf:') && pattern.test(e.message));
  refused('llama', 'blk.0.attn_qkv.weight', /'blk\.0\.attn_qkv\.weight'.*fused attn_qkv has no single Hugging Face module in llama/);
  refused('qwen2', 'blk.0.ffn_gate_up.weight', /fused ffn_gate_up/);
  refused('phi3', 'blk.0.attn_q.weight', /'blk\.0\.attn_q\.weight' has no Hugging Face equivalent in phi3/);
  refused('llama', 'token_embd.weight', /token_embd/);
  refused('olmo2', 'blk.0.attn_q.weight', /architecture 'olmo2' has no Hugging Face name mapping.*known: llama, qwen2/);
});
