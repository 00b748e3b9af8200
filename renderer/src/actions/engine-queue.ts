/**
 * The engine host runs one job at a time, so the window's own background asks (the live plan,
 * the dataset inspection) must not take the host from under a start or a resume the person
 * asked for: those wait until the background asks in flight have answered.
 */
const inFlight = new Set<Promise<unknown>>();

/** Runs a background ask and remembers it until it settles. */
export function background<T>(ask: () => Promise<T>): Promise<T> {
  const p = ask();
  inFlight.add(p);
  const forget = () => inFlight.delete(p);
  p.then(forget, forget);
  return p;
}

/** Resolves once no background ask is in flight. */
export async function backgroundSettled(): Promise<void> {
  while (inFlight.size) await Promise.allSettled([...inFlight]);
}
