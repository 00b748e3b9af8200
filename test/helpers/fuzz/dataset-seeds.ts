/**
 * The dataset files the fuzzer starts from, each made from a real fixture: the limericks chat
 * file as published, and the same conversations written in every other format the importer
 * reads (JSON array, ShareGPT, Alpaca, prompt/completion, tool calls, CSV, TSV), plus
 * tinyshakespeare as text records and as plain text. Read once per process.
 */
import { readFileSync } from 'node:fs';
import { fixturePath } from '../fixtures.ts';

export interface DatasetSeed {
  name: string;
  /** The file name's extension decides the family, as it does for a user's file. */
  ext: string;
  bytes: Uint8Array;
}

interface Chat {
  system: string;
  user: string;
  assistant: string;
}

const csvField = (s: string) => `"${s.replace(/"/g, '""')}"`;
const lines = (records: unknown[]) => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

export function datasetSeeds(): DatasetSeed[] {
  const limericks = readFileSync(fixturePath('chat_elements_limericks.jsonl'));
  const shakespeare = readFileSync(fixturePath('tinyshakespeare.txt'), 'utf8');
  const chats: Chat[] = limericks
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const messages = (JSON.parse(l) as { messages: Array<{ role: string; content: string }> }).messages;
      const of = (role: string) => messages.find((m) => m.role === role)?.content ?? '';
      return { system: of('system'), user: of('user'), assistant: of('assistant') };
    });
  const speeches = shakespeare.slice(0, 6000).split('\n\n').filter((s) => s.trim() !== '');
  const toolChat = (c: Chat, i: number) => ({
    messages: [
      { role: 'system', content: c.system },
      { role: 'user', content: c.user },
      { role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'find_limerick', arguments: JSON.stringify({ question: c.user }) } }] },
      { role: 'tool', tool_call_id: `call_${i}`, content: c.assistant },
      { role: 'assistant', content: c.assistant },
    ],
    tools: [{ type: 'function', function: { name: 'find_limerick', parameters: { type: 'object', properties: { question: { type: 'string' } } } } }],
  });
  const text = (s: string) => new TextEncoder().encode(s);
  return [
    { name: 'limericks (OpenAI chat, as published)', ext: 'jsonl', bytes: new Uint8Array(limericks) },
    { name: 'limericks as a JSON array', ext: 'json', bytes: text(`[\n${limericks.toString('utf8').trim().split('\n').join(',\n')}\n]\n`) },
    { name: 'limericks as ShareGPT', ext: 'jsonl', bytes: text(lines(chats.map((c) => ({ system: c.system, conversations: [{ from: 'human', value: c.user }, { from: 'gpt', value: c.assistant }] })))) },
    {
      name: 'limericks as ShareGPT tool calls',
      ext: 'json',
      bytes: text(JSON.stringify(chats.map((c) => ({
        conversations: [
          { from: 'human', value: c.user },
          { from: 'function_call', value: JSON.stringify({ name: 'find_limerick', arguments: { question: c.user } }) },
          { from: 'observation', value: c.assistant },
          { from: 'gpt', value: c.assistant },
        ],
        tools: JSON.stringify([{ name: 'find_limerick' }]),
      })), null, 1)),
    },
    { name: 'limericks as Alpaca', ext: 'jsonl', bytes: text(lines(chats.map((c) => ({ system: c.system, instruction: c.user, input: '', output: c.assistant, history: [[c.user, c.assistant]] })))) },
    { name: 'limericks as prompt/completion', ext: 'jsonl', bytes: text(lines(chats.map((c) => ({ prompt: c.user, completion: c.assistant })))) },
    { name: 'limericks with OpenAI tool calls', ext: 'jsonl', bytes: text(lines(chats.map(toolChat))) },
    { name: 'tinyshakespeare speeches as text records', ext: 'jsonl', bytes: text(lines(speeches.map((s) => ({ text: s })))) },
    { name: 'limericks as CSV', ext: 'csv', bytes: text(['system,prompt,completion', ...chats.map((c) => [c.system, c.user, c.assistant].map(csvField).join(','))].join('\r\n') + '\r\n') },
    { name: 'limericks as TSV', ext: 'tsv', bytes: text(['instruction\tresponse', ...chats.map((c) => [c.user, c.assistant].map(csvField).join('\t'))].join('\n') + '\n') },
    { name: 'tinyshakespeare speeches as a CSV text column', ext: 'csv', bytes: text(['text', ...speeches.map(csvField)].join('\n') + '\n') },
    { name: 'tinyshakespeare, first 6000 characters', ext: 'txt', bytes: text(shakespeare.slice(0, 6000)) },
    { name: 'tinyshakespeare, first 3000 characters as Markdown', ext: 'md', bytes: text(shakespeare.slice(0, 3000)) },
  ];
}
