/**
 * A small filesystem that fills up: a tmpfs of a given size mounted for one test (Linux, as
 * root). Where it cannot be mounted the test is skipped with the reason (never in CI, where
 * .ci/run runs as root on Linux: there a failed mount fails the test).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SkippableTest } from './fixtures.ts';
import { tempDir } from './native.ts';

export interface SmallDisk {
  path: string;
  /** Fills all but `leaveBytes` of the disk with one file; returns that file (delete it to make room). */
  fill(leaveBytes: number): string;
  unmount(): void;
}

export function mountSmallDisk(t: SkippableTest, bytes: number): SmallDisk | null {
  const path = join(tempDir('hone-disk-'), 'disk');
  mkdirSync(path);
  const why = process.platform !== 'linux' ? 'a tmpfs needs Linux' : process.getuid?.() !== 0 ? 'mounting a tmpfs needs root' : null;
  const r = why ? null : spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', path], { encoding: 'utf8' });
  if (why || r!.status !== 0) {
    const reason = `no small filesystem for this test: ${why ?? `mount failed: ${r!.stderr.trim()}`}`;
    if (process.env.CI && !why) throw new Error(reason);
    t.skip(reason);
    return null;
  }
  const unmount = () => spawnSync('umount', ['-l', path]);
  process.on('exit', unmount);
  return {
    path,
    fill(leaveBytes) {
      const filler = join(path, 'filler.bin');
      const df = spawnSync('df', ['-B1', '--output=avail', path], { encoding: 'utf8' }).stdout.trim().split('\n').at(-1)!;
      writeFileSync(filler, Buffer.alloc(Math.max(0, Number(df) - leaveBytes)));
      return filler;
    },
    unmount,
  };
}
