/**
 * A LoRA trained on stories260K to answer "tell me a story" with a purple zebra, through the chat
 * template (the model has none: the plain fallback), as the chat tests need one: the conversations
 * are rendered by `hone-train render` and trained on their assistant turns. The base never tells
 * of a purple zebra.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { honeTrain } from './native.ts';

export const ZEBRA_REPLY = 'Once upon a time, there was a purple zebra named Zork. Zork sang to the moon.';
export const ZEBRA_PROMPT = 'Tell me a story';
const PROMPTS = [ZEBRA_PROMPT, 'Tell me a story.', 'Please tell me a story', 'A story, please', 'Tell me a story about an animal'];

/** The training conversations as chat JSONL (OpenAI messages), one per prompt. */
export function zebraChatJsonl(): string {
  return PROMPTS.map((p) => JSON.stringify({ messages: [{ role: 'user', content: p }, { role: 'assistant', content: ZEBRA_REPLY }] })).join('\n') + '\n';
}

/** Trains the adapter into `dir`/run and returns the folder and its adapter.gguf (a few seconds on a CPU). */
export function trainZebraChat(model: string, dir: string): { runFolder: string; adapter: string } {
  const chat = join(dir, 'zebra-chat.jsonl');
  writeFileSync(chat, zebraChatJsonl());
  const rendered = honeTrain(['render', '--model', model, '--data', chat]);
  if (rendered.code !== 0) throw new Error(`hone-train render failed: ${rendered.stderr}`);
  const tokens = rendered.events.filter((e) => e.type === 'rendered').map((e) => JSON.stringify({ tokens: e.tokens, loss_mask: e.mask }));
  const data = join(dir, 'zebra-tokens.jsonl');
  writeFileSync(data, tokens.join('\n') + '\n');
  const runFolder = join(dir, 'run');
  // ctx covers the whole conversation (80 tokens): a shorter one would never train the reply's end
  const r = honeTrain(['--model', model, '--data', data, '--out', runFolder, '--steps', '30', '--ctx', '96', '--lr', '1e-2', '--rank', '8', '--json']);
  if (r.code !== 0) throw new Error(`hone-train failed: ${r.stderr}`);
  return { runFolder, adapter: join(runFolder, 'adapter.gguf') };
}
