/**
 * Web-mode requests holding values nested thousands deep (found by the fuzz suite): the refusal
 * quoted the value with JSON.stringify, which ran out of stack, so the client got an `internal`
 * RangeError instead of the invalid_argument that names the field.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HoneError } from '../../electron/common/errors.ts';
import { parseClientMessage } from '../../electron/common/rpc.ts';
import { validateCall } from '../../electron/common/validate.ts';

const deep = () => JSON.parse('['.repeat(20_000) + ']'.repeat(20_000)) as unknown;
const refusal = (code: string, text: string) => (err: unknown) => err instanceof HoneError && err.code === code && err.message.includes(text);

test('a run id nested 20,000 deep is an invalid_argument naming the method and argument', () => {
  assert.throws(() => validateCall('runs.get', [deep()]), refusal('invalid_argument', "runs.get: 'id' is not a run id (got an array nested too deep to show)"));
});

test('a chat message nested 20,000 deep is an invalid_argument naming the message', () => {
  const request = { model: '/m.gguf', messages: [deep()] };
  assert.throws(() => validateCall('chat.generate', [request]), refusal('invalid_argument', "'request.messages[0]' must be an object"));
});

test('a method nested 20,000 deep is unknown_request', () => {
  assert.throws(() => validateCall(deep(), []), refusal('unknown_request', 'unknown method'));
});

test("a frame whose 't' is nested 20,000 deep is an invalid_argument about the message", () => {
  const frame = `{"t":${'['.repeat(20_000) + ']'.repeat(20_000)},"id":1,"method":"info","args":[]}`;
  assert.throws(() => parseClientMessage(frame), refusal('invalid_argument', "message field 't' must be 'call'"));
});
