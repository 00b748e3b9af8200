/**
 * Byte helpers on plain Uint8Array. Node's Buffer is a Uint8Array at run
 * time, but the pinned @types/node (20.9) does not type it as one under
 * TypeScript 5.9, so this layer passes Uint8Array around and avoids Buffer.
 */

export function concatBytes(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0];
  let length = 0;
  for (const part of parts) length += part.length;
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
