/**
 * Seeded fuzzing of web mode's request checks (test/helpers/fuzz/web-request-target.ts): damaged
 * WebSocket frames of every service call are refused as invalid_argument or unknown_request by
 * name, never a crash or `internal`; upload names come out as one safe file name or a refusal.
 */
import { test } from 'node:test';
import { fuzzSuite } from '../helpers/fuzz/suite.ts';

test('damaged WebSocket calls: a named refusal or a valid call, never a crash', async (t) => {
  await fuzzSuite(t, 'web-requests', 400);
});

test('upload names with separators, control characters, dots and long runs: a safe name or invalid_argument', async (t) => {
  await fuzzSuite(t, 'upload-names', 1000);
});
