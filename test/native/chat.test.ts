/**
 * Trying an adapter (issue 18's "Try it"): the same prompt through the base and through the base
 * with a LoRA trained on stories260K to tell of a purple zebra, by `hone-train chat`, by
 * `hone chat` and by the service's chat.generate (compare: base, then adapter, streamed).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { CHAT_DEFAULT_SAMPLING, type ChatMessage, type ChatReply, type ChatRequest } from '../../electron/common/chat.ts';
import type { EngineEvent, Requests } from '../../electron/common/engine-api.ts';
import type { HoneError } from '../../electron/common/errors.ts';
import type { RunSummary } from '../../electron/common/runs.ts';
import type { ServiceEvent } from '../../electron/common/service.ts';
import { EngineHost } from '../../electron/services/engine/client.ts';
import { NodeHoneService } from '../../electron/services/hone-service.ts';
import { ZEBRA_PROMPT, ZEBRA_REPLY, trainZebraChat, zebraChatJsonl } from '../helpers/chat-adapter.ts';
import { requireFixture } from '../helpers/fixtures.ts';
import { honeTrain, makeModel, repoRoot, tempDir, type RunResult } from '../helpers/native.ts';

/** The reply a --json chat streamed, and its done event. */
function reply(r: RunResult): { text: string; done: Record<string, any> } {
  assert.equal(r.code, 0, r.stderr);
  const done = r.events.find((e) => e.type === 'done');
  assert.ok(done, `a done event: ${r.stdout}`);
  return { text: r.events.filter((e) => e.type === 'piece').map((e) => e.text).join(''), done };
}

let trained: { model: string; adapter: string; runFolder: string } | null = null;
function zebra(t: { skip(m?: string): void }) {
  const model = requireFixture(t, 'stories260K.gguf');
  if (!model) return null;
  trained ??= { model, ...trainZebraChat(model, tempDir()) };
  return trained;
}

describe('hone-train chat', () => {
  test('the adapter tells of the purple zebra through the chat template; the base does not; greedy is deterministic', (t) => {
    const z = zebra(t);
    if (!z) return;
    const chat = (extra: string[]) => reply(honeTrain(['chat', '--model', z.model, '--prompt', ZEBRA_PROMPT, '--max-tokens', '32', '--json', ...extra]));
    const base = chat([]);
    const tuned = chat(['--adapter', z.adapter]);
    assert.ok(base.done.reply_tokens >= 10, `the base answers: '${base.text}'`);
    assert.doesNotMatch(base.text, /purple|zebra/, `the base: '${base.text}'`);
    assert.ok(tuned.text.startsWith('Once upon a time, there was a purple zebra named Zork'), `with the adapter: '${tuned.text}'`);
    assert.equal(tuned.done.template, 'fallback', 'stories260K has no chat template: the fallback renders the conversation');
    assert.equal(tuned.done.adapter, true);
    assert.equal(tuned.done.stop, 'max_tokens');
    assert.equal(tuned.done.reply_tokens, 32);
    assert.equal(tuned.done.prompt_tokens, base.done.prompt_tokens);
    // greedy twice: the same reply
    assert.equal(chat(['--adapter', z.adapter]).text, tuned.text);
    assert.equal(chat([]).text, base.text);
    // the plain text mode prints the same reply
    const plain = honeTrain(['chat', '--model', z.model, '--adapter', z.adapter, '--prompt', ZEBRA_PROMPT, '--max-tokens', '32']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.equal(plain.stdout, `${tuned.text}\n`);
    assert.match(plain.stderr, /32 reply tokens, stop: max_tokens; fallback chat template; CPU; with the adapter/);
  });

  test('scale 0 is the base, scale 1 is not; a system message is rendered into the prompt', (t) => {
    const z = zebra(t);
    if (!z) return;
    const chat = (extra: string[]) => reply(honeTrain(['chat', '--model', z.model, '--prompt', ZEBRA_PROMPT, '--max-tokens', '24', '--json', ...extra]));
    const base = chat([]);
    const zero = chat(['--adapter', z.adapter, '--scale', '0']);
    assert.equal(zero.text, base.text);
    assert.equal(zero.done.scale, 0);
    const full = chat(['--adapter', z.adapter, '--scale', '1']);
    assert.notEqual(full.text, base.text);
    const withSystem = chat(['--system', 'You are a storyteller.']);
    assert.ok(withSystem.done.prompt_tokens > base.done.prompt_tokens, 'the system message is rendered into the prompt');
  });

  test("a model with its own chat template: the prompt is the template's rendering plus its generation prompt", () => {
    const dir = tempDir();
    const model = makeModel(dir, { arch: 'qwen2', embd: 64, layers: 2, heads: 4, kvHeads: 2, ff: 128, type: 'q8_0', vocab: 'qwen2' });
    const chat = reply(honeTrain(['chat', '--model', model, '--system', 'You tell stories.', '--prompt', ZEBRA_PROMPT, '--max-tokens', '4', '--json']));
    assert.equal(chat.done.template, 'model');
    assert.equal(chat.done.reply_tokens, 4);
    // the same conversation as training renders it, without the generation prompt: ChatML's
    // '<|im_start|>assistant\n' (3 tokens) is what the chat adds
    const data = join(dir, 'conversation.jsonl');
    writeFileSync(data, JSON.stringify({ messages: [{ role: 'system', content: 'You tell stories.' }, { role: 'user', content: ZEBRA_PROMPT }] }) + '\n');
    const rendered = honeTrain(['render', '--model', model, '--data', data]);
    assert.equal(rendered.code, 0, rendered.stderr);
    const r = rendered.events.find((e) => e.type === 'rendered')!;
    assert.match(r.text, /<\|im_start\|>system\nYou tell stories\.<\|im_end\|>\n<\|im_start\|>user\nTell me a story<\|im_end\|>\n$/);
    assert.equal(chat.done.prompt_tokens, r.tokens.length + 3);
  });

  test('sampled with a seed is reproducible, and another seed gives another reply', (t) => {
    const z = zebra(t);
    if (!z) return;
    const sampled = (seed: number) =>
      reply(honeTrain(['chat', '--model', z.model, '--prompt', ZEBRA_PROMPT, '--max-tokens', '40', '--temperature', '1.2', '--top-p', '0.98', '--seed', String(seed), '--json'])).text;
    const a = sampled(7);
    assert.equal(sampled(7), a);
    const others = [8, 9, 10].map(sampled);
    assert.ok(others.some((o) => o !== a), `other seeds differ: ${JSON.stringify([a, ...others])}`);
    const greedy = reply(honeTrain(['chat', '--model', z.model, '--prompt', ZEBRA_PROMPT, '--max-tokens', '40', '--json'])).text;
    assert.ok([a, ...others].some((o) => o !== greedy), 'sampling is not greedy');
  });

  test('a stop from the stream ends the reply where it was asked, as a normal end', (t) => {
    const z = zebra(t);
    if (!z) return;
    const out = honeTrain(['chat', '--model', z.model, '--adapter', z.adapter, '--prompt', ZEBRA_PROMPT, '--test-stop-after', '5', '--json']);
    const r = reply(out);
    assert.equal(r.done.stop, 'stopped');
    assert.equal(r.done.reply_tokens, 5);
    assert.equal(out.events.filter((e) => e.type === 'piece').length, 5);
    assert.ok(ZEBRA_REPLY.startsWith(r.text), `the first five pieces of the trained reply: '${r.text}'`);
  });

  test('errors name the file or the setting', (t) => {
    const z = zebra(t);
    if (!z) return;
    const err = (args: string[]) => {
      const r = honeTrain(['chat', '--prompt', ZEBRA_PROMPT, '--json', ...args]);
      assert.equal(r.code, 1, r.stderr);
      const e = r.events.find((x) => x.type === 'error');
      assert.ok(e, r.stdout);
      return e!;
    };
    const missing = err(['--model', '/no/such/model.gguf']);
    assert.equal(missing.code, 'io_error');
    assert.match(missing.message, /\/no\/such\/model\.gguf: the model cannot be opened/);
    const noAdapter = err(['--model', z.model, '--adapter', '/no/such/adapter.gguf']);
    assert.equal(noAdapter.code, 'io_error');
    assert.match(noAdapter.message, /adapter\.gguf: the adapter cannot be opened/);
    // a model file is not an adapter: llama.cpp's loader says why
    const notAdapter = err(['--model', z.model, '--adapter', z.model]);
    assert.equal(notAdapter.code, 'bad_format');
    assert.match(notAdapter.message, /the adapter does not load for this model: expect general\.type to be 'adapter'/);
    // an adapter trained on another base (other shapes): refused, naming the tensor
    const dir = tempDir();
    const other = makeModel(dir, { arch: 'llama', embd: 64, layers: 2, heads: 4, kvHeads: 4, ff: 128, type: 'f32', vocab: 'llama-spm' });
    writeFileSync(join(dir, 'text.txt'), 'Once upon a time there was a cat. '.repeat(20));
    const trainedOther = honeTrain(['--model', other, '--data', join(dir, 'text.txt'), '--out', join(dir, 'other'), '--steps', '1', '--ctx', '16', '--json']);
    assert.equal(trainedOther.code, 0, trainedOther.stderr);
    const mismatch = err(['--model', z.model, '--adapter', join(dir, 'other', 'adapter.gguf')]);
    assert.equal(mismatch.code, 'adapter_mismatch');
    assert.match(mismatch.message, /incorrect shape|does not exist in base model/);
    const backend = err(['--model', z.model, '--backend', 'tpu']);
    assert.equal(backend.code, 'invalid_argument');
    assert.match(backend.message, /unknown backend 'tpu'/);
    const temp = err(['--model', z.model, '--temperature', '0']);
    assert.match(temp.message, /temperature must be > 0/);
    const long = err(['--model', z.model, '--prompt', 'story '.repeat(600), '--ctx', '256']);
    assert.equal(long.code, 'invalid_argument');
    assert.match(long.message, /the conversation is \d+ tokens: the context holds 256/);
    const usage = honeTrain(['chat', '--model', z.model, '--prompt', 'x', '--greedy', '--seed', '3']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--greedy cannot be combined/);
  });
});

describe('the engine host answers chat requests', () => {
  const request = (z: { model: string; adapter: string }, over: Partial<Requests['chat']['payload']> = {}): Requests['chat']['payload'] => ({
    model: z.model,
    adapter: z.adapter,
    scale: 1,
    messages: [{ role: 'user', content: ZEBRA_PROMPT }],
    sampling: { ...CHAT_DEFAULT_SAMPLING, maxTokens: 24 },
    compare: true,
    ...over,
  });

  test('compare: the base streams first, then the adapter, on one model kept loaded for the next request', async (t) => {
    const z = zebra(t);
    if (!z) return;
    const host = EngineHost.start();
    try {
      const events: EngineEvent[] = [];
      const r = await host.request('chat', request(z), (e) => events.push(e));
      assert.deepEqual(r.replies.map((x) => [x.which, x.scale, x.stop, x.replyTokens]), [['base', 0, 'max_tokens', 24], ['adapter', 1, 'max_tokens', 24]]);
      assert.equal(r.template, 'fallback');
      assert.equal(r.backend, 'CPU');
      assert.equal(r.cached, false);
      const tokens = events.filter((e) => e.type === 'chat-token');
      const firstAdapter = tokens.findIndex((e) => e.which === 'adapter');
      assert.ok(firstAdapter > 0 && tokens.slice(firstAdapter).every((e) => e.which === 'adapter'), 'every base piece comes before the first adapter piece');
      for (const reply of r.replies) assert.equal(tokens.filter((e) => e.which === reply.which).map((e) => e.text).join(''), reply.text, `${reply.which}: the streamed pieces are the reply`);
      assert.doesNotMatch(r.replies[0].text, /purple/);
      assert.match(r.replies[1].text, /^Once upon a time, there was a purple zebra/);
      // the same as hone-train chat gives
      const cli = reply(honeTrain(['chat', '--model', z.model, '--adapter', z.adapter, '--prompt', ZEBRA_PROMPT, '--max-tokens', '24', '--json']));
      assert.equal(r.replies[1].text, cli.text);

      const again = await host.request('chat', request(z, { compare: false, scale: 0 }));
      assert.equal(again.cached, true, 'the loaded model answers the next chat');
      assert.deepEqual(again.replies.map((x) => [x.which, x.scale]), [['adapter', 0]]);
      assert.equal(again.replies[0].text, r.replies[0].text, 'the adapter at scale 0 is the base');
    } finally {
      host.kill();
    }
  });

  test('stop ends the reply in progress and skips the adapter reply of a compare', async (t) => {
    const z = zebra(t);
    if (!z) return;
    const host = EngineHost.start();
    try {
      let pieces = 0;
      const r = await host.request('chat', request(z, { sampling: { ...CHAT_DEFAULT_SAMPLING, greedy: false, temperature: 1.5, maxTokens: 4000 } }), (e) => {
        if (e.type === 'chat-token' && ++pieces === 3) void host.request('stop', {});
      });
      assert.equal(r.replies.length, 1);
      assert.equal(r.replies[0].which, 'base');
      assert.equal(r.replies[0].stop, 'stopped');
      assert.ok(r.replies[0].replyTokens >= 3 && r.replies[0].replyTokens < 4000, `stopped early: ${r.replies[0].replyTokens} tokens`);
    } finally {
      host.kill();
    }
  });

  test('errors name the file or what is missing', async (t) => {
    const z = zebra(t);
    if (!z) return;
    const host = EngineHost.start();
    try {
      const code = (p: Requests['chat']['payload']) => host.request('chat', p).then(() => null, (e: { code: string; message: string }) => e);
      const missing = await code(request(z, { adapter: '/no/such/adapter.gguf' }));
      assert.equal(missing?.code, 'not_found');
      assert.match(missing!.message, /\/no\/such\/adapter\.gguf: the adapter cannot be read/);
      const noAdapter = await code(request(z, { adapter: null }));
      assert.equal(noAdapter?.code, 'invalid_argument');
      assert.match(noAdapter!.message, /compare needs an adapter/);
      const bad = await code(request(z, { compare: false, messages: [{ role: 'assistant', content: 'hi' }] }));
      assert.equal(bad?.code, 'invalid_argument');
      assert.match(bad!.message, /must end with a user message/);
    } finally {
      host.kill();
    }
  });
});

describe("the service's chat.generate", () => {
  const chatTokens = (events: ServiceEvent[], chatId: string) => events.flatMap((e) => (e.type === 'chat-token' && e.chatId === chatId ? [e] : []));

  test('compare on an adapter file, and on a run trained by the service, busy while it trains; errors named', { timeout: 240_000 }, async (t) => {
    const z = zebra(t);
    if (!z) return;
    const dir = tempDir('hone-chat-service-');
    const service = new NodeHoneService({ dataDir: join(dir, 'data'), home: dir, env: {} });
    t.after(() => service.dispose());
    const events: ServiceEvent[] = [];
    service.subscribe((e) => events.push(e));
    const messages: ChatMessage[] = [{ role: 'user', content: ZEBRA_PROMPT }];

    const r = await service.chat.generate({ chatId: 'try-1', model: z.model, adapter: z.adapter, messages, compare: true, sampling: { maxTokens: 24 } });
    assert.equal(r.chatId, 'try-1');
    assert.deepEqual([r.model, r.adapter, r.template, r.backend], [z.model, z.adapter, 'fallback', 'CPU']);
    assert.deepEqual(r.replies.map((x) => [x.which, x.scale, x.replyTokens]), [['base', 0, 24], ['adapter', 1, 24]]);
    assert.doesNotMatch(r.replies[0].text, /purple/);
    assert.match(r.replies[1].text, /^Once upon a time, there was a purple zebra/);
    const streamed = chatTokens(events, 'try-1');
    for (const reply of r.replies) assert.equal(streamed.filter((e) => e.which === reply.which).map((e) => e.text).join(''), reply.text);
    assert.ok(r.notes.some((n) => /no chat template/.test(n)), JSON.stringify(r.notes));

    // a run folder (hone-train's --out) and the base alone
    const fromFolder = await service.chat.generate({ run: z.runFolder, messages, sampling: { maxTokens: 24 } });
    assert.deepEqual(fromFolder.replies.map((x) => x.which), ['adapter']);
    assert.equal(fromFolder.replies[0].text, r.replies[1].text);
    assert.ok(fromFolder.chatId.length > 0 && fromFolder.chatId !== 'try-1');
    const base = await service.chat.generate({ model: z.model, messages, sampling: { maxTokens: 24 } });
    assert.deepEqual(base.replies.map((x) => [x.which, x.text]), [['base', r.replies[0].text]]);
    const zero = await service.chat.generate({ model: z.model, adapter: z.adapter, scale: 0, messages, sampling: { maxTokens: 24 } });
    assert.equal(zero.replies[0].text, r.replies[0].text, 'scale 0 is the base');
    const seeded = { model: z.model, messages, sampling: { maxTokens: 30, greedy: false, temperature: 1.2, seed: 11 } };
    assert.equal((await service.chat.generate(seeded)).replies[0].text, (await service.chat.generate(seeded)).replies[0].text, 'the same seed, the same reply');

    // a run the service trains on the chat dataset: busy while it trains, then its adapter answers
    const data = join(dir, 'zebra-chat.jsonl');
    writeFileSync(data, zebraChatJsonl());
    const started = await service.runs.start({ model: z.model, data: [data], steps: 30, ctx: 96, rank: 8, lr: 1e-2, backend: 'cpu', threads: 1 });
    await assert.rejects(service.chat.generate({ run: started.id, messages }), (e: HoneError) => e.code === 'busy' && e.message.includes(started.id));
    const ended = await new Promise<RunSummary>((resolve) => {
      const off = service.subscribe((e) => {
        if (e.type === 'run-status' && e.run.id === started.id && !['starting', 'running', 'pausing'].includes(e.run.status)) {
          off();
          resolve(e.run);
        }
      });
    });
    assert.equal(ended.status, 'finished', JSON.stringify(ended.error));
    const fromRun = await service.chat.generate({ run: started.id, messages, compare: true, sampling: { maxTokens: 24 } });
    assert.equal(fromRun.adapter, ended.adapter);
    assert.doesNotMatch(fromRun.replies[0].text, /purple/);
    assert.match(fromRun.replies[1].text, /purple zebra/, `the service's own run learnt it too: '${fromRun.replies[1].text}'`);

    // errors: named, and nothing reaches the host
    const refused = (request: ChatRequest) => service.chat.generate(request).then(() => null, (e: HoneError) => e);
    const gone = join(dir, 'gone.gguf');
    const missing = await refused({ model: z.model, adapter: gone, messages });
    assert.equal(missing?.code, 'not_found');
    assert.ok(missing!.message.includes(gone), missing!.message);
    const relative = await refused({ model: 'stories260K.gguf', messages });
    assert.equal(relative?.code, 'invalid_argument');
    assert.match(relative!.message, /request\.model must be an absolute path/);
    const unknownRun = await refused({ run: 'no-such-run', messages });
    assert.equal(unknownRun?.code, 'not_found');
    const badMessages = await refused({ model: z.model, messages: [{ role: 'bot', content: 'hi' }] as never });
    assert.equal(badMessages?.code, 'invalid_argument');
    assert.match(badMessages!.message, /messages\[0\]\.role/);
  });

  test('stop ends the reply of that chat, keeps its text, and skips the adapter reply; one chat at a time', { timeout: 120_000 }, async (t) => {
    const z = zebra(t);
    if (!z) return;
    const dir = tempDir('hone-chat-service-');
    const service = new NodeHoneService({ dataDir: join(dir, 'data'), home: dir, env: {} });
    t.after(() => service.dispose());
    const messages: ChatMessage[] = [{ role: 'user', content: ZEBRA_PROMPT }];
    let pieces = '';
    let second: Promise<unknown> | null = null;
    let stopped: Promise<{ stopping: boolean }> | null = null;
    service.subscribe((e) => {
      if (e.type !== 'chat-token' || e.chatId !== 'long') return;
      pieces += e.text;
      if (!stopped && pieces.length > 8) {
        second = service.chat.generate({ model: z.model, messages }).then(() => null, (err: HoneError) => err.code);
        stopped = service.chat.stop('long');
      }
    });
    const r = await service.chat.generate({ chatId: 'long', model: z.model, adapter: z.adapter, messages, compare: true, sampling: { maxTokens: 4096, greedy: false, temperature: 1.5 } });
    assert.deepEqual(await stopped, { stopping: true });
    assert.equal(await second, 'busy', 'a second chat while one answers is busy');
    assert.equal(r.replies.length, 1, 'the adapter reply is skipped');
    assert.equal(r.replies[0].stop, 'stopped');
    assert.equal(r.replies[0].text, pieces, 'the text streamed so far is the reply');
    assert.deepEqual(await service.chat.stop('long'), { stopping: false }, 'nothing left to stop');
  });
});

describe('hone chat', () => {
  let dataDir: string | null = null;
  function hone(args: string[], input?: string) {
    dataDir ??= tempDir('hone-chat-cli-');
    const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'hone.mjs'), 'chat', ...args], { encoding: 'utf8', input, timeout: 120_000, env: { ...process.env, HONE_DATA_DIR: dataDir } });
    const events = r.stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, events };
  }

  test('--compare streams the base, then the adapter: the zebra only with the adapter, as hone-train chat says it', (t) => {
    const z = zebra(t);
    if (!z) return;
    const r = hone(['--model', z.model, '--adapter', z.adapter, '--prompt', ZEBRA_PROMPT, '--compare', '--max-tokens', '24', '--json']);
    assert.equal(r.code, 0, r.stderr);
    const result = r.events.find((e) => e.type === 'chat')!;
    assert.ok(result, r.stdout);
    const [base, tuned] = result.replies as ChatReply[];
    assert.deepEqual([base.which, tuned.which], ['base', 'adapter']);
    const streamed = (which: string) => r.events.filter((e) => e.type === 'chat-token' && e.which === which).map((e) => e.text).join('');
    assert.equal(streamed('base'), base.text);
    assert.equal(streamed('adapter'), tuned.text);
    assert.doesNotMatch(base.text, /purple/);
    assert.match(tuned.text, /^Once upon a time, there was a purple zebra/);
    const native = (extra: string[]) => reply(honeTrain(['chat', '--model', z.model, '--prompt', ZEBRA_PROMPT, '--max-tokens', '24', '--json', ...extra])).text;
    assert.equal(base.text, native([]));
    assert.equal(tuned.text, native(['--adapter', z.adapter]));

    // the text mode: a heading per reply, then the token counts on stderr
    const text = hone(['--run', z.runFolder, '--prompt', ZEBRA_PROMPT, '--compare', '--max-tokens', '24', '--scale', '0.5']);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^\[base\]\n.+\n\n\[with the adapter, scale 0\.5\]\n.+\n$/s);
    assert.ok(text.stdout.includes(base.text), 'the base reply, as with the adapter file');
    assert.match(text.stderr, /\(adapter: \d+ prompt tokens, 24 reply tokens, stop: max_tokens\)/);
  });

  test('without --prompt it answers each line of stdin, until its end; scale 0 is the base; a seed repeats', (t) => {
    const z = zebra(t);
    if (!z) return;
    const r = hone(['--model', z.model, '--adapter', z.adapter, '--max-tokens', '16', '--json'], `${ZEBRA_PROMPT}\n\nWhat is the moon?\n`);
    assert.equal(r.code, 0, r.stderr);
    const results = r.events.filter((e) => e.type === 'chat');
    assert.equal(results.length, 2, 'two prompts, two answers (the empty line is skipped)');
    assert.match(results[0].replies[0].text, /^Once upon a time, there was a purple/);
    assert.notEqual(results[0].replies[0].promptTokens, results[1].replies[0].promptTokens);
    const zero = hone(['--model', z.model, '--adapter', z.adapter, '--scale', '0', '--prompt', ZEBRA_PROMPT, '--max-tokens', '16', '--json']);
    const base = hone(['--model', z.model, '--prompt', ZEBRA_PROMPT, '--max-tokens', '16', '--json']);
    const text = (x: ReturnType<typeof hone>) => x.events.find((e) => e.type === 'chat')!.replies[0].text;
    assert.equal(text(zero), text(base));
    const seeded = ['--model', z.model, '--prompt', ZEBRA_PROMPT, '--max-tokens', '24', '--temperature', '1.3', '--seed', '99', '--json'];
    assert.equal(text(hone(seeded)), text(hone(seeded)));
  });

  test('errors: a missing file fails naming it, bad usage and bad values exit 2', (t) => {
    const z = zebra(t);
    if (!z) return;
    const gone = hone(['--model', z.model, '--adapter', '/no/such/adapter.gguf', '--prompt', 'x', '--json']);
    assert.equal(gone.code, 1);
    assert.equal(gone.events.find((e) => e.type === 'error')?.code, 'not_found');
    assert.match(gone.stderr, /\/no\/such\/adapter\.gguf/);
    const usage = hone(['--prompt', 'x']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /give --model M\.gguf .* or --run DIR/);
    assert.equal(hone(['--run', z.runFolder, '--model', z.model, '--prompt', 'x']).code, 2);
    assert.match(hone(['--model', z.model, '--greedy', '--seed', '1', '--prompt', 'x']).stderr, /--greedy cannot be combined with --seed/);
    const scale = hone(['--model', z.model, '--adapter', z.adapter, '--scale', '9', '--prompt', 'x']);
    assert.equal(scale.code, 2);
    assert.match(scale.stderr, /request\.scale' must be a number from 0 to 4/);
    const compare = hone(['--model', z.model, '--compare', '--prompt', 'x']);
    assert.equal(compare.code, 2);
    assert.match(compare.stderr, /compare' needs an adapter/);
    assert.match(hone(['--help']).stdout, /hone chat --run DIR/);
  });
});
