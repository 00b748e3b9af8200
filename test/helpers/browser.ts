/**
 * End-to-end kit: the renderer built into a temp folder, `hone serve` over it with the real
 * service, engine host and engine (HOME and the data folder in temp folders, so nothing of
 * the machine's own models or runs is touched), and Debian's chromium driven by playwright-core.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CHROMIUM = process.env.HONE_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export { buildRenderer } from '../../scripts/build-renderer.ts';

export interface ServeProcess {
  url: string;
  origin: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** `hone serve` on a free port; resolves with the printed address (token included). */
export function startServe(opts: { dataDir: string; staticDir: string; home: string }): Promise<ServeProcess> {
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'hone.mjs'), 'serve', '--port', '0', '--data-dir', opts.dataDir, '--static-dir', opts.staticDir], {
    cwd: repoRoot,
    env: { ...process.env, HOME: opts.home, HONE_DATA_DIR: opts.dataDir, XDG_DATA_HOME: join(opts.home, '.local', 'share') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const stop = () =>
    new Promise<void>((res) => {
      if (child.exitCode != null) return res();
      child.once('exit', () => res());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
    });
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`hone serve printed no address in 60 s:\n${out}`)), 60_000);
    const onData = () => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      res({ url: m[1], origin: new URL(m[1]).origin, child, output: () => out, stop });
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`hone serve exited with ${code}:\n${out}`));
    });
  });
}

/** Pids of a process's descendants whose command line matches `pattern` (ps, Linux and macOS). */
export function descendantsMatching(pid: number, pattern: RegExp): number[] {
  const table = execFileSync('ps', ['-A', '-o', 'pid=,ppid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m != null)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const out: number[] = [];
  const walk = (parent: number) => {
    for (const p of table.filter((x) => x.ppid === parent)) {
      if (pattern.test(p.args)) out.push(p.pid);
      walk(p.pid);
    }
  };
  walk(pid);
  return out;
}

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`chromium not found at ${CHROMIUM} (install Debian's chromium, or set HONE_CHROMIUM)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** A temp folder tree for one test run, removed at the end. */
export function tempTree(prefix: string): { root: string; dir(name: string): string; remove(): void } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return {
    root,
    dir(name) {
      const p = join(root, name);
      mkdirSync(p, { recursive: true });
      return p;
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; html: string; failureSummary?: string }>;
}

const axeSource = () => readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page as it is now. The script is evaluated
 * through the DevTools protocol, which the page's CSP (no inline scripts) does not govern.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource());
  const result = (await page.evaluate(() =>
    (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: AxeViolation[] }> } }).axe.run(document, { resultTypes: ['violations'] }),
  )) as { violations: AxeViolation[] };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, html: n.html, failureSummary: n.failureSummary })) }));
}
