/**
 * Export on real trained adapters (stories260K): the GGUF adapter at F32 is the trainer's file
 * byte for byte, and at F16 and Q8_0 llama.cpp loads it and gives the same logits within the
 * storage's rounding; our Q8_0 blocks are llama-quantize's; PEFT round-trips through our reader;
 * every format through the service from a run it trained (merge included, through the engine
 * host), and through `hone export`; a failed export leaves nothing.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import type { HoneError } from '../../electron/common/errors.ts';
import type { ExportProgress, ExportResult } from '../../electron/common/export.ts';
import type { RunStatus } from '../../electron/common/runs.ts';
import type { ServiceEvent } from '../../electron/common/service.ts';
import { readAdapterFile, TensorReader } from '../../electron/services/export/adapter-file.ts';
import { permuteQK, unpermuteQK } from '../../electron/services/export/qk-permute.ts';
import { readSafetensors } from '../../electron/services/export/safetensors.ts';
import { encodeQ8_0 } from '../../electron/services/export/tensor-codecs.ts';
import { readGgufHeader } from '../../electron/services/models/gguf-header.ts';
import { NodeHoneService } from '../../electron/services/hone-service.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { bin, honeTrain, repoRoot, run, tempDir } from '../helpers/native.ts';

const TEXT =
  'Once upon a time, there was a little dog named Max. Max loved to run in the park with his red ball. ' +
  'One day, Max saw a big cat under a tree. The cat was sad because it could not find its home.';
const PROMPT = 'One day, Max saw a big cat under a tree. The cat was sad because';

/**
 * Logit differences relative to the largest logit. Measured on the rank-32 run: F16 storage
 * 2e-4, Q8_0 4e-3, the adapter itself (base vs base + adapter) 0.9. The bounds leave room for
 * another build and still sit far below what the adapter changes.
 */
const F16_MAX_REL = 2e-3;
const Q8_0_MAX_REL = 2e-2;

function trainRun(model: string, dir: string, name: string, rank: number): string {
  const data = join(dir, 'text.txt');
  if (!existsSync(data)) writeFileSync(data, TEXT.repeat(3));
  const out = join(dir, name);
  const r = honeTrain(['--model', model, '--data', data, '--out', out, '--steps', '6', '--ctx', '32', '--lr', '1e-2', '--rank', String(rank),
    '--targets', 'all', '--threads', '1', '--backend', 'cpu', '--json']);
  assert.equal(r.code, 0, r.stderr);
  return out;
}

interface Diff { max_rel_diff: number; argmax_same: number; tokens: number }

function compare(model: string, adapterA: string | null, adapterB: string | null, modelB = model): Diff {
  // one thread: llama.cpp's threads waiting for each other on a busy machine take seconds per call
  const args = ['compare-logits', '--model', model, '--model-b', modelB, '--text', PROMPT, '--threads', '1', '--json'];
  if (adapterA) args.push('--adapter', adapterA);
  if (adapterB) args.push('--adapter-b', adapterB);
  const r = honeTrain(args);
  assert.equal(r.code, 0, r.stderr);
  return r.events.find((e) => e.type === 'compare-logits') as Diff;
}

function hone(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'hone.mjs'), ...args], { encoding: 'utf8', timeout: 300_000, env: { ...process.env, ...env } });
  const events = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, events };
}

const f32 = (b: Buffer) => new Float32Array(Uint8Array.from(b).buffer);

describe('export of trained adapters', () => {
  test('gguf: F32 is the trainer\'s file byte for byte; F16 and Q8_0 load in llama.cpp with the same logits within their rounding', { timeout: 120_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir('hone-export-');
    const runDir = trainRun(model, dir, 'r32', 32);
    const original = join(runDir, 'adapter.gguf');
    const service = new NodeHoneService({ dataDir: join(dir, 'data'), home: dir, env: {} });
    t.after(() => service.dispose());
    const out = (storage: 'f32' | 'f16' | 'q8_0') => service.exports.create({ run: runDir, format: 'gguf', storage });

    const plain = await out('f32');
    assert.equal(plain.out, join(runDir, 'exports', 'gguf-f32'));
    assert.ok(readFileSync(join(plain.out, 'adapter.gguf')).equals(readFileSync(original)), 'the same bytes, every key (hone.* included) kept');

    const effect = compare(model, null, original);
    assert.ok(effect.max_rel_diff > 0.1, `the adapter changes the logits (${effect.max_rel_diff})`);
    const half = await out('f16');
    const f16 = join(half.out, 'adapter.gguf');
    const dHalf = compare(model, original, f16);
    assert.ok(dHalf.max_rel_diff <= F16_MAX_REL, `F16: ${dHalf.max_rel_diff}`);
    assert.equal(dHalf.argmax_same, dHalf.tokens);
    // hone's own loader reads F16 too, and its forward agrees with llama.cpp's on that file
    const check = honeTrain(['check-forward', '--model', model, '--adapter', f16, '--text', PROMPT, '--threads', '1', '--json']);
    assert.equal(check.code, 0, check.stderr);
    assert.ok(check.events[0].max_rel_diff < 1e-3, JSON.stringify(check.events[0]));

    const q8 = await out('q8_0');
    const q8file = join(q8.out, 'adapter.gguf');
    const dQ8 = compare(model, original, q8file);
    assert.ok(dQ8.max_rel_diff <= Q8_0_MAX_REL && dQ8.max_rel_diff > dHalf.max_rel_diff, `Q8_0: ${dQ8.max_rel_diff} (F16: ${dHalf.max_rel_diff})`);
    const header = await readGgufHeader(q8file);
    const types = new Map(header.tensors.map((x) => [x.name, x.type]));
    assert.equal(types.get('blk.0.attn_q.weight.lora_b'), 8, 'rank 32: B is Q8_0');
    assert.equal(types.get('blk.0.ffn_down.weight.lora_a'), 1, 'A over ffn_down (rows of 172) stays F16');
    assert.match(q8.notes.join('\n'), /5 of 70 tensors are stored as F16.*rows of 172/);
    const kv = (await readAdapterFile(original)).header.kv;
    const kvQ8 = (await readAdapterFile(q8file)).header.kv;
    assert.deepEqual([...kvQ8.keys()], [...kv.keys()]);
    for (const [k, v] of kv) assert.deepEqual(kvQ8.get(k), v, k);

    // rank 4: every B keeps F16, and the result says why
    const r4 = trainRun(model, dir, 'r4', 4);
    const small = await service.exports.create({ run: r4, format: 'gguf', storage: 'q8_0', out: join(dir, 'r4-q8.gguf') });
    assert.deepEqual(small.files.map((f) => f.path), [join(dir, 'r4-q8.gguf')]);
    assert.match(small.notes.join('\n'), /40 of 70 tensors are stored as F16.*35 with rows of 4/);
    const d4 = compare(model, join(r4, 'adapter.gguf'), join(dir, 'r4-q8.gguf'));
    assert.ok(d4.max_rel_diff <= Q8_0_MAX_REL, `rank 4, Q8_0: ${d4.max_rel_diff}`);
  });

  test("our Q8_0 blocks are llama-quantize's, byte for byte", { timeout: 120_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir('hone-export-q8-');
    const q8 = join(dir, 'q8.gguf');
    const r = run(bin('llama-quantize'), [model, q8, 'q8_0']);
    assert.equal(r.code, 0, r.stderr);
    const src = await readGgufHeader(model);
    const dst = await readGgufHeader(q8);
    const srcReader = await TensorReader.open(src);
    const dstReader = await TensorReader.open(dst);
    t.after(async () => {
      await srcReader.close();
      await dstReader.close();
    });
    let compared = 0;
    for (const d of dst.tensors) {
      if (d.type !== 8) continue;
      const s = src.tensors.find((x) => x.name === d.name)!;
      assert.equal(s.type, 0, `${d.name} is F32 in the fixture`);
      assert.ok(encodeQ8_0(await srcReader.f32(s)).equals(await dstReader.bytes(d)), d.name);
      compared++;
    }
    assert.ok(compared >= 20, `${compared} Q8_0 tensors compared`);
  });

  test('peft: our reader gives back the adapter\'s A and B (q/k B in transformers\' row order, the GGUF\'s once permuted again), under a valid header', { timeout: 120_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir('hone-export-peft-');
    const runDir = trainRun(model, dir, 'r8', 8);
    const service = new NodeHoneService({ dataDir: join(dir, 'data'), home: dir, env: {} });
    t.after(() => service.dispose());
    const res = await service.exports.create({ run: runDir, format: 'peft' });
    const st = await readSafetensors(join(res.out, 'adapter_model.safetensors')); // throws unless the header validates
    const adapter = await readAdapterFile(join(runDir, 'adapter.gguf'));
    const reader = await TensorReader.open(adapter.header);
    t.after(() => reader.close());
    assert.equal(st.tensors.size, adapter.pairs.length * 2);
    const modules: Record<string, string> = { attn_q: 'self_attn.q_proj', attn_k: 'self_attn.k_proj', attn_v: 'self_attn.v_proj', attn_output: 'self_attn.o_proj', ffn_gate: 'mlp.gate_proj', ffn_up: 'mlp.up_proj', ffn_down: 'mlp.down_proj' };
    let permuted = 0;
    for (const p of adapter.pairs) {
      const [, layer, w] = /^blk\.(\d+)\.(\w+)\.weight$/.exec(p.base)!;
      const key = (x: 'A' | 'B') => `base_model.model.model.layers.${layer}.${modules[w]}.lora_${x}.weight`;
      const a = st.tensors.get(key('A'))!;
      const b = st.tensors.get(key('B'))!;
      assert.deepEqual([a.dtype, a.shape, b.shape], ['F32', [8, p.a.dims[0]], [p.b.dims[1], 8]], p.base);
      assert.deepEqual(Array.from(f32(a.data)), Array.from(await reader.f32(p.a)), `${p.base} A`);
      const gguf = await reader.f32(p.b);
      const heads = w === 'attn_q' ? 8 : w === 'attn_k' ? 4 : 0; // stories260K: 8 heads, 4 KV heads
      if (heads) {
        assert.deepEqual(Array.from(f32(b.data)), Array.from(unpermuteQK(gguf, p.b.dims[1], 8, heads)), `${p.base} B`);
        assert.deepEqual(Array.from(permuteQK(f32(b.data), p.b.dims[1], 8, heads)), Array.from(gguf), `${p.base} B permuted again`);
        assert.notDeepEqual(Array.from(f32(b.data)), Array.from(gguf), `${p.base}: a trained B moves under the permutation`);
        permuted++;
      } else {
        assert.deepEqual(Array.from(f32(b.data)), Array.from(gguf), `${p.base} B`);
      }
    }
    assert.equal(permuted, 10);
    const config = JSON.parse(readFileSync(join(res.out, 'adapter_config.json'), 'utf8'));
    assert.deepEqual([config.r, config.lora_alpha, config.peft_type, config.task_type], [8, 16, 'LORA', 'CAUSAL_LM']);
    assert.deepEqual(config.target_modules, ['q_proj', 'k_proj', 'v_proj', 'o_proj', 'gate_proj', 'up_proj', 'down_proj']);
  });

  test('every format through the service from a run it trained; progress events; failures named and leaving nothing', { timeout: 300_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    const data = requireFixture(t, 'chat_elements_limericks.jsonl');
    if (!model || !data) return;
    const dir = tempDir('hone-export-service-');
    const dataDir = join(dir, 'data');
    const service = new NodeHoneService({ dataDir, home: dir, env: {} });
    t.after(() => service.dispose());
    const events: ServiceEvent[] = [];
    service.subscribe((e) => events.push(e));
    const started = await service.runs.start({ model, data: [data], steps: 6, ctx: 256, rank: 4, targets: 'all', lr: 1e-2, backend: 'cpu', threads: 1, evalSplit: 0.2 });
    const ended: RunStatus[] = ['finished', 'failed', 'stopped', 'interrupted'];
    while (!ended.includes((await service.runs.get(started.id)).status)) await new Promise((r) => setTimeout(r, 200));
    const detail = await service.runs.get(started.id);
    assert.equal(detail.status, 'finished', JSON.stringify(detail.error));
    const progressOf = (r: ExportResult) => events.filter((e): e is ExportProgress => e.type === 'export-progress' && e.out === r.out);

    const gguf = await service.exports.create({ run: started.id, format: 'gguf', storage: 'f16' });
    assert.equal(gguf.out, join(detail.folder, 'exports', 'gguf-f16'));
    assert.equal(progressOf(gguf).at(-1)?.done, progressOf(gguf).at(-1)?.total);

    const peft = await service.exports.create({ run: started.id, format: 'peft' });
    assert.ok(existsSync(join(peft.out, 'adapter_model.safetensors')) && existsSync(join(peft.out, 'adapter_config.json')));

    const merged = await service.exports.create({ run: started.id, format: 'merged', type: 'f16' });
    assert.equal(merged.out, join(detail.folder, 'exports', 'merged-f16'));
    const mergedFile = join(merged.out, 'model.gguf');
    assert.ok(progressOf(merged).some((p) => p.stage === 'merge'), 'merge progress is forwarded');
    const d = compare(mergedFile, null, join(detail.folder, 'adapter.gguf'), model);
    assert.ok(d.max_rel_diff <= F16_MAX_REL * 5, `merged F16 vs base + adapter: ${d.max_rel_diff}`);

    const ollama = await service.exports.create({ run: started.id, format: 'ollama' });
    assert.deepEqual(readdirSync(ollama.out).sort(), ['Modelfile', 'Modelfile.merged', 'adapter.gguf', 'hone-export.json', 'merged.gguf']);
    assert.equal(ollama.commands.length, 2);
    assert.match(ollama.commands[0], new RegExp(`^ollama create hone-${started.id.toLowerCase()} -f `));
    assert.match(readFileSync(join(ollama.out, 'Modelfile'), 'utf8'), new RegExp(`^FROM ${model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));

    const axolotl = await service.exports.create({ run: started.id, format: 'axolotl' });
    const y = parse(readFileSync(join(axolotl.out, 'axolotl.yaml'), 'utf8'));
    assert.deepEqual([y.lora_r, y.lora_alpha, y.max_steps, y.sequence_len, y.learning_rate], [4, 8, 6, 257, 0.01]);
    const records = (name: string) => (existsSync(join(axolotl.out, name)) ? readFileSync(join(axolotl.out, name), 'utf8').trim().split('\n').length : 0);
    const tokens = detail.tokens!;
    assert.equal(records('train.jsonl') + records('eval.jsonl'), tokens.examples - tokens.dropped - tokens.failed.length, 'the examples Hone trained on');
    assert.ok(records('eval.jsonl') >= 1, 'the run held out at least one');
    const first = JSON.parse(readFileSync(join(axolotl.out, 'train.jsonl'), 'utf8').split('\n')[0]);
    assert.deepEqual(first.messages.map((m: { role: string; weight: number }) => [m.role, m.weight]), [['system', 0], ['user', 0], ['assistant', 1]]);

    // failures: an unknown run, a run with no adapter yet, an output that cannot be written
    await assert.rejects(service.exports.create({ run: '20000101-000000-0000', format: 'gguf' }), (e: HoneError) => e.code === 'not_found');
    mkdirSync(join(dataDir, 'runs', '20000101-000000-abcd'));
    writeFileSync(join(dataDir, 'runs', '20000101-000000-abcd', 'config.json'), JSON.stringify({ model, data: [data] }));
    await assert.rejects(service.exports.create({ run: '20000101-000000-abcd', format: 'peft' }), (e: HoneError) => e.code === 'not_found' && /the run has no adapter yet/.test(e.message));
    writeFileSync(join(dir, 'a-file'), '');
    await assert.rejects(service.exports.create({ run: started.id, format: 'merged', out: join(dir, 'a-file', 'merged') }), (e: HoneError) => e.code === 'io_error' && /cannot be written/.test(e.message));
    await assert.rejects(service.exports.create({ run: started.id, format: 'peft', type: 'q8_0' } as never), (e: HoneError) => e.code === 'invalid_argument');
    assert.deepEqual(readdirSync(join(detail.folder, 'exports')).sort(), ['axolotl', 'gguf-f16', 'merged-f16', 'ollama', 'peft'], 'no temporary folder left');
  });

  test('hone export: formats from a hone train folder, JSON lines, exit codes; a failed export leaves what was there', { timeout: 300_000 }, async (t) => {
    const model = requireFixture(t, 'stories260K.gguf');
    if (!model) return;
    const dir = tempDir('hone-export-cli-');
    const runDir = trainRun(model, dir, 'run', 8);
    const env = { HONE_DATA_DIR: join(dir, 'data') };
    const q8 = hone(['export', '--run', runDir, '--format', 'gguf', '--storage', 'q8_0', '--out', join(dir, 'q8'), '--json'], env);
    assert.equal(q8.code, 0, q8.stderr);
    const done = q8.events.at(-1);
    assert.equal(done.type, 'export');
    assert.equal(done.out, join(dir, 'q8'));
    assert.ok(q8.events.some((e) => e.type === 'export-progress' && e.stage === 'tensors'));
    assert.ok(compare(model, join(runDir, 'adapter.gguf'), join(dir, 'q8', 'adapter.gguf')).max_rel_diff <= Q8_0_MAX_REL);

    const merged = hone(['export', '--adapter', join(runDir, 'adapter.gguf'), '--model', model, '--format', 'merged', '--type', 'q8_0', '--out', join(dir, 'merged.gguf')], env);
    assert.equal(merged.code, 0, merged.stderr);
    assert.match(merged.stdout, new RegExp(`wrote ${join(dir, 'merged.gguf').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(merged\\)`));
    assert.ok(compare(join(dir, 'merged.gguf'), null, join(runDir, 'adapter.gguf'), model).max_rel_diff <= Q8_0_MAX_REL * 2);

    const peft = hone(['export', '--run', runDir, '--format', 'peft'], env);
    assert.equal(peft.code, 0, peft.stderr);
    assert.match(peft.stdout, /adapter_model\.safetensors/);
    assert.match(peft.stdout, /note: the base model's GGUF does not say its Hugging Face name/);

    const usage = hone(['export', '--run', runDir, '--format', 'onnx'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--format must be one of gguf, peft, merged, ollama, axolotl/);
    assert.equal(hone(['export', '--run', runDir, '--format', 'peft', '--storage', 'f16'], env).code, 2, 'storage is only for gguf');
    assert.equal(hone(['export', '--format', 'gguf'], env).code, 2);

    mkdirSync(join(dir, 'mine'));
    writeFileSync(join(dir, 'mine', 'keep.txt'), 'mine');
    const refused = hone(['export', '--run', runDir, '--format', 'ollama', '--out', join(dir, 'mine'), '--json'], env);
    assert.equal(refused.code, 1);
    assert.equal(refused.events.at(-1).type, 'error');
    assert.match(refused.stderr, /mine: exists and is not an earlier Hone export/);
    assert.deepEqual(readdirSync(join(dir, 'mine')), ['keep.txt']);
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith('.')), [], 'no temporary file left');
    const missing = hone(['export', '--run', join(dir, 'nothing'), '--format', 'gguf'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /nothing: not a run folder/);
  });
});
