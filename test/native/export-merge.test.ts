/**
 * Export, engine side (issue 18): the adapter's hone.* block; an adapter refused by a base it
 * was not made for, naming what does not fit; and the merged model (base + s·B·A as a new GGUF)
 * — its llama.cpp logits without an adapter equal the base's with it, at F32 within 1e-5
 * (relative to the largest logit) and, re-quantized, within the base's own quantization error;
 * untouched tensors byte for byte; refusals and cancels leave nothing under the output name.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import type { EngineEvent } from '../../electron/common/engine-api.ts';
import { loadAddon } from '../../electron/engine-host/binding.ts';
import { EngineHost } from '../../electron/services/engine/client.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { readGguf, TYPE_NAMES, type GgufFile } from '../helpers/gguf.ts';
import { bin, honeTrain, makeModel, run, stepLosses, tempDir, vocab, type RunResult } from '../helpers/native.ts';

const TEXT =
  'Once upon a time, there was a little dog named Max. Max loved to run in the park with his red ball. ' +
  'One day, Max saw a big cat under a tree. The cat was sad because it could not find its home.';
const PROMPT = 'One day, Max saw a big cat under a tree. The cat was sad because it could not find its home.';

// The merged F32 model computes (W + s·B·A)·x where llama.cpp computes W·x + s·B·(A·x): the
// same sums in another order. Measured: 5e-7 of the largest logit on stories260K.
const F32_MAX_REL = 1e-5;

function train(model: string, dir: string, extra: string[] = []): { adapter: string; r: RunResult } {
  mkdirSync(dir, { recursive: true });
  const data = join(dir, 'text.txt');
  if (!existsSync(data)) writeFileSync(data, TEXT.repeat(3));
  const out = join(dir, `run-${basename(model, '.gguf')}`);
  const r = honeTrain(['--model', model, '--data', data, '--out', out, '--steps', '6', '--ctx', '32', '--lr', '1e-2', '--rank', '4',
    '--alpha', '8', '--targets', 'all', '--json', ...extra]);
  assert.equal(r.code, 0, r.stderr);
  return { adapter: join(out, 'adapter.gguf'), r };
}

function merge(args: string[]): RunResult {
  return honeTrain(['merge', ...args, '--json']);
}

interface Diff { max_abs_diff: number; max_rel_diff: number; rms_diff: number; max_abs_logit: number }

function compare(a: { model: string; adapter?: string }, b: { model: string; adapter?: string }, text = PROMPT): Diff {
  const args = ['compare-logits', '--model', a.model, '--model-b', b.model, '--text', text, '--json'];
  if (a.adapter) args.push('--adapter', a.adapter);
  if (b.adapter) args.push('--adapter-b', b.adapter);
  const r = honeTrain(args);
  assert.equal(r.code, 0, r.stderr);
  return r.events.find((e) => e.type === 'compare-logits') as Diff;
}

/** 64-bit FNV-1a of the file's header and first MiB of data, then its last MiB: hone.base.fingerprint, written again here. */
function fingerprint(path: string, g: GgufFile): string {
  const buf = readFileSync(path);
  const mib = 1 << 20;
  let h = 0xcbf29ce484222325n;
  const mix = (from: number, to: number) => {
    for (let i = from; i < to; i++) h = ((h ^ BigInt(buf[i])) * 0x100000001b3n) & 0xffffffffffffffffn;
  };
  mix(0, Math.min(buf.length, g.dataOffset + mib));
  if (buf.length > g.dataOffset + mib) mix(Math.max(g.dataOffset + mib, buf.length - mib), buf.length);
  return h.toString(16).padStart(16, '0');
}

function typeName(g: GgufFile, name: string): string {
  return TYPE_NAMES[g.types.get(name)!] ?? String(g.types.get(name));
}

/** Every tensor of the base: merged ones (those the adapter names) in `expectType(name)`, the rest byte for byte. */
function checkTensors(base: GgufFile, merged: GgufFile, adapter: GgufFile, expectType: (name: string, baseType: string) => string) {
  assert.deepEqual([...merged.types.keys()], [...base.types.keys()], 'the same tensors in the same order');
  const adapted = new Set([...adapter.types.keys()].filter((n) => n.endsWith('.lora_a')).map((n) => n.slice(0, -7)));
  assert.ok(adapted.size > 0);
  let copied = 0;
  for (const name of base.types.keys()) {
    assert.deepEqual(merged.shapes.get(name), base.shapes.get(name), name);
    if (adapted.has(name)) {
      assert.equal(typeName(merged, name), expectType(name, typeName(base, name)), `${name}'s type`);
      assert.ok(!merged.raw.get(name)!.equals(base.raw.get(name)!), `${name} carries the LoRA`);
    } else {
      assert.equal(merged.types.get(name), base.types.get(name), name);
      assert.ok(merged.raw.get(name)!.equals(base.raw.get(name)!), `${name} is copied byte for byte`);
      copied++;
    }
  }
  return { merged: adapted.size, copied };
}

function checkMetadata(base: GgufFile, merged: GgufFile, adapterPath: string, adapter: GgufFile) {
  for (const [k, v] of base.kv) assert.deepEqual(merged.kv.get(k), v, `metadata key ${k} kept`);
  assert.equal(merged.kv.get('hone.merged.adapter_file'), basename(adapterPath));
  assert.equal(merged.kv.get('hone.merged.adapter_fingerprint'), fingerprint(adapterPath, adapter));
  assert.equal(merged.kv.get('hone.merged.alpha'), adapter.kv.get('adapter.lora.alpha'));
  assert.equal(merged.kv.get('hone.merged.adapter.training.steps'), adapter.kv.get('hone.training.steps'));
  assert.equal(merged.kv.get('hone.merged.adapter.base.fingerprint'), adapter.kv.get('hone.base.fingerprint'));
}

describe('the adapter carries what made it', () => {
  test('hone.* keys: base file and fingerprint, config, steps, last losses, data digests; llama.cpp still loads it', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir();
    const { adapter, r } = train(model, dir, ['--eval-split', '0.3']);
    const g = readGguf(adapter);
    const base = readGguf(model);
    assert.equal(g.kv.get('hone.format_version'), 1);
    assert.equal(g.kv.get('hone.base.file'), 'stories260K.gguf');
    assert.equal(g.kv.get('hone.base.size'), readFileSync(model).length);
    assert.equal(g.kv.get('hone.base.fingerprint'), fingerprint(model, base));
    assert.equal(g.kv.get('hone.lora.rank'), 4);
    assert.equal(g.kv.get('hone.lora.targets'), 'attn_q,attn_k,attn_v,attn_output,ffn_gate,ffn_up,ffn_down');
    const config = JSON.parse(g.kv.get('hone.training.config') as string);
    assert.equal(config.steps, 6);
    assert.equal(config.model, model);
    assert.equal(g.kv.get('hone.training.steps'), 6);
    const losses = stepLosses(r);
    assert.ok(Math.abs((g.kv.get('hone.training.train_loss') as number) - losses.at(-1)!) < 1e-6);
    const evals = r.events.filter((e) => e.type === 'eval');
    assert.ok(evals.length > 0);
    assert.ok(Math.abs((g.kv.get('hone.training.eval_loss') as number) - evals.at(-1)!.eval_loss) < 1e-6);
    const start = r.events.find((e) => e.type === 'start')!;
    assert.equal(g.kv.get('hone.dataset.train_sequences'), start.sequences);
    assert.equal(g.kv.get('hone.dataset.eval_sequences'), start.eval_sequences);
    assert.match(g.kv.get('hone.dataset.train_digest') as string, /^[0-9a-f]{16}$/);
    assert.notEqual(g.kv.get('hone.dataset.train_digest'), g.kv.get('hone.dataset.eval_digest'));

    // other data, another digest; the same data, the same
    const again = train(model, join(dir, 'again'), ['--eval-split', '0.3']);
    assert.equal(readGguf(again.adapter).kv.get('hone.dataset.train_digest'), g.kv.get('hone.dataset.train_digest'));
    const other = join(dir, 'other');
    writeFileSync(join(dir, 'other.txt'), TEXT.split('').reverse().join('').repeat(3));
    const o = honeTrain(['--model', model, '--data', join(dir, 'other.txt'), '--out', other, '--steps', '2', '--ctx', '32', '--eval-split', '0.3', '--json']);
    assert.equal(o.code, 0, o.stderr);
    assert.notEqual(readGguf(join(other, 'adapter.gguf')).kv.get('hone.dataset.train_digest'), g.kv.get('hone.dataset.train_digest'));

    // the checkpoint's adapter carries the block too; llama.cpp loads the file (its logits equal ours)
    const ck = readGguf(join(dirname(adapter), 'checkpoints', '6', 'adapter.gguf'));
    assert.equal(ck.kv.get('hone.training.steps'), 6);
    const check = honeTrain(['check-forward', '--model', model, '--adapter', adapter, '--text', PROMPT, '--json']);
    assert.equal(check.code, 0, check.stderr);
    assert.ok(check.events.find((e) => e.type === 'check-forward')!.max_rel_diff <= 1e-5);
  });

  test('the addon path (the app) records the run config it was given', async (t) => {
    const path = requireFixture(t, 'stories260K.gguf');
    if (!path) return;
    const hone = loadAddon();
    const model = await hone.Model.load({ path, backend: 'cpu', threads: 2 });
    const adapter = hone.Adapter.create(model, { rank: 4, alpha: 8, targets: 'attn_q,attn_v' });
    const runConfig = JSON.stringify({ model: path, steps: 3, note: 'from the app' });
    const trainer = await hone.Trainer.create(model, adapter, { nCtx: 32, nSteps: 3, lr: 1e-2, runConfig });
    const last: number[] = [];
    await trainer.train({ train: [{ tokens: model.tokenize(TEXT, true) }] }, (e) => { if (e.type === 'step') last.push(e.loss); });
    const out = join(tempDir(), 'adapter.gguf');
    await adapter.save(out);
    const g = readGguf(out);
    assert.equal(g.kv.get('hone.training.config'), runConfig);
    assert.equal(g.kv.get('hone.training.steps'), 3);
    assert.ok(Math.abs((g.kv.get('hone.training.train_loss') as number) - last.at(-1)!) < 1e-6);
    assert.equal(g.kv.get('hone.training.eval_loss'), undefined, 'no held-out data, no eval loss');
    assert.equal(g.kv.get('hone.dataset.train_sequences'), 1);
    // loaded and saved again, the block stays
    const loaded = await hone.Adapter.load(model, out);
    const out2 = join(dirname(out), 'again.gguf');
    await loaded.save(out2);
    assert.equal(readGguf(out2).kv.get('hone.training.config'), runConfig);
    for (const d of [trainer, adapter, loaded, model]) d.dispose();
  });
});

describe('an adapter made for another base is refused, naming what does not fit', () => {
  const dir = tempDir();
  const spec = { embd: 256, layers: 2, heads: 4, kvHeads: 2, ff: 512, type: 'f32' as const, vocab: 'llama-spm' as const };

  test('other shapes: each tensor with its shape and the one the base needs', async (t) => {
    const small = requireFixture(t, 'stories260K.gguf');
    if (!small) return;
    const big = makeModel(dir, { arch: 'llama', ...spec });
    const { adapter } = train(small, dir);
    const r = honeTrain(['check-forward', '--model', big, '--adapter', adapter, '--text', PROMPT, '--json']);
    assert.equal(r.code, 1);
    const e = r.events.find((x) => x.type === 'error')!;
    assert.match(e.message, /this adapter does not fit the model/);
    assert.match(e.message, /'blk\.0\.attn_q\.weight': lora_a \[64, 4\] and lora_b \[4, 64\] do not fit the base's \[256, 256\] \(expected \[256, 4\] and \[4, 256\]\)/);
    assert.match(e.message, /and \d+ more/, 'a long list is cut short, saying how much is left');
    // the addon gives the engine's code
    const hone = loadAddon();
    const m = await hone.Model.load({ path: big, backend: 'cpu', threads: 2 });
    await assert.rejects(hone.Adapter.load(m, adapter), (x: { code: string; message: string }) =>
      x.code === 'adapter_mismatch' && /lora_a \[64, 4\]/.test(x.message));
    m.dispose();
  });

  test('another architecture of the same shapes: the architecture is named', async () => {
    const llama = makeModel(dir, { arch: 'llama', ...spec });
    const qwen2 = makeModel(dir, { arch: 'qwen2', ...spec, vocab: 'qwen2' });
    const { adapter } = train(llama, join(dir, 'llama'));
    const hone = loadAddon();
    const m = await hone.Model.load({ path: qwen2, backend: 'cpu', threads: 2 });
    await assert.rejects(hone.Adapter.load(m, adapter), (x: { code: string; message: string }) =>
      x.code === 'adapter_mismatch' && /architecture: the adapter is for 'llama', the base is 'qwen2'/.test(x.message));
    m.dispose();
    const out = join(dir, 'merged.gguf');
    const r = merge(['--model', qwen2, '--adapter', adapter, '--out', out]);
    assert.equal(r.code, 1);
    const e = r.events.find((x) => x.type === 'error')!;
    assert.equal(e.code, 'adapter_mismatch');
    assert.match(e.message, /architecture: the adapter is for 'llama', the base is 'qwen2'/);
    assert.ok(!existsSync(out) && !existsSync(`${out}.tmp`), 'a refused merge writes nothing');
  });
});

describe('merge: base + s·B·A as a new GGUF', () => {
  test('stories260K (F32): merged logits equal base + adapter; untouched tensors byte for byte; metadata kept', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir();
    const { adapter } = train(model, dir);
    const out = join(dir, 'merged.gguf');
    const r = merge(['--model', model, '--adapter', adapter, '--out', out]);
    assert.equal(r.code, 0, r.stderr);
    const done = r.events.find((e) => e.type === 'merged')!;
    const progress = r.events.filter((e) => e.type === 'merge-progress');
    const base = readGguf(model), merged = readGguf(out), ad = readGguf(adapter);
    assert.deepEqual(progress.map((e) => e.done), Array.from({ length: base.types.size }, (_, i) => i + 1));
    assert.ok(progress.every((e) => e.total === base.types.size));
    assert.equal(done.bytes, readFileSync(out).length);
    const counts = checkTensors(base, merged, ad, (_n, baseType) => baseType);
    assert.equal(done.merged, counts.merged);
    assert.equal(done.copied, counts.copied);
    checkMetadata(base, merged, adapter, ad);
    assert.equal(merged.kv.get('hone.merged.type'), 'base');
    assert.equal(merged.kv.get('hone.merged.base_fingerprint'), fingerprint(model, base));

    const d = compare({ model, adapter }, { model: out });
    assert.ok(d.max_rel_diff <= F32_MAX_REL, `merged vs base + adapter: ${d.max_rel_diff} of the largest logit`);
    const effect = compare({ model, adapter }, { model });
    assert.ok(effect.max_rel_diff > 1000 * F32_MAX_REL, `the adapter changes the logits clearly (${effect.max_rel_diff})`);
    // scale 0.5: half the adapter, as llama.cpp's adapter scale
    const half = join(dir, 'half.gguf');
    assert.equal(merge(['--model', model, '--adapter', adapter, '--out', half, '--scale', '0.5']).code, 0);
    assert.ok(compare({ model: half }, { model: out }).max_rel_diff > 100 * F32_MAX_REL);
    assert.equal(readGguf(half).kv.get('hone.merged.scale'), 0.5);
  });

  test('--type q8_0 on an F32 base: merged tensors in Q8_0, a row Q8_0 cannot hold in F16 (and said), the rest copied', (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir();
    const { adapter } = train(model, dir);
    const out = join(dir, 'merged-q8.gguf');
    const r = merge(['--model', model, '--adapter', adapter, '--out', out, '--type', 'q8_0']);
    assert.equal(r.code, 0, r.stderr);
    const base = readGguf(model), merged = readGguf(out);
    // stories260K's ffn_down rows hold 172 values: not a multiple of Q8_0's 32
    checkTensors(base, merged, readGguf(adapter), (name) => (name.includes('ffn_down') ? 'F16' : 'Q8_0'));
    const notes = r.events.filter((e) => e.type === 'note').map((e) => e.message as string);
    assert.equal(notes.length, 5);
    assert.ok(notes.every((n) => /blk\.\d\.ffn_down\.weight: 172 columns are not a multiple of q8_0's block of 32: written as f16/.test(n)), notes.join('\n'));
    assert.equal(r.events.find((e) => e.type === 'merged')!.fallbacks, 5);
    assert.equal(merged.kv.get('hone.merged.type'), 'q8_0');
  });

  // A random llama made at F32 and quantized by llama-quantize: the LoRA trains on the quantized
  // file; the merged file (re-quantized to each tensor's own type) must stay within the base's own
  // quantization error of base + adapter. Both errors are measured on this build, so the bound
  // holds on any instruction set. Measured: 0.5x (Q8_0) and 0.3x (Q4_K_M) of the base's error.
  for (const q of ['Q8_0', 'Q4_K_M']) {
    test(`a made llama quantized to ${q}: merged logits within the base's quantization error of base + adapter`, () => {
      const dir = tempDir();
      const f32 = makeModel(dir, { arch: 'llama', embd: 256, layers: 2, heads: 4, kvHeads: 2, ff: 512, type: 'f32', vocab: 'llama-spm' });
      const quant = join(dir, `llama-${q}.gguf`);
      const qr = run(bin('llama-quantize'), [f32, quant, q]);
      assert.equal(qr.code, 0, qr.stderr);
      const { adapter } = train(quant, dir);
      const out = join(dir, `merged-${q}.gguf`);
      const r = merge(['--model', quant, '--adapter', adapter, '--out', out]);
      assert.equal(r.code, 0, r.stderr);
      const base = readGguf(quant), merged = readGguf(out);
      checkTensors(base, merged, readGguf(adapter), (_n, baseType) => baseType);
      if (q === 'Q4_K_M') assert.ok(new Set([...merged.types.values()].map((x) => TYPE_NAMES[x])).has('Q6_K'), 'Q4_K_M keeps its Q6_K tensors');

      const mergeErr = compare({ model: quant, adapter }, { model: out });
      const quantErr = compare({ model: f32 }, { model: quant });
      const effect = compare({ model: quant, adapter }, { model: quant });
      assert.ok(mergeErr.max_abs_diff <= quantErr.max_abs_diff, `max |diff| ${mergeErr.max_abs_diff} vs the base's own ${quantErr.max_abs_diff}`);
      assert.ok(mergeErr.rms_diff <= quantErr.rms_diff, `rms ${mergeErr.rms_diff} vs the base's own ${quantErr.rms_diff}`);
      assert.ok(effect.rms_diff > 10 * mergeErr.rms_diff, `the adapter's own effect (${effect.rms_diff}) dwarfs the merge's error`);
    });
  }
});

describe('merge: --type on an F32 base', () => {
  // Merged tensors quantized to the type asked (q4_k_m -> Q4_K, q5_k_m -> Q5_K), the rest left
  // F32: within llama-quantize's own Q4_K_M error of the F32 base + adapter, Q5_K closer than Q4_K.
  test('q4_k_m and q5_k_m: merged tensors in Q4_K and Q5_K, logits within the quantization error', () => {
    const dir = tempDir();
    const f32 = makeModel(dir, { arch: 'llama', embd: 256, layers: 2, heads: 4, kvHeads: 2, ff: 512, type: 'f32', vocab: 'llama-spm' });
    const q4km = join(dir, 'llama-q4_k_m.gguf');
    assert.equal(run(bin('llama-quantize'), [f32, q4km, 'Q4_K_M']).code, 0);
    const { adapter } = train(f32, dir);
    const base = readGguf(f32), ad = readGguf(adapter);
    const quantErr = compare({ model: f32 }, { model: q4km });
    const errs: Record<string, Diff> = {};
    for (const [type, name] of [['q4_k_m', 'Q4_K'], ['q5_k_m', 'Q5_K']] as const) {
      const out = join(dir, `merged-${type}.gguf`);
      const r = merge(['--model', f32, '--adapter', adapter, '--out', out, '--type', type]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.events.filter((e) => e.type === 'note').length, 0, 'every row length fits the type');
      checkTensors(base, readGguf(out), ad, () => name);
      errs[type] = compare({ model: f32, adapter }, { model: out });
      assert.ok(errs[type].rms_diff <= quantErr.rms_diff, `${type}: rms ${errs[type].rms_diff} vs Q4_K_M's own ${quantErr.rms_diff}`);
    }
    assert.ok(errs.q5_k_m.rms_diff < errs.q4_k_m.rms_diff, `Q5_K (${errs.q5_k_m.rms_diff}) is closer than Q4_K (${errs.q4_k_m.rms_diff})`);
  });
});

describe('merge: fused tensors', () => {
  // llama.cpp applies a LoRA per tensor: on a fused Q/K/V (Qwen) one pair spans all three, on a
  // fused gate/up (ChatGLM: ffn_up of 2 * n_ff rows) one pair spans both; the merge adds B·A to
  // the whole tensor. Models made from llama.cpp's loader (probe-arch).
  for (const [arch, fused, rows] of [['qwen', 'blk.0.attn_qkv.weight', 192], ['chatglm', 'blk.0.ffn_up.weight', 256]] as const) {
    test(`${arch}: a LoRA on ${fused.slice(6)} merges to what llama.cpp applies`, () => {
      const dir = tempDir();
      const model = join(dir, `${arch}.gguf`);
      const p = honeTrain(['probe-arch', '--arch', arch, '--vocab-from', vocab('llama-spm'), '--out', model, '--json']);
      assert.equal(p.code, 0, p.stderr);
      const { adapter } = train(model, dir);
      const ad = readGguf(adapter);
      assert.deepEqual(ad.shapes.get(`${fused}.lora_b`), [4, rows], `one pair on the whole fused ${fused}`);
      const out = join(dir, 'merged.gguf');
      assert.equal(merge(['--model', model, '--adapter', adapter, '--out', out]).code, 0);
      checkTensors(readGguf(model), readGguf(out), ad, (_n, baseType) => baseType);
      const d = compare({ model, adapter }, { model: out });
      assert.ok(d.max_rel_diff <= F32_MAX_REL, `merged vs base + adapter: ${d.max_rel_diff}`);
      assert.ok(compare({ model, adapter }, { model }).max_rel_diff > 1000 * F32_MAX_REL, 'the adapter changes the logits clearly');
    });
  }
});

describe('merge: a deeper model', () => {
  // 24 layers of small tensors: what a 7B model looks like to the merge, at 160 MB.
  const dir = tempDir();
  let made: { model: string; adapter: string } | null = null;
  const deep = () => {
    if (made) return made;
    const model = makeModel(dir, { arch: 'llama', embd: 256, layers: 24, heads: 4, kvHeads: 2, ff: 1024, type: 'f32', vocab: 'llama-spm' });
    const data = join(dir, 'text.txt');
    writeFileSync(data, TEXT);
    const r = honeTrain(['--model', model, '--data', data, '--out', join(dir, 'run'), '--steps', '1', '--ctx', '16', '--rank', '4', '--json']);
    assert.equal(r.code, 0, r.stderr);
    return (made = { model, adapter: join(dir, 'run', 'adapter.gguf') });
  };

  // Measured: a peak of 32 MiB (the binary, the adapter, a 16 MiB copy buffer, one tensor at a time).
  test('a merge holds a few tensors, not the model: peak memory under 40% of the file', () => {
    const { model, adapter } = deep();
    const out = join(dir, 'merged.gguf');
    const m = merge(['--model', model, '--adapter', adapter, '--out', out, '--threads', '2']);
    assert.equal(m.code, 0, m.stderr);
    const done = m.events.find((e) => e.type === 'merged')!;
    assert.equal(done.merged, 24 * 7);
    const fileMiB = readFileSync(model).length / (1 << 20);
    assert.ok(done.peak_rss_mib > 0 && done.peak_rss_mib < 0.4 * fileMiB, `peak ${done.peak_rss_mib} MiB for a ${fileMiB.toFixed(0)} MiB model`);
  });

  test("the engine host's cancel stops a merge at the next tensor and leaves nothing under its name", async () => {
    const { model, adapter } = deep();
    const out = join(dir, 'cancelled.gguf');
    const host = EngineHost.start();
    try {
      let cancelled: Promise<unknown> | null = null;
      const seen: number[] = [];
      await assert.rejects(host.request('merge', { model, adapter, out }, (e) => {
        if (e.type !== 'merge-progress') return;
        seen.push(e.done);
        cancelled ??= host.request('cancel', {});
      }), (x: { code: string; message: string }) => x.code === 'cancelled' && /nothing was written/.test(x.message));
      assert.deepEqual(await cancelled, { stopping: true });
      assert.ok(seen.length < 219, `stopped after ${seen.length} of 219 tensors`);
      assert.ok(!existsSync(out) && !existsSync(`${out}.tmp`));
    } finally {
      host.kill();
    }
  });
});

describe('merge: refusals, cancels and the engine host', () => {
  test('a cancelled merge (Ctrl-C, a test hook, the addon callback) and a killed one leave nothing under the output name', async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir();
    const { adapter } = train(model, dir);
    const out = join(dir, 'out', 'merged.gguf');
    const missing = merge(['--model', model, '--adapter', adapter, '--out', out]);
    assert.equal(missing.code, 1);
    assert.match(missing.events.find((e) => e.type === 'error')!.message, /output folder .* does not exist/);
    const out2 = join(dir, 'merged.gguf');
    const c = merge(['--model', model, '--adapter', adapter, '--out', out2, '--test-cancel-after', '7']);
    assert.equal(c.code, 1);
    const e = c.events.find((x) => x.type === 'error')!;
    assert.equal(e.code, 'cancelled');
    assert.match(e.message, /cancelled after 7 of 48 tensors; nothing was written/);
    assert.deepEqual(readdirSync(dir).filter((f) => f.startsWith('merged')), [], 'neither the output nor its temporary file');

    // the addon: false from onProgress stops the merge at that tensor
    const hone = loadAddon();
    const seen: number[] = [];
    await assert.rejects(hone.merge({ model, adapter, out: out2 }, (p) => { seen.push(p.done); return p.done < 3; }),
      (x: { code: string; message: string }) => x.code === 'cancelled' && /after 3 of 48/.test(x.message));
    assert.deepEqual(seen, [1, 2, 3]);
    assert.ok(!existsSync(out2) && !existsSync(`${out2}.tmp`));

    // SIGINT from a terminal, and SIGKILL, sent at the first progress line: nothing under the final
    // name. The merge of this small model may finish first, so each is tried until one lands.
    for (const sig of ['SIGINT', 'SIGKILL'] as const) {
      let landed = 0;
      for (let i = 0; i < 10 && landed === 0; i++) {
        const child = spawn(bin('hone-train'), ['merge', '--model', model, '--adapter', adapter, '--out', out2, '--json', '--threads', '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
        child.stdout.once('data', () => child.kill(sig));
        const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
        if (code === 0) { rmSync(out2); continue; } // finished before the signal landed
        landed++;
        assert.ok(!existsSync(out2), `${sig}: nothing under the final name`);
        if (sig === 'SIGINT') {
          assert.equal(code, 1);
          assert.ok(!existsSync(`${out2}.tmp`), 'a cancel removes its temporary file');
        }
      }
      assert.equal(landed, 1, `${sig} landed mid-merge in one of 10 tries`);
    }
  });

  test('the engine host: merge-progress events, then the result', async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir();
    const { adapter } = train(model, dir);
    const out = join(dir, 'merged-f16.gguf');
    const host = EngineHost.start();
    try {
      const events: EngineEvent[] = [];
      const res = await host.request('merge', { model, adapter, out, type: 'f16' }, (e) => events.push(e));
      const progress = events.filter((e) => e.type === 'merge-progress') as Extract<EngineEvent, { type: 'merge-progress' }>[];
      assert.equal(progress.length, 48);
      assert.deepEqual(progress.at(-1), { type: 'merge-progress', done: 48, total: 48, tensor: 'blk.4.ffn_norm.weight' });
      assert.equal(res.path, out);
      assert.equal(res.bytes, readFileSync(out).length);
      assert.equal(res.merged + res.copied, 48);
      assert.equal(res.fallbacks, 0);
      const g = readGguf(out);
      assert.equal(typeName(g, 'blk.0.attn_q.weight'), 'F16');
      assert.equal(typeName(g, 'blk.0.attn_norm.weight'), 'F32');
      await assert.rejects(host.request('merge', { model, adapter: model, out: join(dir, 'x.gguf') }), (x: { code: string }) => x.code === 'bad_format');
    } finally {
      host.kill();
    }
  });
});
