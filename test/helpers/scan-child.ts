/**
 * Runs scanDataset on the paths in argv in its own process (the parent sets
 * a heap cap) and prints one JSON line: the report's counts, the number of
 * progress events and memory figures.
 */
import { scanDataset } from '../../electron/services/dataset/index.ts';

let progressEvents = 0;
let lastBytes = 0;
let peakRss = 0;
let peakHeapUsed = 0;
const started = Date.now();
const report = await scanDataset(process.argv.slice(2), {}, (event) => {
  progressEvents++;
  lastBytes = event.bytesRead;
  const memory = process.memoryUsage();
  peakRss = Math.max(peakRss, memory.rss);
  peakHeapUsed = Math.max(peakHeapUsed, memory.heapUsed);
});
console.log(
  JSON.stringify({
    records: report.records,
    problemCounts: report.problemCounts,
    problemsListed: report.problems.length,
    format: report.format,
    progressEvents,
    lastBytes,
    peakRss,
    peakHeapUsed,
    seconds: (Date.now() - started) / 1000,
  }),
);
