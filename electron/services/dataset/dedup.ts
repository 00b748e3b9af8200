/**
 * Duplicate detection. Two records are duplicates when their normalised
 * content is equal: same kind, same roles, same text after trimming and
 * collapsing runs of whitespace, same tool calls (ids ignored: they are
 * arbitrary), same weights and same tools. So a prompt/completion line and
 * an Alpaca record with the same text are duplicates of each other.
 *
 * Only the first 64 bits of the SHA-1 are kept per record (16 bytes of table
 * per record, outside the JS heap); the chance of a false duplicate among
 * ten million records is about 3 in a million.
 */
import { createHash } from 'node:crypto';
import type { Example } from './example.ts';

// Whitespace other than a single space: most texts have none, and testing is
// much cheaper than replacing (this runs on every message of every record).
const UNUSUAL_SPACE = /(?! )\s| {2}/;

function squash(text: string): string {
  const trimmed = text.trim();
  return UNUSUAL_SPACE.test(trimmed) ? trimmed.replace(/\s+/g, ' ') : trimmed;
}

/** SHA-1 (hex) of the example's normalised content. */
export function contentKey(example: Example): string {
  const hash = createHash('sha1');
  if (example.kind === 'text') {
    hash.update(`text\0${squash(example.text)}`);
  } else {
    const messages = example.messages.map((m) => [
      m.role,
      squash(m.content),
      m.tool_calls?.map((c) => [c.function.name, squash(c.function.arguments)]) ?? null,
      m.name ?? null,
      m.weight ?? null,
    ]);
    hash.update(`chat\0${JSON.stringify([messages, example.tools ?? null])}`);
  }
  return hash.digest('hex');
}

/** A set of 64-bit keys in typed arrays (open addressing, linear probing). */
export class KeySet {
  private hi = new Uint32Array(1024);
  private lo = new Uint32Array(1024);
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds the first 64 bits of a hex `key`; returns false when they were already present. */
  add(key: string): boolean {
    let hi = parseInt(key.slice(0, 8), 16);
    const lo = parseInt(key.slice(8, 16), 16);
    if (hi === 0 && lo === 0) hi = 1; // 0/0 marks an empty slot
    if ((this.count + 1) * 2 > this.hi.length) this.grow();
    if (!this.insert(hi, lo)) return false;
    this.count++;
    return true;
  }

  private insert(hi: number, lo: number): boolean {
    const mask = this.hi.length - 1;
    let slot = (lo ^ hi) & mask;
    while (this.hi[slot] !== 0 || this.lo[slot] !== 0) {
      if (this.hi[slot] === hi && this.lo[slot] === lo) return false;
      slot = (slot + 1) & mask;
    }
    this.hi[slot] = hi;
    this.lo[slot] = lo;
    return true;
  }

  private grow(): void {
    const oldHi = this.hi;
    const oldLo = this.lo;
    this.hi = new Uint32Array(oldHi.length * 2);
    this.lo = new Uint32Array(oldLo.length * 2);
    for (let i = 0; i < oldHi.length; i++) {
      if (oldHi[i] !== 0 || oldLo[i] !== 0) this.insert(oldHi[i], oldLo[i]);
    }
  }
}
