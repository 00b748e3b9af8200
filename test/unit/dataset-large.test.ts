/**
 * Bounded memory: a large generated JSONL is scanned in a child process whose
 * V8 heap is capped far below the file size, so keeping the records (or the
 * file) in memory would crash it. HONE_LARGE_SCAN_MB sets the size (default
 * 300 MiB, to keep the suite fast on 2 cores); a 2 GiB run was done by hand:
 *   HONE_LARGE_SCAN_MB=2048 node --import tsx --test test/unit/dataset-large.test.ts
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { writeLargeJsonl } from '../helpers/large-jsonl.ts';

const SIZE_MB = Number(process.env.HONE_LARGE_SCAN_MB ?? 300);
const HEAP_CAP_MB = 96;
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

test(`a ${SIZE_MB} MiB JSONL is scanned with a ${HEAP_CAP_MB} MB heap cap, with progress`, { timeout: 600_000 }, async (t) => {
  const path = join(tmpdir(), `hone-large-scan-${process.pid}.jsonl`);
  (t as unknown as { after(fn: () => void): void }).after(() => rmSync(path, { force: true }));
  const expected = writeLargeJsonl(path, SIZE_MB * 2 ** 20);

  const { stdout } = await promisify(execFile)(
    process.execPath,
    [`--max-old-space-size=${HEAP_CAP_MB}`, '--import', 'tsx', join('test', 'helpers', 'scan-child.ts'), path],
    { cwd: repoRoot, maxBuffer: 1 << 20 },
  );
  const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
  t.diagnostic(`scan: ${result.seconds}s, peak heap ${(result.peakHeapUsed / 2 ** 20).toFixed(1)} MiB, peak RSS ${(result.peakRss / 2 ** 20).toFixed(1)} MiB`);

  assert.equal(result.format, 'openai-chat');
  assert.deepEqual(result.records, {
    total: expected.lines,
    valid: expected.lines - expected.invalid,
    invalid: expected.invalid,
    duplicates: expected.duplicates,
  });
  assert.deepEqual(result.problemCounts, { 'bad_json': expected.invalid });
  assert.equal(result.problemsListed, Math.min(expected.invalid, 1000));
  // Progress about every 4 MiB (the default), plus one at the end of the file.
  const steps = expected.bytes / (4 * 2 ** 20);
  assert.ok(result.progressEvents >= Math.floor(steps) && result.progressEvents <= Math.ceil(steps) + 1, `${result.progressEvents} progress events`);
  assert.equal(result.lastBytes, expected.bytes);
  assert.ok(result.peakHeapUsed < 64 * 2 ** 20, `heap stays small (peak ${result.peakHeapUsed} bytes)`);
});
