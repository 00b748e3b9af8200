/**
 * How deep a record's JSON may nest. JSON.parse reads any depth, but what comes after recurses
 * once per level (JSON.stringify for the duplicate key, the engine's JSON reader, the chat
 * template) and runs out of stack some thousands deep. No real record comes near the limit:
 * tool schemas, the deepest part of a chat record, nest a few tens deep.
 */
export const MAX_JSON_DEPTH = 256;

/** True when `value` has arrays or objects nested more than `limit` deep (walked without recursion). */
export function nestedDeeperThan(value: unknown, limit: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const item of Array.isArray(v) ? v : Object.values(v)) stack.push([item, depth + 1]);
  }
  return false;
}

export function tooDeepMessage(what: string): string {
  return `${what} nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep; no chat record needs that many`;
}
