/**
 * Loss masks from real chat templates, checked token by token: for each template the tokens
 * that carry loss are exactly each trained assistant turn (content, tool calls) plus its
 * end-of-turn token, and nothing else; tool results never carry loss.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { loadAddon, type HoneAddon, type NativeModel, type Rendered } from '../../electron/engine-host/binding.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, tempDir, vocab } from '../helpers/native.ts';

/** The llama.cpp source the build prepared (its models/templates hold real chat templates). */
function llamaTemplate(name: string): string {
  const root = join(process.env.HONE_CACHE_DIR || join(homedir(), '.cache', 'hone'), 'src');
  for (const d of readdirSync(root).filter((n) => n.startsWith('llama.cpp-')).sort()) {
    const p = join(root, d, 'models', 'templates', name);
    if (existsSync(p)) return p;
  }
  throw new Error(`${name} not found under ${root}: run \`npm run build:native\` first`);
}

function makeChatModel(dir: string, name: string, arch: 'llama' | 'qwen2' | 'qwen3', v: 'qwen2' | 'phi-3' | 'llama-bpe', templateFile?: string): string {
  const out = join(dir, `${name}.gguf`);
  const args = ['make-model', '--arch', arch, '--embd', '32', '--layers', '1', '--heads', '2', '--kv-heads', '1', '--ff', '64',
    '--vocab-from', vocab(v), '--out', out];
  if (templateFile) args.push('--chat-template-file', templateFile);
  const r = honeTrain(args);
  assert.equal(r.code, 0, r.stderr);
  return out;
}

/** The text of each run of consecutive loss-carrying tokens, read from the tokens' byte spans. */
function lossRuns(r: Rendered): string[] {
  const bytes = Buffer.from(r.text!, 'utf8');
  const runs: string[] = [];
  let cur: Buffer[] | null = null;
  for (let i = 0; i < r.tokens.length; i++) {
    if (r.mask[i]) {
      cur ??= [];
      cur.push(bytes.subarray(r.spans![2 * i], r.spans![2 * i + 1]));
    } else if (cur) {
      runs.push(Buffer.concat(cur).toString('utf8'));
      cur = null;
    }
  }
  if (cur) runs.push(Buffer.concat(cur).toString('utf8'));
  return runs;
}

/** Token spans tile the text: every byte belongs to exactly one token, in order. */
function assertSpansTile(r: Rendered) {
  let at = 0;
  for (let i = 0; i < r.tokens.length; i++) {
    assert.equal(r.spans![2 * i], at, `token ${i} starts at byte ${r.spans![2 * i]}, expected ${at}`);
    at = r.spans![2 * i + 1];
  }
  assert.equal(at, Buffer.byteLength(r.text!, 'utf8'));
}

const CHAT = {
  messages: [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: 'Name a red fruit.' },
    { role: 'assistant', content: 'A cherry.' },
    { role: 'user', content: 'And a yellow one?' },
    { role: 'assistant', content: 'A banana, usually.' },
  ],
};

const TOOLS = [{ type: 'function', function: { name: 'get_weather', description: 'Current weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const TOOL_CHAT = {
  tools: TOOLS,
  messages: [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } }] },
    { role: 'tool', tool_call_id: 'c1', content: 'TOOL-RESULT-21C' },
    { role: 'assistant', content: 'It is 21 degrees in Paris.' },
  ],
};

describe('loss masks through real chat templates', () => {
  let addon: HoneAddon;
  let dir: string;
  const models: Record<string, NativeModel> = {};
  before(async () => {
    addon = loadAddon();
    dir = tempDir();
    const specs: Array<[string, 'llama' | 'qwen2' | 'qwen3', 'qwen2' | 'phi-3' | 'llama-bpe', string | undefined]> = [
      ['qwen2', 'qwen2', 'qwen2', undefined], // the template stored in the qwen2 vocab GGUF
      ['phi3', 'llama', 'phi-3', undefined], // the template stored in the phi-3 vocab GGUF
      ['qwen3', 'qwen3', 'qwen2', llamaTemplate('Qwen-Qwen3-0.6B.jinja')],
      ['llama31', 'llama', 'llama-bpe', llamaTemplate('meta-llama-Llama-3.1-8B-Instruct.jinja')],
    ];
    for (const [name, arch, v, t] of specs) models[name] = await addon.Model.load({ path: makeChatModel(dir, name, arch, v, t), backend: 'cpu', threads: 1 });
  });

  async function render(model: string, example: unknown, opts: { loss?: 'assistant' | 'all'; ignoreWeights?: boolean } = {}) {
    const r = models[model].createRenderer(opts);
    try {
      const [out] = await r.renderBatch([JSON.stringify(example)], { text: true });
      if ('error' in out) throw Object.assign(new Error(out.error.message), { code: out.error.code });
      assertSpansTile(out);
      return out;
    } finally {
      r.dispose();
    }
  }

  for (const [model, eot] of [['qwen2', '<|im_end|>'], ['phi3', '<|end|>'], ['qwen3', '<|im_end|>'], ['llama31', '<|eot_id|>']] as const) {
    test(`${model}: each assistant turn and its ${eot} carry loss, nothing else`, async () => {
      const r = await render(model, CHAT);
      const expected = model === 'qwen3'
        // Qwen3's template opens an (empty) reasoning block in the last turn, which the model generates too.
        ? ['A cherry.<|im_end|>', '<think>\n\n</think>\n\nA banana, usually.<|im_end|>']
        : ['A cherry.' + eot, 'A banana, usually.' + eot];
      assert.deepEqual(lossRuns(r), expected);
      assert.ok(r.text!.includes('Name a red fruit.') && r.text!.includes('You are terse.'), 'user and system text are rendered');
    });
  }

  test('qwen3: a template that rewrites earlier turns (old reasoning dropped) still masks each turn exactly', async () => {
    const r = await render('qwen3', {
      messages: [
        { role: 'user', content: '2+2?' },
        { role: 'assistant', content: '<think>\nadd them\n</think>\n\n4' },
        { role: 'user', content: '3+3?' },
        { role: 'assistant', content: '<think>\nadd again\n</think>\n\n6' },
      ],
    });
    assert.ok(!r.text!.includes('add them'), 'the template drops the first turn\'s reasoning');
    assert.deepEqual(lossRuns(r), ['4<|im_end|>', '<think>\nadd again\n</think>\n\n6<|im_end|>']);
  });

  for (const model of ['qwen3', 'llama31']) {
    test(`${model}: tool calls carry loss, tool results do not`, async () => {
      const r = await render(model, TOOL_CHAT);
      const runs = lossRuns(r);
      assert.equal(runs.length, 2, JSON.stringify(runs));
      assert.match(runs[0], /get_weather/);
      assert.match(runs[0], /"city": "Paris"/);
      assert.ok(!runs.join('').includes('TOOL-RESULT-21C'), 'the tool result is not in the loss');
      assert.ok(r.text!.includes('TOOL-RESULT-21C'), 'the tool result is rendered');
      assert.ok(runs[1].endsWith('It is 21 degrees in Paris.' + (model === 'qwen3' ? '<|im_end|>' : '<|eot_id|>')));
      assert.ok(r.text!.includes('Current weather'), 'the tools are described to the model');
    });
  }

  test('a template without tool support refuses tool calls instead of dropping them', async () => {
    await assert.rejects(render('qwen2', TOOL_CHAT), (e: { code: string; message: string }) => e.code === 'unsupported' && /tool calls/.test(e.message));
  });

  test('weight 0 turns carry no loss unless weights are ignored; loss "all" covers every token', async () => {
    const ex = { messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'skip me', weight: 0 }, { role: 'user', content: 'b' }, { role: 'assistant', content: 'learn me' }] };
    assert.deepEqual(lossRuns(await render('qwen2', ex)), ['learn me<|im_end|>']);
    assert.deepEqual(lossRuns(await render('qwen2', ex, { ignoreWeights: true })), ['skip me<|im_end|>', 'learn me<|im_end|>']);
    const all = await render('qwen2', ex, { loss: 'all' });
    assert.ok(all.mask.every((m) => m === 1));
  });

  test('a model without a chat template uses the documented plain fallback', async (t) => {
    const path = requireFixture(t, 'stories260K.gguf');
    if (!path) return;
    const m = await addon.Model.load({ path, backend: 'cpu', threads: 1 });
    try {
      const r = m.createRenderer();
      assert.equal(r.info().source, 'fallback');
      const [out] = await r.renderBatch([JSON.stringify(CHAT)], { text: true });
      assert.ok(!('error' in out));
      assert.equal(out.text, '### System:\nYou are terse.\n\n### User:\nName a red fruit.\n\n### Assistant:\nA cherry.</s>\n\n' +
        '### User:\nAnd a yellow one?\n\n### Assistant:\nA banana, usually.</s>\n\n');
      assert.deepEqual(lossRuns(out), ['A cherry.</s>', 'A banana, usually.</s>']);
      r.dispose();
    } finally {
      m.dispose();
    }
  });

  test('text examples carry loss on every token (BOS + text + EOS)', async () => {
    const r = await render('phi3', { text: 'Plain text trains everywhere.' });
    assert.ok(r.mask.every((m) => m === 1));
    assert.equal(r.text, 'Plain text trains everywhere.');
    assert.equal(r.tokens[0], models.phi3.tokenize('', true)[0], 'BOS first');
  });
});
