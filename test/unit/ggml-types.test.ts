/**
 * The model list's ggml type table against the pinned llama.cpp source the native build clones:
 * type numbers and names (ggml.h), elements and bytes per block (ggml.c's type_traits and
 * ggml-common.h's block size asserts), file type names (llama.h). When the pinned release
 * moves, this test says which entry to change.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileTypeName, ggmlType } from '../../electron/services/models/index.ts';

/** The newest prepared llama.cpp tree under the build's cache folder (native/scripts/llama-source.mjs). */
function llamaSource(t: { skip(m: string): void }): string | null {
  const root = join(process.env.HONE_CACHE_DIR || join(homedir(), '.cache', 'hone'), 'src');
  const trees = existsSync(root)
    ? readdirSync(root)
        .map((name) => join(root, name))
        .filter((dir) => existsSync(join(dir, '.hone-ready')))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
    : [];
  if (trees.length > 0) return trees[0];
  const reason = `no prepared llama.cpp source under ${root} (the native build clones it)`;
  if (process.env.CI) throw new Error(reason);
  t.skip(reason);
  return null;
}

/** Live (not commented out) `PREFIX_NAME = number` enum lines of a header. */
function enumValues(text: string, prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = new RegExp(`^\\s*${prefix}(\\w+)\\s*=\\s*(\\d+)`).exec(line);
    if (m) out.set(m[1], Number(m[2]));
  }
  return out;
}

/** Evaluates a C size expression of numbers, macros and sizeof() of the types ggml-common.h uses. */
function evaluate(expr: string, macros: Map<string, string>): number {
  const sizes: Record<string, number> = {
    ggml_half: 2, ggml_fp16_t: 2, ggml_bf16_t: 2, float: 4, double: 8,
    int8_t: 1, uint8_t: 1, int16_t: 2, uint16_t: 2, int32_t: 4, uint32_t: 4, int64_t: 8, uint64_t: 8,
  };
  let e = expr;
  for (let pass = 0; pass < 10; pass++) {
    e = e.replace(/sizeof\((\w+)\)/g, (all, type: string) => (type in sizes ? String(sizes[type]) : all));
    e = e.replace(/\b[A-Za-z_]\w*\b/g, (name) => macros.get(name) ?? name);
  }
  assert.match(e, /^[\d\s+\-*/()]+$/, `cannot evaluate ${expr} (got ${e})`);
  return Function(`return (${e});`)() as number;
}

test('ggml type numbers, names and block sizes match the pinned ggml', (t) => {
  const src = llamaSource(t);
  if (!src) return;
  const types = enumValues(readFileSync(join(src, 'ggml', 'include', 'ggml.h'), 'utf8'), 'GGML_TYPE_');
  types.delete('COUNT');
  const count = Math.max(...types.values()) + 1;
  for (let id = 0; id < count; id++) {
    const name = [...types].find(([, n]) => n === id)?.[0];
    assert.equal(ggmlType(id)?.name, name, `ggml type ${id}`);
  }
  assert.equal(ggmlType(count), undefined);

  const common = readFileSync(join(src, 'ggml', 'src', 'ggml-common.h'), 'utf8');
  const macros = new Map<string, string>();
  for (const m of common.matchAll(/^#define\s+(\w+)\s+(.+)$/gm)) macros.set(m[1], `(${m[2].replace(/\/\/.*$/, "").trim()})`);
  const blockBytes = new Map<string, number>();
  for (const m of common.matchAll(/static_assert\(sizeof\((block_\w+)\)\s*==\s*(.+?),\s*"/g)) blockBytes.set(m[1], evaluate(m[2], macros));

  const traits = readFileSync(join(src, 'ggml', 'src', 'ggml.c'), 'utf8');
  let checked = 0;
  for (const m of traits.matchAll(/\[GGML_TYPE_(\w+)\]\s*=\s*\{\s*\.type_name[^}]*?\.blck_size\s*=\s*([^,]+),[^}]*?\.type_size\s*=\s*sizeof\((\w+)\)/g)) {
    const [, name, blockExpr, sizeType] = m;
    const id = types.get(name);
    if (id === undefined) continue;
    const block = evaluate(blockExpr, macros);
    const bytes = blockBytes.get(sizeType) ?? evaluate(`sizeof(${sizeType})`, macros);
    assert.deepEqual(ggmlType(id), { name, blockSize: block, blockBytes: bytes }, `type_traits of ${name}`);
    checked++;
  }
  assert.equal(checked, types.size, 'every live type has type_traits');
});

test('file type names match llama.h', (t) => {
  const src = llamaSource(t);
  if (!src) return;
  const ftypes = enumValues(readFileSync(join(src, 'include', 'llama.h'), 'utf8'), 'LLAMA_FTYPE_');
  assert.ok(ftypes.size > 30);
  for (const [name, id] of ftypes) assert.equal(fileTypeName(id), name.replace(/^MOSTLY_/, ''), `LLAMA_FTYPE_${name}`);
  assert.equal(fileTypeName(15), 'Q4_K_M');
  assert.equal(fileTypeName(4), 'unknown (4)');
});
