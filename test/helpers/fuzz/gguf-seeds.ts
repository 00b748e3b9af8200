/**
 * The GGUF files the fuzzer starts from: stories260K (a real model, as published) and a small
 * file test/helpers/gguf-writer.ts makes with what stories260K lacks (quantized tensors, a
 * non-default alignment, every value type). Headers only: the data is a size, written sparse.
 */
import { readFileSync } from 'node:fs';
import { fixturePath } from '../fixtures.ts';
import { ggufHeaderBytes, llamaTensors, typed } from '../gguf-writer.ts';
import { ggufLayout, type GgufLayout } from './gguf-fields.ts';

export interface GgufSeed {
  name: string;
  /** The header and its padding, up to the start of the data. */
  header: Buffer;
  /** The whole file's size. */
  fileSize: number;
  layout: GgufLayout;
}

export function ggufSeeds(): GgufSeed[] {
  const real = readFileSync(fixturePath('stories260K.gguf'));
  const realLayout = ggufLayout(real);
  const realData = Math.ceil(realLayout.headerEnd / 32) * 32;
  const made = ggufHeaderBytes({
    alignment: 64,
    kv: {
      'general.architecture': 'llama',
      'general.name': 'fuzz seed',
      'llama.block_count': 2,
      'llama.context_length': typed('u64', 4096n),
      'llama.rope.freq_base': typed('f64', 10000),
      'llama.attention.layer_norm_rms_epsilon': 1e-5,
      'general.quantized': true,
      'general.file_type': typed('i32', 15),
      'tokenizer.ggml.tokens': ['<s>', '</s>', 'a', 'b'],
      'tokenizer.ggml.scores': typed('f32', [0, 0, -1.5, -2.5]),
      'tokenizer.chat_template': '{% for m in messages %}{{ m.content }}{% endfor %}',
    },
    tensors: llamaTensors(2, 256, 512, 'Q4_K'),
  });
  return [
    { name: 'stories260K.gguf', header: real.subarray(0, realData), fileSize: real.length, layout: realLayout },
    { name: 'a gguf-writer file (Q4_K, alignment 64)', header: made.header, fileSize: made.header.length + made.dataBytes, layout: ggufLayout(made.header) },
  ];
}
