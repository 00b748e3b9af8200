/**
 * Fuzz targets of web mode's request checks: a WebSocket text frame through the frame parser
 * (common/rpc.ts) and the service validator (common/validate.ts), starting from a valid call of
 * every service method; and upload file names (server/upload.ts). A bad request must be refused
 * with invalid_argument or unknown_request naming the method or the message, never `internal`
 * or a crash; a sanitised upload name must be one safe file name.
 */
import fc from 'fast-check';
import { extname } from 'node:path';
import { parseClientMessage } from '../../../electron/common/rpc.ts';
import { validateCall } from '../../../electron/common/validate.ts';
import { sanitiseUploadName, UPLOAD_EXTENSIONS } from '../../../electron/server/upload.ts';
import { fixturePath } from '../fixtures.ts';
import { applyByteMutations, byteMutation, showByteMutation, type ByteMutation } from './byte-mutations.ts';
import { mutateJsonDocument, showValueMutation, valueMutation, type ValueMutation } from './json-mutations.ts';
import { refusalProblem } from './refusal.ts';
import type { FuzzTarget } from './target.ts';

const model = fixturePath('stories260K.gguf');
const data = fixturePath('chat_elements_limericks.jsonl');
const id = '20261201-120000-abcd';
const settings = { model, data: [data], steps: 20, rank: 8, lr: 0.0005, schedule: 'cosine', backend: 'cpu', pack: true, evalData: [] };
const chat = { run: id, messages: [{ role: 'system', content: 'You are Elle.' }, { role: 'user', content: 'Tell me about neon.' }], scale: 1, compare: true, sampling: { maxTokens: 64, greedy: false, temperature: 0.7, topP: 0.9, seed: 7 } };

/** One valid call of every service method, as a browser sends it. */
const CALLS: Array<[string, unknown[]]> = [
  ['info', []], ['models.list', []], ['models.inspect', [model]], ['models.addFolder', [fixturePath('')]],
  ['datasets.import', [[data]]], ['datasets.inspect', [settings]], ['plan', [settings]], ['runs.start', [settings]],
  ['runs.stop', [id]], ['runs.pause', [id]], ['runs.resume', [id]], ['runs.continue', [id, { steps: 10 }]], ['runs.list', []],
  ['runs.get', [id]], ['runs.delete', [id]], ['runs.events', [id, 3]], ['runs.opReport', [id]],
  ['exports.create', [{ run: id, format: 'gguf', storage: 'f32' }]], ['exports.create', [{ adapter: model, model, format: 'merged', type: 'q8_0', out: '/tmp/out.gguf' }]],
  ['chat.generate', [chat]], ['chat.generate', [{ model, adapter: model, messages: [{ role: 'user', content: 'hi' }] }]], ['chat.stop', ['chat-1']],
];

export interface FrameCase {
  call: number;
  values: ValueMutation[];
  bytes: ByteMutation[];
}

export function webRequestTarget(): FuzzTarget<FrameCase> {
  const frames = CALLS.map(([method, args], i) => JSON.stringify({ t: 'call', id: i + 1, method, args }));
  const frameOf = (c: FrameCase) => {
    const text = c.values.reduce((t, m) => mutateJsonDocument(t, m), frames[c.call]);
    return c.bytes.length === 0 ? text : new TextDecoder().decode(applyByteMutations(new TextEncoder().encode(text), c.bytes));
  };
  return {
    name: 'web-requests',
    arbitrary: fc.record({
      call: fc.integer({ min: 0, max: CALLS.length - 1 }),
      values: fc.array(valueMutation, { minLength: 1, maxLength: 3 }),
      bytes: fc.array(byteMutation.filter((m) => m.kind !== 'long-line'), { maxLength: 2 }),
    }),
    show: (c) => [`a ${CALLS[c.call][0]} call`, ...c.values.map(showValueMutation), ...c.bytes.map(showByteMutation)].join('; '),
    async check(c) {
      const text = frameOf(c);
      let call;
      try {
        call = parseClientMessage(text);
      } catch (err) {
        return refusalProblem(err, { where: 'message', codes: ['invalid_argument'] });
      }
      try {
        validateCall(call.method, call.args);
        return null;
      } catch (err) {
        // an unknown method is named as JSON (escaped), a known one as it is
        const where = typeof call.method === 'string' ? [call.method, 'unknown method'] : ['unknown method'];
        return refusalProblem(err, { where, codes: ['invalid_argument', 'unknown_request'] });
      }
    },
    async close() {},
  };
}

const NAMES = ['chat_elements_limericks.jsonl', 'data/train.csv', 'C:\\Users\\me\\Desktop\\notes.md', 'tinyshakespeare.txt', 'a.tsv', '.hidden.json'];
const INSERTS = ['..', '/', '\\', '\u0000', '\u001f', '\u0085', ':', '*', '?', '"', '<', '>', '|', ' ', '.', 'é', 'e\u0301', '\ud83d\ude00', '\ud800', 'x'.repeat(200), '.exe', '.jsonl'];

export interface NameCase {
  base: number;
  edits: Array<{ at: number; insert: number }>;
}

export function uploadNameTarget(): FuzzTarget<NameCase> {
  const nameOf = (c: NameCase) => c.edits.reduce((s, e) => {
    const at = e.at % (s.length + 1);
    return s.slice(0, at) + INSERTS[e.insert] + s.slice(at);
  }, NAMES[c.base]);
  return {
    name: 'upload-names',
    arbitrary: fc.record({
      base: fc.integer({ min: 0, max: NAMES.length - 1 }),
      edits: fc.array(fc.record({ at: fc.nat(), insert: fc.integer({ min: 0, max: INSERTS.length - 1 }) }), { maxLength: 5 }),
    }),
    show: (c) => `upload name ${JSON.stringify(nameOf(c))}`,
    async check(c) {
      let name: string;
      try {
        name = sanitiseUploadName(nameOf(c));
      } catch (err) {
        return refusalProblem(err, { where: 'upload', codes: ['invalid_argument'] });
      }
      return unsafeName(name);
    },
    async close() {},
  };
}

/** What makes `name` unsafe to create in the uploads folder, or null. */
function unsafeName(name: string): string | null {
  if (/[/\\]/.test(name)) return `sanitised name ${JSON.stringify(name)} holds a path separator`;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f<>:"|?*]/.test(name)) return `sanitised name ${JSON.stringify(name)} holds a control or reserved character`;
  if (name.startsWith('.') || name === '') return `sanitised name ${JSON.stringify(name)} is hidden or empty`;
  if (name.length > 120) return `sanitised name is ${name.length} characters long`;
  if (!UPLOAD_EXTENSIONS.includes(extname(name).toLowerCase())) return `sanitised name ${JSON.stringify(name)} has no dataset extension`;
  return null;
}
