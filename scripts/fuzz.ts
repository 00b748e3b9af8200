/**
 * `node --import tsx scripts/fuzz.ts [--cases N] [--seed S] [--target NAME]...`: the fuzz
 * suites' properties (test/helpers/fuzz/) with many more cases. Every case runs; failures are
 * grouped by symptom, and the first input of each is shrunk to a small one. Each target runs in
 * a worker thread under a watchdog, so a loop that never ends is reported, not waited on.
 * The GGUF target also cuts the real header at every byte. Exits 1 when any target failed.
 */
import { truncationSweep } from '../test/helpers/fuzz/gguf-target.ts';
import { fuzzInWorker } from '../test/helpers/fuzz/in-worker.ts';
import { TARGETS } from '../test/helpers/fuzz/targets.ts';

function parseArgs(argv: string[]): { cases: number; seed: number; targets: string[] } {
  const out = { cases: 20_000, seed: Date.now() % 2 ** 31, targets: [] as string[] };
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i + 1];
    if (argv[i] === '--cases') out.cases = Number(value);
    else if (argv[i] === '--seed') out.seed = Number(value);
    else if (argv[i] === '--target') out.targets.push(value);
    else throw new Error(`unknown argument ${argv[i]} (use --cases N, --seed S, --target ${Object.keys(TARGETS).join('|')})`);
    i++;
  }
  if (!Number.isInteger(out.cases) || out.cases < 1) throw new Error('--cases must be a whole number >= 1');
  if (!Number.isInteger(out.seed)) throw new Error('--seed must be a whole number');
  for (const t of out.targets) if (!(t in TARGETS)) throw new Error(`unknown target ${t} (${Object.keys(TARGETS).join(', ')})`);
  if (out.targets.length === 0) out.targets = Object.keys(TARGETS);
  return out;
}

const args = parseArgs(process.argv.slice(2));
console.log(`fuzz: ${args.cases} cases per target, seed ${args.seed}`);
let failed = 0;
for (const name of args.targets) {
  const report = await fuzzInWorker(name, { seed: args.seed, cases: args.cases, mode: 'all' });
  const seconds = Number.isNaN(report.ms) ? '?' : (report.ms / 1000).toFixed(1);
  console.log(`${name}: ${report.cases} cases, ${report.failures.length} kinds of failure, ${seconds} s`);
  for (const f of report.failures) {
    failed++;
    console.log(`  FAIL x${f.count}: ${f.symptom}\n    input: ${f.input}\n    error: ${f.error}`);
  }
  if (name === 'gguf-header') {
    // besides the random cases: the real header cut at every byte
    const sweep = await truncationSweep(1);
    console.log(`gguf-header truncation: ${sweep.cuts} cuts, ${sweep.problem ? 1 : 0} failures`);
    if (sweep.problem) {
      failed++;
      console.log(`  FAIL: ${sweep.problem}`);
    }
  }
}
console.log(failed === 0 ? 'fuzz: no failures' : `fuzz: ${failed} kinds of failure`);
process.exitCode = failed === 0 ? 0 : 1;
