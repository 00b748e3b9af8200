/**
 * One fuzz case with its time bound: a check that does not answer within `limitMs` (a promise
 * that never settles, a loop that runs long) is a hang, and a rejection nobody handled while it
 * ran is a failure too. A loop that never ends blocks this thread: the worker's watchdog
 * (in-worker.ts) ends those.
 */
import { performance } from 'node:perf_hooks';
import { describeThrown } from './refusal.ts';

export async function boundedCase(check: () => Promise<string | null>, limitMs: number): Promise<string | null> {
  const stray: unknown[] = [];
  const onRejection = (reason: unknown) => stray.push(reason);
  process.on('unhandledRejection', onRejection);
  let timer: NodeJS.Timeout | undefined;
  const started = performance.now();
  try {
    const hang = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), limitMs)));
    const outcome = await Promise.race([check().catch((err) => `the check itself threw: ${describeThrown(err)}`), hang]);
    const took = performance.now() - started;
    if (outcome === 'hang' || took > limitMs) return `hang: no answer within ${limitMs} ms`;
    // a rejection left behind surfaces after the current macrotask
    await new Promise((resolve) => setImmediate(resolve));
    if (stray.length > 0) return `unhandled rejection: ${describeThrown(stray[0])}`;
    return outcome;
  } finally {
    clearTimeout(timer);
    process.off('unhandledRejection', onRejection);
  }
}
