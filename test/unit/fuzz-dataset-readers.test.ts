/**
 * Seeded fuzzing of the dataset import (test/helpers/fuzz/dataset-target.ts): damaged copies of
 * the real fixtures in every format never throw out of the import, never hang, and give a
 * report whose problems carry known codes and name the file. scripts/fuzz.ts runs many more.
 */
import { test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { fuzzSuite } from '../helpers/fuzz/suite.ts';

test('damaged dataset files in every format: problems in the report, no crash, no hang', async (t) => {
  if (!requireFixture(t, 'chat_elements_limericks.jsonl') || !requireFixture(t, 'tinyshakespeare.txt')) return;
  await fuzzSuite(t, 'dataset-readers', 600);
});
