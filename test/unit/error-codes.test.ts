// One spelling per code (docs/errors.md): every error code written in electron/ or native/ is
// snake_case and in ERROR_CODES, every problem code in PROBLEM_CODES, and both lists are the
// tables the docs show.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PROBLEM_CODES } from '../../electron/common/dataset-report.ts';
import { ERROR_CODES, HoneError, toPlain } from '../../electron/common/errors.ts';
import { checkCodes, codeUses, SNAKE_CASE } from '../helpers/error-codes.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const errorCodes = Object.keys(ERROR_CODES);
const problemCodes = Object.keys(PROBLEM_CODES);

function files(dir: string, exts: string[]): string[] {
  return (readdirSync(join(root, dir), { recursive: true }) as string[])
    .filter((n) => exts.includes(extname(n)) && !n.split(sep).includes('node_modules'))
    .map((n) => relative(root, join(root, dir, n)).split(sep).join('/'));
}

const read = (f: string) => readFileSync(join(root, f), 'utf8');
const TS_FILES = files('electron', ['.ts', '.tsx', '.mts', '.mjs', '.js']);
const CPP_FILES = ['native/engine', 'native/cli', 'native/binding'].flatMap((d) => files(d, ['.cpp', '.h']));

test('every code used in electron/ is snake_case and in its list', () => {
  const uses = TS_FILES.flatMap((f) => codeUses(f, read(f)));
  assert.ok(uses.length > 50, `found only ${uses.length} code literals in electron/: is the pattern still right?`);
  const problems = TS_FILES.flatMap((f) => checkCodes(f, read(f), errorCodes, problemCodes));
  assert.deepEqual(problems, [], problems.join('\n'));
});

test('every code native/ prints or throws is snake_case and an error code', () => {
  const uses = CPP_FILES.flatMap((f) => codeUses(f, read(f)));
  const names = new Set(uses.map((u) => u.code));
  // The engine's status names and a few of hone-train's own must have been found.
  for (const c of ['invalid_argument', 'io_error', 'bad_format', 'out_of_memory', 'cancelled', 'internal', 'disposed', 'bad_text', 'check_failed']) {
    assert.ok(names.has(c), `'${c}' not found in native/: is the pattern still right?`);
  }
  const problems = CPP_FILES.flatMap((f) => checkCodes(f, read(f), errorCodes, []));
  assert.deepEqual(problems, [], problems.join('\n'));
});

test('the checker names file and line of a code that is misspelt or not in the list', () => {
  const ts = "const a = 1;\nthrow new HoneError('bad-config', 'x');\nreturn { code: 'no_such_code', message };\nissues.error('bad_json', '', 'm');\n";
  assert.deepEqual(checkCodes('electron/cli/x.ts', ts, errorCodes, problemCodes), [
    "electron/cli/x.ts:2: 'bad-config' is not snake_case",
    "electron/cli/x.ts:3: 'no_such_code' is neither an error code (electron/common/errors.ts) nor a problem code (electron/common/dataset-report.ts)",
  ]);
  const cpp = '    if (!f) return report_error(json, "io-error", path + ": cannot open");\n    throw make_error(env, "gone", "x");\n    case HONE_E_IO: return "io_failure";\n';
  assert.deepEqual(checkCodes('native/cli/x.cpp', cpp, errorCodes, []), [
    "native/cli/x.cpp:1: 'io-error' is not snake_case",
    "native/cli/x.cpp:2: 'gone' is not an error code of electron/common/errors.ts",
    "native/cli/x.cpp:3: 'io_failure' is not an error code of electron/common/errors.ts",
  ]);
  // Node's own codes are compared against, not sent: not ours to list.
  assert.deepEqual(checkCodes('electron/server/x.ts', "if (code === 'ENOSPC') x();\nif (typeof e.code === 'string') y();", errorCodes, problemCodes), []);
});

/** The codes in the first column of the tables under `heading` (not a header row), up to the next section. */
function tableCodes(md: string, heading: string): string[] {
  const start = md.indexOf(heading);
  assert.ok(start >= 0, `no '${heading}' heading`);
  const next = md.indexOf('\n## ', start + heading.length);
  return [...md.slice(start, next < 0 ? undefined : next).matchAll(/^\| `([^`]+)` \|.*\n(?!\| ---)/gm)].map((m) => m[1]);
}

test('the lists are snake_case and are the tables of docs/errors.md and docs/dataset-report.md', () => {
  for (const c of [...errorCodes, ...problemCodes]) assert.match(c, SNAKE_CASE);
  assert.deepEqual(tableCodes(read('docs/errors.md'), '# Error codes').sort(), [...errorCodes].sort());
  assert.deepEqual(tableCodes(read('docs/dataset-report.md'), '## Problem kinds').sort(), [...problemCodes].sort());
});

test('errors cross a boundary with a listed code: Node system errors become io_error, the rest internal', () => {
  const missing = join(tmpdir(), 'hone-no-such-file.jsonl');
  let fsError: unknown;
  try {
    readFileSync(missing);
  } catch (e) {
    fsError = e;
  }
  const p = toPlain(fsError);
  assert.equal(p.code, 'io_error');
  assert.deepEqual(p.detail, { errno: 'ENOENT' });
  assert.ok(p.message.includes(missing), p.message);
  assert.deepEqual(toPlain(new HoneError('bad_config', 'x', { key: 'rank' })), { code: 'bad_config', message: 'x', detail: { key: 'rank' } });
  assert.deepEqual(toPlain(Object.assign(new Error('odd'), { code: 'some-other-code' })), { code: 'internal', message: 'odd' });
  assert.deepEqual(toPlain('thrown string'), { code: 'internal', message: 'thrown string' });
});
