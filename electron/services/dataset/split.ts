/**
 * Deterministic train/eval split. A record's side depends only on its
 * normalised content and the seed, never on its position or on other files:
 *
 *   u = first 32 bits of SHA-1(seed + "\0" + contentKey) / 2^32
 *   (contentKey: the hex SHA-1 used for duplicates, see dedup.ts)
 *   eval when u < ratio, else train
 *
 * So re-ordering or adding files never moves an existing record (barring
 * the small-dataset adjustment below), and duplicates always land on the
 * same side (no train/eval leakage). Because the test is per record, the
 * eval share is close to, not exactly, the ratio.
 * One adjustment keeps small datasets usable: if the ratio is above 0 and no
 * record drew eval, the content with the smallest u goes to eval, provided
 * at least one record with other content stays in train.
 */
import { createHash } from 'node:crypto';

export function splitPoint(key: string, seed: string): number {
  const hash = createHash('sha1').update(seed).update('\0').update(key).digest();
  return hash.readUInt32BE(0) / 2 ** 32;
}

/** Tracks what the "at least one eval record" rule needs, in O(1) memory. */
export class SplitTracker {
  train = 0;
  eval = 0;
  private minPoint = Infinity;
  private minKey: string | null = null;
  private minCount = 0;

  constructor(
    readonly ratio: number,
    readonly seed: string,
  ) {}

  /** The side a ratio-split record goes to on the first pass; updates counts. */
  place(key: string): 'train' | 'eval' {
    if (this.ratio <= 0) {
      this.train++;
      return 'train';
    }
    const point = splitPoint(key, this.seed);
    if (point < this.ratio) {
      this.eval++;
      return 'eval';
    }
    this.train++;
    if (point < this.minPoint) {
      this.minPoint = point;
      this.minKey = key;
      this.minCount = 1;
    } else if (key === this.minKey) {
      this.minCount++;
    }
    return 'train';
  }

  /** Records with this content key go to eval too, or null. Call after the last `place`. */
  forcedEvalKey(): string | null {
    if (this.ratio <= 0 || this.eval > 0 || this.minKey === null || this.train - this.minCount < 1) return null;
    return this.minKey;
  }

  /** Applies the rule to the counts. */
  finish(): string | null {
    const key = this.forcedEvalKey();
    if (key !== null) {
      this.train -= this.minCount;
      this.eval += this.minCount;
    }
    return key;
  }
}

/** The second-pass side of a ratio-split record, given the first pass's forced key. */
export function sideOf(key: string, ratio: number, seed: string, forcedEvalKey: string | null): 'train' | 'eval' {
  if (ratio <= 0) return 'train';
  if (splitPoint(key, seed) < ratio) return 'eval';
  if (forcedEvalKey !== null && key === forcedEvalKey) return 'eval';
  return 'train';
}
