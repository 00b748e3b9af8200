/**
 * Rewrites an F32 GGUF whose experts keep gate and up apart (`ffn_gate_exps`, `ffn_up_exps`,
 * each [n_embd, n_ff_exp, n_expert]) into the fused layout some conversions write:
 * `ffn_gate_up_exps` [n_embd, 2 n_ff_exp, n_expert], each expert's gate rows then its up rows,
 * as llama.cpp's MoE graph splits it. Every other key and tensor is copied as it is, so the two
 * files hold the same model.
 */
import type { GgufTensorOut } from '../../electron/services/export/gguf-writer.ts';
import { copiedTensor, rewriteGguf } from './gguf-rewrite.ts';

const F32 = 0;

/** Returns the layers whose experts were fused. */
export async function fuseGateUpExperts(src: string, dst: string): Promise<number[]> {
  const fused: number[] = [];
  await rewriteGguf(src, dst, {
    tensors: (all, bytesOf) => {
      const byName = new Map(all.map((t) => [t.name, t]));
      const out: GgufTensorOut[] = [];
      for (const t of all) {
        const m = /^blk\.(\d+)\.ffn_(gate|up)_exps\.weight$/.exec(t.name);
        if (!m) {
          out.push(copiedTensor(t, bytesOf));
          continue;
        }
        if (m[2] === 'up') continue; // written with its gate
        const up = byName.get(`blk.${m[1]}.ffn_up_exps.weight`);
        if (!up || t.type !== F32 || up.type !== F32) throw new Error(`${src}: layer ${m[1]} has no F32 pair of gate and up experts`);
        const [embd, ff, experts] = t.dims;
        const expertBytes = embd * ff * 4;
        fused.push(Number(m[1]));
        out.push({
          name: `blk.${m[1]}.ffn_gate_up_exps.weight`, dims: [embd, 2 * ff, experts], type: F32, bytes: 2 * t.bytes,
          data: () => {
            const gate = bytesOf(t), upBytes = bytesOf(up);
            const joined = Buffer.alloc(2 * t.bytes);
            for (let e = 0; e < experts; e++) {
              gate.copy(joined, 2 * e * expertBytes, e * expertBytes, (e + 1) * expertBytes);
              upBytes.copy(joined, (2 * e + 1) * expertBytes, e * expertBytes, (e + 1) * expertBytes);
            }
            return joined;
          },
        });
      }
      return out;
    },
  });
  return fused;
}
