// Numbers as the views show them.
import { describe, expect, it } from 'vitest';
import { baseName, formatBytes, formatDuration, formatLr, formatParams, formatPercent } from '../../renderer/src/lib/format.ts';

describe('format', () => {
  it('writes sizes in binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1536)).toBe('1.50 KiB');
    expect(formatBytes(5 * 1024 ** 3)).toBe('5.00 GiB');
    expect(formatBytes(null)).toBe('–');
  });

  it('writes parameter counts the way model cards do', () => {
    expect(formatParams(260_000)).toBe('260K');
    expect(formatParams(7_241_732_096)).toBe('7.24B');
    expect(formatParams(1_500_000)).toBe('1.5M');
  });

  it('writes durations as m:ss and h:mm:ss', () => {
    expect(formatDuration(65)).toBe('1:05');
    expect(formatDuration(3 * 3600 + 62)).toBe('3:01:02');
    expect(formatDuration(null)).toBe('–');
  });

  it('writes learning rates in powers of ten and shares as percents', () => {
    expect(formatLr(1e-4)).toBe('1e-4');
    expect(formatLr(0.0002)).toBe('2e-4');
    expect(formatLr(0.05)).toBe('0.05');
    expect(formatPercent(0.256, 1)).toBe('25.6%');
  });

  it('takes the last part of either kind of path', () => {
    expect(baseName('/data/uploads/a.jsonl')).toBe('a.jsonl');
    expect(baseName('C:\\Users\\me\\b.csv')).toBe('b.csv');
  });
});
