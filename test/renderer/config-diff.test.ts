// Comparing two runs: only the options they set differently, the output folder left out.
import { describe, expect, it } from 'vitest';
import { configDiff, showValue } from '../../renderer/src/lib/config-diff.ts';
import { DEFAULTS } from './data.ts';

describe('configDiff', () => {
  it('lists the options that differ, in the config’s order', () => {
    const a = { ...DEFAULTS, out: '/runs/a', rank: 8, data: ['/d/a.jsonl'] };
    const b = { ...DEFAULTS, out: '/runs/b', rank: 16, data: ['/d/a.jsonl', '/d/b.jsonl'], lr: 2e-4 };
    expect(configDiff(a, b)).toEqual([
      { key: 'data', a: ['/d/a.jsonl'], b: ['/d/a.jsonl', '/d/b.jsonl'] },
      { key: 'rank', a: 8, b: 16 },
      { key: 'lr', a: 1e-4, b: 2e-4 },
    ]);
    expect(configDiff(a, { ...a, out: '/elsewhere' })).toEqual([]);
  });

  it('shows values as people read them', () => {
    expect(showValue(['a', 'b'])).toBe('a, b');
    expect(showValue('')).toBe('(empty)');
    expect(showValue(undefined)).toBe('–');
    expect(showValue(0.5)).toBe('0.5');
  });
});
