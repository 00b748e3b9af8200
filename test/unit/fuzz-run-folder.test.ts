/**
 * Seeded fuzzing of what reads a run folder (test/helpers/fuzz/run-folder-target.ts): with its
 * files damaged or missing and odd checkpoint folders, runs.list still lists the run, and
 * runs.get / events / opReport, the checkpoint and adapter lookups and the export's token
 * statistics answer or refuse with a named error.
 */
import { test } from 'node:test';
import { requireFixture } from '../helpers/fixtures.ts';
import { fuzzSuite } from '../helpers/fuzz/suite.ts';

test('damaged run folders: listed, and every reader answers or refuses by name', async (t) => {
  if (!requireFixture(t, 'stories260K.gguf')) return;
  await fuzzSuite(t, 'run-folder', 300);
});
