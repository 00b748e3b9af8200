/**
 * Shared test fixtures live outside the repo, in `../shared/fixtures`
 * relative to the repo root; set HONE_FIXTURES to use another folder.
 *
 *   const path = requireFixture(t, 'tinyshakespeare.txt');
 *   if (!path) return; // skipped (only possible outside CI)
 *
 * When a fixture is missing, the test fails if CI is set (a missing fixture
 * must never turn into a silent pass there) and is skipped, with the reason
 * shown, otherwise.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The part of node:test's TestContext used here (@types/node 20.9 does not export the type). */
export interface SkippableTest {
  skip(message?: string): void;
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The fixtures folder: $HONE_FIXTURES, else ../shared/fixtures next to the repo. */
export function fixturesDir(): string {
  return process.env.HONE_FIXTURES ? resolve(process.env.HONE_FIXTURES) : resolve(repoRoot, '..', 'shared', 'fixtures');
}

/** Absolute path of a fixture file (whether or not it exists). */
export function fixturePath(name: string): string {
  return join(fixturesDir(), name);
}

/** The fixture's path; if it is missing, throws under CI, else skips `t` and returns null. */
export function requireFixture(t: SkippableTest, name: string): string | null {
  const path = fixturePath(name);
  if (existsSync(path)) return path;
  const reason = `fixture ${name} not found at ${path} (set HONE_FIXTURES to its folder)`;
  if (process.env.CI) throw new Error(reason);
  t.skip(reason);
  return null;
}
