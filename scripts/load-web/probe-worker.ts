/**
 * The probe: GET / (the page, the cheapest authenticated request) every 50 ms while the load
 * runs, timed in a worker thread of its own so the load's clients, busy on the main thread,
 * do not add their own delays to the figure. Posts `{latencies, failures}` when time is up.
 */
import { request as httpRequest } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

export interface ProbeInput {
  port: number;
  host: string;
  token: string;
  /** Date.now() at which to stop. */
  stopAt: number;
}

export interface ProbeResult {
  latencies: number[];
  failures: string[];
}

function get(a: ProbeInput): Promise<number> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port: a.port, path: '/', headers: { Host: a.host, Authorization: `Bearer ${a.token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(-1));
    req.end();
  });
}

const input = workerData as ProbeInput;
const result: ProbeResult = { latencies: [], failures: [] };
while (Date.now() < input.stopAt) {
  const start = performance.now();
  const status = await get(input);
  result.latencies.push(performance.now() - start);
  if (status !== 200) result.failures.push(`http GET /: ${status}`);
  await new Promise((r) => setTimeout(r, 50));
}
parentPort!.postMessage(result);
