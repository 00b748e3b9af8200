/**
 * `hone chat`: try an adapter in a terminal (docs/chat.md), through the service's chat.generate,
 * so the command answers exactly as the app does. With --prompt it answers once; without, it
 * reads prompts line by line from stdin (each line a new conversation) until Ctrl-D. Ctrl-C
 * stops the reply in progress; when no reply runs it ends the command.
 */
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import type { ChatRequest, ChatResult, ChatSampling } from '../common/chat.ts';
import { HoneError, toPlain } from '../common/errors.ts';
import type { ServiceEvent } from '../common/service.ts';
import { resolveDataDir } from '../services/data-dir.ts';
import { runArg } from './export.ts';

export const CHAT_USAGE = `usage:
  hone chat --model M.gguf [--adapter A.gguf] [options]    the base, or the base with an adapter file
  hone chat --run DIR [options]                            a run's adapter and its base (a run folder or run id)

  --prompt "..."     the user message to answer; without it, prompts are read line by line from stdin
                     (each line a new conversation; Ctrl-D ends)
  --system "..."     a system message before each prompt
  --compare          the base answers first, then the base with the adapter (same prompt, same sampling)
  --scale S          the adapter's strength, 0..4 (0: the base; default 1)
  --max-tokens N     reply tokens at most, 1..4096 (default 256)
  --greedy           the most likely token each step: the same reply every time (the default)
  --temperature T    sample instead, with this temperature (0..5]; --top-p P (default 0.95), --seed S (default 42)
  --backend B        cpu (default), auto (a GPU if there is one), cuda or metal
  --data-dir D       Hone's data folder, for a run id (default: $HONE_DATA_DIR, else the platform's)
  --json             one JSON object per line: chat-token events, then {"type":"chat", ...} per prompt
Exit codes: 0 answered, 1 failed, 2 bad usage.
docs/chat.md describes the chat and its output.`;

const VALUE_FLAGS = ['model', 'adapter', 'run', 'prompt', 'system', 'scale', 'max-tokens', 'temperature', 'top-p', 'seed', 'backend', 'data-dir'] as const;
const BOOL_FLAGS = ['compare', 'greedy', 'json', 'help'] as const;

export interface ChatArgs {
  /** The request without its messages. */
  request: Omit<ChatRequest, 'messages'>;
  prompt: string | null;
  system: string | null;
  dataDir: string | null;
  json: boolean;
  help: boolean;
}

function number(name: string, v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new HoneError('bad_config', `hone chat: --${name} expects a number (got '${v}')`);
  return n;
}

export function parseChatArgs(argv: string[]): ChatArgs {
  const given: Record<string, string> = {};
  const flags = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h') { flags.add('help'); continue; }
    if (!a.startsWith('--')) throw new HoneError('bad_config', `hone chat: unexpected argument '${a}' (options start with --)`);
    const eq = a.indexOf('=');
    const name = a.slice(2, eq >= 0 ? eq : undefined);
    if ((BOOL_FLAGS as readonly string[]).includes(name) && eq < 0) { flags.add(name); continue; }
    if (!(VALUE_FLAGS as readonly string[]).includes(name)) throw new HoneError('bad_config', `hone chat: unknown option '--${name}'`);
    let value: string;
    if (eq >= 0) value = a.slice(eq + 1);
    else if (i + 1 < argv.length) value = argv[++i];
    else throw new HoneError('bad_config', `hone chat: option '--${name}' needs a value`);
    if (name in given) throw new HoneError('bad_config', `hone chat: '--${name}' is given twice`);
    given[name] = value;
  }
  const args: ChatArgs = { request: {}, prompt: given.prompt ?? null, system: given.system ?? null, dataDir: given['data-dir'] ?? null, json: flags.has('json'), help: flags.has('help') };
  if (args.help) return args;
  if (given.run === undefined && given.model === undefined) throw new HoneError('bad_config', 'hone chat: give --model M.gguf (with --adapter A.gguf to try an adapter), or --run DIR');
  if (given.run !== undefined && (given.model !== undefined || given.adapter !== undefined)) throw new HoneError('bad_config', 'hone chat: --run and --model/--adapter cannot be used together (a run names its model)');
  const sampled = ['temperature', 'top-p', 'seed'].filter((k) => given[k] !== undefined);
  if (flags.has('greedy') && sampled.length) throw new HoneError('bad_config', `hone chat: --greedy cannot be combined with ${sampled.map((k) => `--${k}`).join(', ')}`);
  const r: Omit<ChatRequest, 'messages'> = {};
  if (given.run !== undefined) r.run = runArg(given.run);
  if (given.model !== undefined) r.model = resolve(given.model);
  if (given.adapter !== undefined) r.adapter = resolve(given.adapter);
  if (given.scale !== undefined) r.scale = number('scale', given.scale);
  if (flags.has('compare')) r.compare = true;
  if (given.backend !== undefined) r.backend = given.backend as ChatRequest['backend'];
  const sampling: Partial<ChatSampling> = {};
  if (given['max-tokens'] !== undefined) sampling.maxTokens = number('max-tokens', given['max-tokens']);
  if (sampled.length) {
    sampling.greedy = false;
    if (given.temperature !== undefined) sampling.temperature = number('temperature', given.temperature);
    if (given['top-p'] !== undefined) sampling.topP = number('top-p', given['top-p']);
    if (given.seed !== undefined) sampling.seed = number('seed', given.seed);
  }
  if (Object.keys(sampling).length) r.sampling = sampling;
  args.request = r;
  return args;
}

type ChatService = {
  chat: { generate(r: ChatRequest): Promise<ChatResult>; stop(id: string): Promise<{ stopping: boolean }> };
  subscribe(l: (e: ServiceEvent) => void): () => void;
  dispose(): Promise<void>;
};

/** Streams one prompt's replies to stdout (text: a heading per reply when comparing). */
async function answer(service: ChatService, args: ChatArgs, prompt: string, n: number, running: { chatId: string | null }): Promise<ChatResult> {
  const chatId = `cli-${process.pid}-${n}`;
  const messages: ChatRequest['messages'] = args.system !== null ? [{ role: 'system', content: args.system }] : [];
  messages.push({ role: 'user', content: prompt });
  const scale = args.request.scale ?? 1;
  let current: string | null = null;
  const off = service.subscribe((e) => {
    if (e.type !== 'chat-token' || e.chatId !== chatId) return;
    if (args.json) {
      process.stdout.write(JSON.stringify(e) + '\n');
      return;
    }
    if (args.request.compare && current !== e.which) {
      process.stdout.write(`${current ? '\n\n' : ''}${e.which === 'base' ? '[base]' : `[with the adapter, scale ${scale}]`}\n`);
    }
    current = e.which;
    process.stdout.write(e.text);
  });
  running.chatId = chatId;
  try {
    const r = await service.chat.generate({ ...args.request, chatId, messages });
    if (args.json) process.stdout.write(JSON.stringify({ type: 'chat', ...r }) + '\n');
    else {
      process.stdout.write('\n');
      for (const reply of r.replies) process.stderr.write(`(${reply.which}: ${reply.promptTokens} prompt tokens, ${reply.replyTokens} reply tokens, stop: ${reply.stop})\n`);
      for (const note of r.notes) process.stderr.write(`note: ${note}\n`);
    }
    return r;
  } finally {
    running.chatId = null;
    off();
  }
}

export async function chatCommand(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  let service: ChatService | null = null;
  const running: { chatId: string | null } = { chatId: null };
  let interrupted = false;
  const onSigint = () => {
    if (running.chatId && service) void service.chat.stop(running.chatId).catch(() => {});
    else interrupted = true;
  };
  try {
    const args = parseChatArgs(argv);
    if (args.help) {
      console.log(CHAT_USAGE);
      return 0;
    }
    const { NodeHoneService } = await import('../services/hone-service.ts');
    service = new NodeHoneService({ dataDir: resolveDataDir(args.dataDir) });
    process.on('SIGINT', onSigint);
    if (args.prompt !== null) {
      await answer(service, args, args.prompt, 1, running);
      return 0;
    }
    const tty = process.stdin.isTTY === true;
    const lines = createInterface({ input: process.stdin, terminal: false });
    const ask = () => tty && process.stderr.write('> ');
    ask();
    let n = 0;
    let failed = false;
    for await (const line of lines) {
      if (interrupted) break;
      if (line.trim() === '') { ask(); continue; }
      try {
        await answer(service, args, line, ++n, running);
      } catch (err) {
        // one prompt that fails (too long for the context, say) does not end the session
        failed = true;
        const p = toPlain(err);
        if (json) process.stdout.write(JSON.stringify({ type: 'error', ...p }) + '\n');
        process.stderr.write(`hone: error: ${p.message}\n`);
      }
      ask();
    }
    if (tty) process.stderr.write('\n');
    return failed ? 1 : 0;
  } catch (err) {
    const p = toPlain(err);
    if (json) process.stdout.write(JSON.stringify({ type: 'error', ...p }) + '\n');
    process.stderr.write(`hone: error: ${p.message}${p.code === 'bad_config' ? ' (hone chat --help)' : ''}\n`);
    return p.code === 'bad_config' || p.code === 'invalid_argument' ? 2 : 1;
  } finally {
    process.off('SIGINT', onSigint);
    await service?.dispose();
  }
}
