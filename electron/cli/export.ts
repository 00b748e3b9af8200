/**
 * `hone export`: a trained adapter in another format (docs/export.md), through the service's
 * `exports.create`, so the command writes exactly what the app writes. A merge runs in an engine
 * host, started only for it.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { HoneError, toPlain } from '../common/errors.ts';
import { ADAPTER_STORAGES, EXPORT_FORMATS, MERGE_TYPES, type ExportProgress, type ExportRequest, type ExportResult } from '../common/export.ts';
import { resolveDataDir } from '../services/data-dir.ts';

export const EXPORT_USAGE = `usage:
  hone export --run DIR --format FORMAT [--out PATH] [options] [--json]
  hone export --adapter A.gguf --model M.gguf --format FORMAT --out PATH [options] [--json]

  --run DIR        a run folder (the app's, or hone train's --out), or a run id of the data folder
  --adapter A      a LoRA adapter GGUF, with --model M its base GGUF (instead of --run)
  --format F       gguf     the adapter for llama.cpp (--storage f32|f16|q8_0 for A and B; default f32)
                   peft     adapter_model.safetensors + adapter_config.json for transformers/PEFT
                   merged   the base with the adapter merged in, one GGUF (--type q4_k_m|q5_k_m|q8_0|f16;
                            default: each tensor keeps the base's type)
                   ollama   Modelfiles and the ollama create commands
                   axolotl  the run's dataset as chat JSONL and an Axolotl config (needs --run)
  --out PATH       the folder to write (gguf and merged: or a .gguf file); default with --run:
                   DIR/exports/FORMAT[-TYPE]; an earlier export there is replaced, nothing else is
  --data-dir D     Hone's data folder, for a run id (default: $HONE_DATA_DIR, else the platform's)
  --json           one JSON object per line: export-progress events, then {"type":"export", ...}
Exit codes: 0 written, 1 failed (nothing is left under --out), 2 bad usage.
docs/export.md describes every format and file.`;

interface ExportArgs {
  request: Partial<ExportRequest>;
  dataDir: string | null;
  json: boolean;
  help: boolean;
}

const FLAGS = ['run', 'adapter', 'model', 'format', 'out', 'type', 'storage', 'data-dir'] as const;

export function parseExportArgs(argv: string[]): ExportArgs {
  const args: ExportArgs = { request: {}, dataDir: null, json: false, help: false };
  const given: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '-h' || a === '--help') { args.help = true; continue; }
    if (a === '--json') { args.json = true; continue; }
    if (!a.startsWith('--')) throw new HoneError('bad_config', `hone export: unexpected argument '${a}' (options start with --)`);
    const eq = a.indexOf('=');
    const name = a.slice(2, eq >= 0 ? eq : undefined);
    if (!(FLAGS as readonly string[]).includes(name)) throw new HoneError('bad_config', `hone export: unknown option '--${name}'`);
    let value: string;
    if (eq >= 0) value = a.slice(eq + 1);
    else if (i + 1 < argv.length && !argv[i + 1].startsWith('--')) value = argv[++i];
    else throw new HoneError('bad_config', `hone export: option '--${name}' needs a value`);
    if (name in given) throw new HoneError('bad_config', `hone export: '--${name}' is given twice`);
    given[name] = value;
  }
  if (args.help) return args;
  const oneOf = (name: string, list: readonly string[]) => {
    if (given[name] !== undefined && !list.includes(given[name])) throw new HoneError('bad_config', `hone export: --${name} must be one of ${list.join(', ')} (got '${given[name]}')`);
  };
  if (!given.format) throw new HoneError('bad_config', `hone export: --format is required (${EXPORT_FORMATS.join(', ')})`);
  oneOf('format', EXPORT_FORMATS);
  oneOf('type', MERGE_TYPES);
  oneOf('storage', ADAPTER_STORAGES);
  if (given.run === undefined && (given.adapter === undefined || given.model === undefined)) {
    throw new HoneError('bad_config', 'hone export: give --run DIR, or --adapter A.gguf with --model M.gguf');
  }
  if (given.run !== undefined && (given.adapter !== undefined || given.model !== undefined)) {
    throw new HoneError('bad_config', 'hone export: --run and --adapter/--model cannot be used together');
  }
  const r: Partial<ExportRequest> = { format: given.format as ExportRequest['format'] };
  if (given.run !== undefined) r.run = runArg(given.run);
  if (given.adapter !== undefined) r.adapter = resolve(given.adapter);
  if (given.model !== undefined) r.model = resolve(given.model);
  if (given.out !== undefined) r.out = resolve(given.out);
  if (given.type !== undefined) r.type = given.type as ExportRequest['type'];
  if (given.storage !== undefined) r.storage = given.storage as ExportRequest['storage'];
  args.request = r;
  args.dataDir = given['data-dir'] ?? null;
  return args;
}

/** A folder that exists is a run folder (made absolute); a bare name that is not one is a run id. */
export function runArg(v: string): string {
  const isFolder = existsSync(v) && statSync(v).isDirectory();
  if (isFolder || /[\\/]/.test(v) || v === '.' || v === '..') return resolve(v);
  return v;
}

function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

function printResult(r: ExportResult, out: NodeJS.WriteStream): void {
  const w = (s: string) => out.write(s + '\n');
  w(`wrote ${r.out} (${r.format})`);
  for (const f of r.files) w(`  ${f.path}  ${sizeOf(f.bytes)}  ${f.role}`);
  for (const n of r.notes) w(`note: ${n}`);
  if (r.commands.length) {
    w(r.format === 'ollama' ? 'then (the second if your Ollama refuses ADAPTER lines):' : 'then:');
    for (const c of r.commands) w(`  ${c}`);
  }
}

/** Progress on a terminal: one line redrawn; elsewhere plain lines at 10% steps of the slow stages (merging, records). */
function progressPrinter(err: NodeJS.WriteStream): { event(p: ExportProgress): void; end(): void } {
  let drawing = false;
  let lastTenth = -1;
  const what = { tensors: 'tensors', merge: 'merging', dataset: 'records' } as const;
  return {
    event(p) {
      const line = `${what[p.stage]} ${p.done}/${p.total}${p.item ? ` ${p.item}` : ''}`;
      if (err.isTTY) {
        err.write(`\r${line}\x1b[K`);
        drawing = true;
        return;
      }
      if (p.stage === 'tensors') return;
      const tenth = p.total > 0 ? Math.floor((10 * p.done) / p.total) : 10;
      if (tenth !== lastTenth) err.write(line + '\n');
      lastTenth = tenth;
    },
    end() {
      if (drawing) err.write('\n');
      drawing = false;
    },
  };
}

export async function exportCommand(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  const progress = progressPrinter(process.stderr);
  let service: { exports: { create(r: ExportRequest): Promise<ExportResult> }; subscribe(l: (e: unknown) => void): () => void; dispose(): Promise<void> } | null = null;
  try {
    const args = parseExportArgs(argv);
    if (args.help) {
      console.log(EXPORT_USAGE);
      return 0;
    }
    const { NodeHoneService } = await import('../services/hone-service.ts');
    service = new NodeHoneService({ dataDir: resolveDataDir(args.dataDir) });
    service.subscribe((e) => {
      const p = e as ExportProgress;
      if (p.type !== 'export-progress') return;
      if (json) process.stdout.write(JSON.stringify(p) + '\n');
      else progress.event(p);
    });
    const result = await service.exports.create(args.request as ExportRequest);
    progress.end();
    if (json) process.stdout.write(JSON.stringify({ type: 'export', ...result }) + '\n');
    else printResult(result, process.stdout);
    return 0;
  } catch (err) {
    progress.end();
    const p = toPlain(err);
    if (json) process.stdout.write(JSON.stringify({ type: 'error', ...p }) + '\n');
    process.stderr.write(`hone: error: ${p.message}${p.code === 'bad_config' ? ' (hone export --help)' : ''}\n`);
    return p.code === 'bad_config' || p.code === 'invalid_argument' ? 2 : 1;
  } finally {
    await service?.dispose();
  }
}
