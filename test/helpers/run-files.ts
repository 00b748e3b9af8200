/**
 * What a run folder (or an export's folder) holds after a crash: every file at its final name
 * must be whole (JSON that parses, a GGUF whose tensors all fit in the file, a checkpoint with
 * all three of its files), and temporary files left beside them are listed by name.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BLOCKS, readGguf } from './gguf.ts';

/** Null when `path` is a GGUF whose header parses and whose tensors all end inside the file, else what is wrong. */
export function ggufProblem(path: string): string | null {
  try {
    const g = readGguf(path);
    const size = statSync(path).size;
    for (const [name, shape] of g.shapes) {
      const block = BLOCKS[g.types.get(name)!];
      if (!block) continue;
      const bytes = (shape.reduce((a, b) => a * b, 1) / block[1]) * block[0];
      if (g.raw.get(name)!.length !== bytes || g.dataOffset > size) return `tensor ${name} runs past the end of the file (${size} bytes)`;
    }
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function jsonProblem(path: string): string | null {
  try {
    JSON.parse(readFileSync(path, 'utf8'));
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

/** Files at their final names in run folder `folder` that are not whole, as `name: problem`. */
export function partialRunFiles(folder: string): string[] {
  const problems: string[] = [];
  const check = (name: string, problem: (path: string) => string | null, required: boolean) => {
    const path = join(folder, name);
    if (!existsSync(path)) {
      if (required) problems.push(`${name}: missing`);
      return;
    }
    const p = problem(path);
    if (p) problems.push(`${name}: ${p}`);
  };
  check('status.json', jsonProblem, true);
  check('config.json', jsonProblem, true);
  check('run.json', jsonProblem, false);
  check('ops.json', jsonProblem, false);
  check('adapter.gguf', ggufProblem, false);
  const root = join(folder, 'checkpoints');
  const steps = existsSync(root) ? readdirSync(root).filter((n) => /^\d+(-\d+)?$/.test(n)) : [];
  for (const step of steps) {
    check(join('checkpoints', step, 'state.json'), jsonProblem, true);
    check(join('checkpoints', step, 'adapter.gguf'), ggufProblem, true);
    check(join('checkpoints', step, 'optimizer.gguf'), ggufProblem, true);
  }
  return problems;
}

/** Temporary files and folders (`.tmp` in the name, or a checkpoint moved aside as `.old`) anywhere under `folder`, relative to it. */
export function tempLeftovers(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, encoding: 'utf8' })
    .filter((p) => /\.tmp|\.old$/.test(p.split(/[\\/]/).pop()!))
    .map((p) => relative(folder, join(folder, p)))
    .sort();
}
