/**
 * `hone`: the command line. `hone data inspect` and `hone train` run their work in an engine
 * host process; this process parses options, draws progress and handles Ctrl-C.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { EngineEvent, InspectResult, TrainConfig } from '../common/engine-api.ts';
import { HoneError, toPlain } from '../common/errors.ts';
import { EngineHost } from '../services/engine/client.ts';
import { checkpointsDir, isCheckpoint, latestCheckpoint } from '../services/runs/checkpoints.ts';
import { parseArgs } from './args.ts';
import { findConfigFile, missingForTrain, readConfigFile, resolveConfig } from './config.ts';
import { demoConfig } from './demo.ts';
import { printInspect } from './inspect-output.ts';
import { Reporter } from './progress.ts';
import type { ServiceFactory } from './serve.ts';

const USAGE = `usage:
  hone data inspect --model M.gguf --data PATH... [--ctx 512 --truncate drop|left|right --loss assistant|all
                    --chat-template T.jinja --eval-split 0.1] [--json]
  hone train --model M.gguf --data PATH... --out DIR [options] [--config FILE] [--json]
  hone train --out DIR --resume [CHECKPOINT]     continue a stopped run (Ctrl-C writes a checkpoint)
  hone train --demo                              a tiny model and a small dataset about Hone, about a minute on a CPU
  hone export --run DIR | --adapter A.gguf --model M.gguf --format gguf|peft|merged|ollama|axolotl [--out PATH]
              [--type q4_k_m|q5_k_m|q8_0|f16] [--storage f32|f16|q8_0] [--json]   (hone export --help; docs/export.md)
  hone chat --model M.gguf [--adapter A.gguf | --run DIR] [--prompt "..."] [--compare] [--scale 1] [--max-tokens 256]
            [--greedy | --temperature T --top-p P --seed S] [--json]   (hone chat --help; docs/chat.md)
  hone serve [--port N] [--host H] [--data-dir D]  the app in a browser (docs/web-mode.md)
  hone start [--web] [serve options]             the demo, then the app with the demo's model listed: the desktop
                                                 app where Electron and a display are, else (or --web) web mode

options (also keys of hone.config.json / hone.config.yaml; precedence: the engine's defaults < config file < flags):
  --rank 8 --alpha 0 (2 x rank) --targets all|attn_q,attn_k,... (default: all seven) --lr 1e-4 --schedule constant|linear|cosine
  --warmup 0 --lr-min 0 --weight-decay 0 --max-grad-norm 1 --steps N | --epochs 1 --ctx 512|auto --batch 1 | --batch-tokens N --ubatch N
  --seed 42 --backend auto|cpu|cuda|metal --gpu-precision bf16|f32 --threads N --eval-data PATH... | --eval-split 0.1 --eval-every K
  --checkpoint-every K --keep-checkpoints 3 --memory-limit BYTES --profile --recompute --pack=false --loss assistant|all --ignore-weights --truncate drop|left|right
  --chat-template T.jinja
docs/cli.md describes every option and the --json output.`;

const HELD_RETRIES = 3;
const HELD_RETRY_MS = 2000;

/** Exit codes: 0 done (or stopped with a checkpoint), 1 failed, 2 bad usage or config. */
function fail(json: boolean, err: unknown): number {
  const p = toPlain(err);
  if (json) process.stdout.write(JSON.stringify({ type: 'error', ...p }) + '\n');
  process.stderr.write(`hone: error: ${p.message}\n`);
  const problems = (p.detail as { problems?: Array<{ file: string; line: number | null; field: string; message: string; severity: string }> } | undefined)?.problems;
  if (!json && problems) {
    for (const q of problems.filter((x) => x.severity === 'error').slice(0, 20)) {
      process.stderr.write(`  ${q.file}${q.line === null ? '' : `:${q.line}`}${q.field ? ` (${q.field})` : ''}: ${q.message}\n`);
    }
  }
  return p.code === 'bad_config' ? 2 : 1;
}

async function withHost<T>(fn: (host: EngineHost) => Promise<T>): Promise<T> {
  const host = EngineHost.start();
  try {
    return await fn(host);
  } finally {
    host.kill();
  }
}

async function inspect(argv: string[]): Promise<number> {
  try {
    const { options, cli } = parseArgs(argv);
    if (cli.help) { console.log(USAGE); return 0; }
    const file = findConfigFile(cli.config);
    const fromFile = file ? readConfigFile(file) : {};
    const miss = [!(options.model ?? fromFile.model) && '--model', !(options.data ?? fromFile.data)?.length && '--data'].filter(Boolean);
    if (miss.length) throw new HoneError('bad_config', `missing ${miss.join(' and ')}`);
    const reporter = new Reporter(false);
    const res: InspectResult = await withHost(async (h) => {
      const cfg = resolveConfig((await h.request('capabilities', {})).defaults, fromFile, options);
      return h.request('inspect', { model: cfg.model, data: cfg.data, config: cfg }, (e) => {
        if (!cli.json) reporter.event(e);
      });
    });
    if (cli.json) process.stdout.write(JSON.stringify({ type: 'inspect', ...res }) + '\n');
    else printInspect(res, process.stdout);
    return res.report.problems.some((p) => p.severity === 'error') ? 1 : 0;
  } catch (e) {
    return fail(argv.includes('--json'), e);
  }
}

/** --resume: a checkpoint folder, or (no value) the newest one under --out. */
function resumeTarget(resume: string | true, out: string): { checkpoint: string; out: string } {
  if (resume === true) {
    if (!out) throw new HoneError('bad_config', '--resume without a checkpoint needs --out (the run folder)');
    const ck = latestCheckpoint(checkpointsDir(out));
    if (!ck) throw new HoneError('bad_config', `${out}: no checkpoint to resume from (looked in ${checkpointsDir(out)})`);
    return { checkpoint: ck, out };
  }
  const ck = resolve(resume);
  if (!isCheckpoint(ck)) throw new HoneError('bad_config', `${resume}: not a checkpoint folder (no state.json)`);
  return { checkpoint: ck, out: out || dirname(dirname(ck)) };
}

async function train(argv: string[]): Promise<number> {
  const reporter = new Reporter(argv.includes('--json'));
  try {
    const { options, cli } = parseArgs(argv);
    if (cli.help) { console.log(USAGE); return 0; }
    let base: Partial<TrainConfig> = {};
    const file = findConfigFile(cli.config);
    if (file) base = readConfigFile(file);
    if (cli.demo) base = { ...base, ...demoConfig() };
    let resume: string | null = null;
    if (cli.resume) {
      const t = resumeTarget(cli.resume, resolve(options.out ?? base.out ?? ''));
      resume = t.checkpoint;
      // The interrupted run's own config, then this command's flags.
      const saved = join(t.out, 'config.json');
      if (existsSync(saved)) base = { ...base, ...readConfigFile(saved) };
      base.out = t.out;
    }
    const miss = missingForTrain({ ...base, ...options });
    if (miss.length) throw new HoneError('bad_config', `missing ${miss.join(', ')} (or use --demo, or a hone.config.json)`);

    const host = EngineHost.start();
    let cfg: TrainConfig;
    try {
      cfg = resolveConfig((await host.request('capabilities', {})).defaults, base, options);
    } catch (e) {
      host.kill();
      throw e;
    }
    let interrupts = 0;
    const onSigint = () => {
      interrupts++;
      if (interrupts === 1) {
        reporter.line('stopping after this step and writing a checkpoint (Ctrl-C again: stop sooner)');
        void host.request('stop', {}).catch(() => {});
      } else if (interrupts === 2) {
        reporter.line('stopping after this micro-batch');
        void host.request('cancel', {}).catch(() => {});
      } else host.kill('SIGKILL');
    };
    process.on('SIGINT', onSigint);
    try {
      // a stop whose checkpoint cannot be written: retry a few times, then end resumable from the last good one
      let retries = 0;
      const onHeld = (e: EngineEvent) => {
        if (e.type !== 'checkpoint-failed' || !e.held) return;
        const retry = retries++ < HELD_RETRIES;
        reporter.line(retry ? `retrying the checkpoint in ${HELD_RETRY_MS / 1000} s (${retries} of ${HELD_RETRIES})` : `giving up: the run can resume from ${e.lastGood ?? 'nothing (no checkpoint was written)'}`);
        setTimeout(() => void host.request(retry ? 'retry-checkpoint' : 'discard', {}).catch(() => {}), retry ? HELD_RETRY_MS : 0);
      };
      const res = await host.request('train', { config: cfg, resume }, (e: EngineEvent) => {
        reporter.event(e);
        onHeld(e);
      });
      reporter.endLine();
      if (res.stopped) {
        if (cli.json) process.stdout.write(JSON.stringify({ type: 'stopped', step: res.step, checkpoint: res.lastCheckpoint }) + '\n');
        else reporter.line(`stopped at step ${res.step}; checkpoint ${res.lastCheckpoint}; continue with: hone train --out ${cfg.out} --resume`);
        return 0;
      }
      if (cli.json) process.stdout.write(JSON.stringify({ type: 'done', adapter: res.adapter, runJson: res.runJson, step: res.step, finalLoss: res.finalLoss }) + '\n');
      else reporter.line(`wrote ${res.adapter} and ${res.runJson}`);
      return 0;
    } finally {
      process.off('SIGINT', onSigint);
      host.kill();
    }
  } catch (e) {
    reporter.endLine();
    return fail(argv.includes('--json'), e);
  }
}

// The one service implementation over the data folder (loaded on demand, like the server); serve
// disposes it at shutdown, which stops a live run with a checkpoint.
const serveService: ServiceFactory = async (dataDir) => new (await import('../services/hone-service.ts')).NodeHoneService({ dataDir });

/** The desktop app on the data folder `hone serve` would use, with the demo's models folder listed. */
async function startDesktop(electron: string, argv: string[]): Promise<number> {
  const { buildApp, runDesktop } = await import('./desktop.ts');
  const { parseServeArgs } = await import('./serve.ts');
  const { resolveDataDir } = await import('../services/data-dir.ts');
  const { withDemoModels } = await import('./start.ts');
  try {
    const dataDir = resolveDataDir(parseServeArgs(argv).dataDir);
    // the folder is remembered in the data folder's settings, which the app reads
    const service = await withDemoModels(serveService)(dataDir);
    await service.dispose?.();
    const main = buildApp();
    process.stderr.write('opening the desktop app\n');
    return await runDesktop(electron, main, dataDir);
  } catch (e) {
    return fail(false, e);
  }
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, sub, ...rest] = argv;
  if (cmd === 'data' && sub === 'inspect') return inspect(rest);
  if (cmd === 'train') return train(argv.slice(1));
  if (cmd === 'export') return (await import('./export.ts')).exportCommand(argv.slice(1));
  if (cmd === 'chat') return (await import('./chat.ts')).chatCommand(argv.slice(1));
  // loaded on demand: the other commands need neither the server nor ws
  if (cmd === 'serve') return (await import('./serve.ts')).serve(argv.slice(1), serveService);
  if (cmd === 'start') {
    const trained = await train(['--demo', ...argv.slice(1).filter((a) => a === '--json')]);
    if (trained !== 0) return trained;
    const { demoDataset, ensureRenderer, withDemoModels } = await import('./start.ts');
    try {
      ensureRenderer();
    } catch (e) {
      return fail(false, e);
    }
    process.stderr.write(`the demo's adapter is in out/demo; its dataset, to drop on the app: ${demoDataset()}\n`);
    const rest = argv.slice(1).filter((a) => a !== '--json' && a !== '--web');
    const { electronExecutable, noDisplay } = await import('./desktop.ts');
    const electron = electronExecutable();
    const why = argv.includes('--web') ? 'asked for (--web)' : 'missing' in electron ? electron.missing : noDisplay();
    if (!why && 'path' in electron) return startDesktop(electron.path, rest);
    process.stderr.write(`opening the app in web mode: ${why}\n`);
    return (await import('./serve.ts')).serve(rest, withDemoModels(serveService));
  }
  if (!cmd || cmd === 'help' || cmd === '--help' || cmd === '-h') { console.log(USAGE); return cmd ? 0 : 2; }
  process.stderr.write(`hone: unknown command '${argv.join(' ')}'\n${USAGE}\n`);
  return 2;
}
