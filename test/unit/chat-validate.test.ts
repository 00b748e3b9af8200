// chat.generate's and chat.stop's arguments as every transport checks them: a run or a model (with
// an optional adapter), a conversation of bounded size ending with the user, scale 0..4, sampling
// within its bounds, compare only with an adapter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHAT_LIMITS } from '../../electron/common/chat.ts';
import type { HoneError } from '../../electron/common/errors.ts';
import { SERVICE_METHODS } from '../../electron/common/service.ts';
import { validateCall } from '../../electron/common/validate.ts';

const user = (content = 'Tell me a story') => ({ role: 'user', content });
const ok = (request: Record<string, unknown>) => assert.doesNotThrow(() => validateCall('chat.generate', [request]), JSON.stringify(request).slice(0, 200));
const refused = (request: unknown, pattern: RegExp) =>
  assert.throws(
    () => validateCall('chat.generate', [request]),
    (e: HoneError) => e.code === 'invalid_argument' && pattern.test(e.message) && e.message.startsWith('chat.generate: '),
    JSON.stringify(request).slice(0, 200),
  );

test('chat.generate takes one request; chat.stop one chat id', () => {
  assert.deepEqual(SERVICE_METHODS['chat.generate'], ['chat']);
  assert.deepEqual(SERVICE_METHODS['chat.stop'], ['chatId']);
  assert.throws(() => validateCall('chat.generate', [{ run: 'r1', messages: [user()] }, 2]), /takes at most 1/);
  assert.doesNotThrow(() => validateCall('chat.stop', ['chat-a1.b_2']));
  for (const bad of ['', '../x', 'a/b', 7, null, 'x'.repeat(129)]) {
    assert.throws(() => validateCall('chat.stop', [bad]), (e: HoneError) => e.code === 'invalid_argument' && /'chatId' is not a chat id/.test(e.message), String(bad));
  }
});

test('a run (id or folder), or a model with or without an adapter, passes', () => {
  ok({ run: '20261201-142233-ab12', messages: [user()] });
  ok({ run: '/home/me/runs/first', messages: [user()], compare: true, scale: 0.5 });
  ok({ model: '/m/base.gguf', messages: [user()] });
  ok({ model: '/m/base.gguf', adapter: '/a/adapter.gguf', messages: [{ role: 'system', content: 'Be brief.' }, user(), { role: 'assistant', content: 'Once…' }, user('more')], compare: true });
  ok({ chatId: 'chat-1', run: 'r1', messages: [user()], sampling: { maxTokens: 4096, greedy: false, temperature: 0.7, topP: 0.9, seed: 4294967295 }, backend: 'auto' });
  ok({ run: 'r1', messages: [user()], scale: undefined, sampling: { seed: undefined } });
});

test('the source: a run xor a model (an adapter needs its model); compare needs an adapter', () => {
  refused({ messages: [user()] }, /must give a run, or a model/);
  refused({ adapter: '/a.gguf', messages: [user()] }, /must give a run, or a model/);
  refused({ run: 'r1', model: '/m.gguf', messages: [user()] }, /both a run and adapter\/model/);
  refused({ run: '..', messages: [user()] }, /request\.run/);
  refused({ run: 42, messages: [user()] }, /request\.run.*run id or the path/);
  refused({ model: '', messages: [user()] }, /request\.model.*non-empty path/);
  refused({ model: '/m.gguf', adapter: 'a\0b', messages: [user()] }, /request\.adapter.*not a valid path/);
  refused({ model: '/m.gguf', messages: [user()], compare: true }, /compare.*needs an adapter/);
  refused({ run: 'r1', messages: [user()], compare: 'yes' }, /compare.*true or false/);
  refused({ run: 'r1', messages: [user()], format: 'gguf' }, /request\.format.*is not known/);
  refused({ run: 'r1', messages: [user()], chatId: 'a b' }, /request\.chatId/);
  refused({ run: 'r1', messages: [user()], backend: 'tpu' }, /request\.backend.*cpu, auto, cuda, metal/);
  refused(null, /must be an object/);
  refused([user()], /must be an object/);
});

test('messages: non-empty, known roles, system first only, string contents, bounded sizes, ending with the user', () => {
  refused({ run: 'r1' }, /request\.messages.*non-empty list/);
  refused({ run: 'r1', messages: [] }, /request\.messages.*non-empty list/);
  refused({ run: 'r1', messages: [{ role: 'tool', content: 'x' }, user()] }, /messages\[0\]\.role.*system, user, assistant/);
  refused({ run: 'r1', messages: [user(), { role: 'system', content: 'late' }, user()] }, /messages\[1\]\.role.*system can only be the first/);
  refused({ run: 'r1', messages: [{ role: 'user', content: 5 }] }, /messages\[0\]\.content.*must be a string/);
  refused({ run: 'r1', messages: [{ role: 'user', content: 'x', weight: 0 }] }, /messages\[0\]\.weight.*is not known/);
  refused({ run: 'r1', messages: ['hello'] }, /messages\[0\].*must be an object/);
  refused({ run: 'r1', messages: [user(), { role: 'assistant', content: 'Once' }] }, /must end with a user message/);
  refused({ run: 'r1', messages: [user('x'.repeat(CHAT_LIMITS.messageChars + 1))] }, /messages\[0\]\.content.*at most 32000 characters/);
  ok({ run: 'r1', messages: [user('x'.repeat(CHAT_LIMITS.messageChars))] });
  const many = Array.from({ length: CHAT_LIMITS.messages + 1 }, (_, i) => (i % 2 ? { role: 'assistant', content: 'a' } : user('u')));
  refused({ run: 'r1', messages: many }, /at most 64 messages/);
  const big = Array.from({ length: 5 }, (_, i) => (i % 2 ? { role: 'assistant', content: 'a'.repeat(30_000) } : user('u'.repeat(30_000))));
  refused({ run: 'r1', messages: big }, /at most 128000 characters in all/);
});

test('scale 0..4 and sampling within bounds', () => {
  ok({ run: 'r1', messages: [user()], scale: 0 });
  ok({ run: 'r1', messages: [user()], scale: 4 });
  for (const scale of [-0.1, 4.01, NaN, Infinity, '1']) refused({ run: 'r1', messages: [user()], scale }, /request\.scale.*from 0 to 4/);
  const sampling = (s: Record<string, unknown>, pattern: RegExp) => refused({ run: 'r1', messages: [user()], sampling: s }, pattern);
  sampling({ maxTokens: 0 }, /maxTokens.*whole number from 1 to 4096/);
  sampling({ maxTokens: 4097 }, /maxTokens.*from 1 to 4096/);
  sampling({ maxTokens: 2.5 }, /maxTokens.*whole number/);
  sampling({ temperature: 0 }, /temperature.*above 0 to 5/);
  sampling({ temperature: 5.5 }, /temperature/);
  sampling({ topP: 0 }, /topP.*above 0 to 1/);
  sampling({ topP: 1.01 }, /topP/);
  sampling({ seed: -1 }, /seed.*whole number from 0 to 4294967295/);
  sampling({ seed: 1.5 }, /seed/);
  sampling({ greedy: 'no' }, /greedy.*true or false/);
  sampling({ topK: 40 }, /sampling\.topK.*is not known/);
  refused({ run: 'r1', messages: [user()], sampling: 'greedy' }, /request\.sampling.*must be an object/);
});
