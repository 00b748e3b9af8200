/** The worker side of in-worker.ts: runs one target and posts each case before it runs, then the report. */
import { parentPort, workerData } from 'node:worker_threads';
import { runTarget, type FuzzOptions } from './run-target.ts';
import { TARGETS } from './targets.ts';

const { name, options } = workerData as { name: string; options: Omit<FuzzOptions, 'onCase'> };
const target = await TARGETS[name]();
try {
  const report = await runTarget(target, { ...options, onCase: (index, shown) => parentPort!.postMessage({ kind: 'case', index, shown }) });
  parentPort!.postMessage({ kind: 'report', report });
} finally {
  await target.close();
}
