/**
 * Remembers a function's last arguments and result (compared with Object.is), so a selector
 * that builds an object or array returns the same one until its inputs change: what zustand's
 * useSyncExternalStore needs, without storing derived state.
 */
export function memoLast<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  let lastArgs: A | null = null;
  let lastResult: R;
  return (...args: A): R => {
    if (lastArgs && lastArgs.length === args.length && lastArgs.every((a, i) => Object.is(a, args[i]))) return lastResult;
    lastResult = fn(...args);
    lastArgs = args;
    return lastResult;
  };
}
