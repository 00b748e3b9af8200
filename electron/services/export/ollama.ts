/**
 * The Ollama export: Modelfiles and the exact `ollama create` commands. `FROM` is the base as
 * Ollama knows it: its model name when the base GGUF is a blob of Ollama's own store (so its
 * template and parameters are inherited), else the GGUF's path. `ADAPTER` is the GGUF LoRA beside
 * the Modelfile. A second Modelfile is `FROM` the merged GGUF, for Ollama versions that refuse
 * ADAPTER lines. No TEMPLATE: Hone does not translate Jinja into Ollama's Go templates.
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { ollamaCandidates } from '../models/sources/ollama.ts';

/** The Ollama name (`qwen2.5:0.5b`) of a base model that lives in Ollama's store, or null. */
export async function ollamaNameOf(modelPath: string): Promise<string | null> {
  const real = await realpath(modelPath).catch(() => modelPath);
  if (!/^sha256-[0-9a-f]{64}$/.test(basename(real)) || basename(dirname(real)) !== 'blobs') return null;
  const store = dirname(dirname(real));
  const found = await ollamaCandidates(0, store, []);
  const names: string[] = [];
  for (const c of found) {
    if (c.error) continue;
    if ((await realpath(c.paths[0]).catch(() => c.paths[0])) === real) names.push(c.displayName);
  }
  // the shortest, then alphabetical: `llama3.2:latest` before `registry.example/x/llama3.2:1b`
  names.sort((a, b) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0));
  return names[0] ?? null;
}

/** A Modelfile value: as it is, or in double quotes when it has spaces, quotes or backslashes. */
function modelfileValue(v: string): string {
  return /[\s"\\]/.test(v) ? JSON.stringify(v) : v;
}

export function modelfileText(lines: { comment: string[]; from: string; adapter?: string }): string {
  const out = [...lines.comment.map((c) => `# ${c}`), `FROM ${modelfileValue(lines.from)}`];
  if (lines.adapter) out.push(`ADAPTER ${modelfileValue(lines.adapter)}`);
  return out.join('\n') + '\n';
}

/** A word for a POSIX shell: as it is when safe, else in single quotes. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** An Ollama model name from a run id or file name: lower case letters, digits, `-`, `_`, `.`. */
export function ollamaModelName(from: string): string {
  const name = from.toLowerCase().replace(/\.gguf$/, '').replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '').replace(/-+$/, '');
  return `hone-${name || 'adapter'}`.slice(0, 80);
}

/** `./name` for a file beside the Modelfile (Ollama resolves it from the Modelfile's folder). */
export function besideModelfile(name: string): string {
  return `./${name}`;
}
