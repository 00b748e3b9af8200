// Greedy decoding through node-llama-cpp's prebuilt addon (its raw binding, as node-llama-cpp's
// own JavaScript drives it), for stock-llama.ts:
//   node stock-generate.mjs ADDON MODEL ADAPTER|'' PROMPT N  ->  {"text": ..., "tokens": [...]}
// The adapter goes through llama.cpp's own LoRA API (llama_adapter_lora_init,
// llama_set_adapters_lora) at scale 1.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';

const [addonPath, modelPath, adapterPath, prompt, n] = process.argv.slice(2);
const b = createRequire(import.meta.url)(addonPath);
b.setLoggerLogLevel(1); // errors only
b.loadBackends();
if (b.getGpuType() == null) b.loadBackends(dirname(addonPath)); // the CPU backends beside the addon
await b.init();
const model = new b.AddonModel(modelPath, { gpuLayers: 0 });
if (!(await model.init())) throw new Error(`${modelPath}: the stock llama.cpp could not load this model`);
const ctx = new b.AddonContext(model, { contextSize: 256, batchSize: 256, sequences: 1, threads: 2, flashAttention: false });
if (!(await ctx.init())) throw new Error('the stock llama.cpp could not create a context');
if (adapterPath) {
  const lora = new b.AddonModelLora(model, adapterPath);
  await model.loadLora(lora); // throws when llama.cpp's adapter loader refuses the file
  ctx.setLoras([lora], [1]);
}
const sampler = new b.AddonSampler(model);
sampler.applyConfig({ temperature: 0 });
const tokens = Array.from(model.tokenize(prompt, false));
if (model.shouldPrependBosToken()) tokens.unshift(model.tokenBos());
ctx.initBatch(tokens.length);
let logits = ctx.addToBatch(0, 0, Uint32Array.from(tokens), Uint32Array.from([tokens.length - 1]));
await ctx.decodeBatch();
const out = [];
for (let pos = tokens.length; out.length < Number(n); pos++) {
  const t = await ctx.sampleToken(logits[0], sampler);
  if (t === -1 || model.isEogToken(t)) break;
  out.push(t);
  ctx.initBatch(1);
  logits = ctx.addToBatch(0, pos, Uint32Array.from([t]), Uint32Array.from([0]));
  await ctx.decodeBatch();
}
console.log(JSON.stringify({ text: model.detokenize(Uint32Array.from(out)), tokens: out }));
sampler.dispose();
await ctx.dispose();
await model.dispose();
