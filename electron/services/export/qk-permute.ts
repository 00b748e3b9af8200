/**
 * The row order convert_hf_to_gguf.py gives Q and K of the llama family (LlamaModel.permute):
 * within each head of `rows / heads` rows, transformers keeps the two rotary halves apart
 * (rotate_half) and llama.cpp interleaves them as pairs. With head size h = 2·half, the GGUF row
 * `head·h + 2j + s` is the transformers row `head·h + s·half + j` (s ∈ {0, 1}, j < half):
 *
 *   weights.reshape(heads, 2, half, cols).swapaxes(1, 2).reshape(rows, cols)
 *
 * A LoRA adapts W = B·A, so the rows of W are the rows of B: B of q/k is reordered the same way
 * (K with the KV head count), A is not.
 */

function check(rows: number, heads: number): number {
  if (!Number.isInteger(heads) || heads <= 0 || rows % (2 * heads) !== 0) {
    throw new Error(`cannot permute ${rows} rows over ${heads} heads (rows must be a multiple of 2 x heads)`);
  }
  return rows / heads / 2;
}

/** transformers' row `r` of a head-split matrix -> its row in the GGUF. */
function ggufRowOf(r: number, half: number): number {
  const h = 2 * half;
  const head = Math.floor(r / h);
  const within = r % h;
  const s = Math.floor(within / half);
  const j = within % half;
  return head * h + 2 * j + s;
}

/** Reorders the rows of a row-major `rows x cols` matrix: out[r] = data[from(r)]. */
function reorder(data: Float32Array, rows: number, cols: number, from: (r: number) => number): Float32Array {
  if (data.length !== rows * cols) throw new Error(`a ${rows} x ${cols} matrix has ${rows * cols} values, got ${data.length}`);
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) out.set(data.subarray(from(r) * cols, from(r) * cols + cols), r * cols);
  return out;
}

/** convert_hf_to_gguf.py's permute: transformers row order -> llama.cpp's. */
export function permuteQK(data: Float32Array, rows: number, cols: number, heads: number): Float32Array {
  const half = check(rows, heads);
  const inverse = new Int32Array(rows);
  for (let r = 0; r < rows; r++) inverse[ggufRowOf(r, half)] = r;
  return reorder(data, rows, cols, (g) => inverse[g]);
}

/** The inverse: llama.cpp's row order -> transformers'. */
export function unpermuteQK(data: Float32Array, rows: number, cols: number, heads: number): Float32Array {
  const half = check(rows, heads);
  return reorder(data, rows, cols, (r) => ggufRowOf(r, half));
}
