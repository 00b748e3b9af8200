/**
 * Finds the error and problem code literals a source file uses, by the few ways code is written
 * to carry one: TypeScript `new HoneError('x'`, `code: 'x'`, `code === 'x'`, `issues.error('x'`;
 * C++ `report_error(json, "x"`, `make_error(env, "x"`, `"code", "x"` and the engine's status
 * names (`case HONE_E_…: return "x"`). Pure: path and text in, uses out.
 */

export interface CodeUse {
  code: string;
  line: number;
  /** 'error': must be an error code; 'problem': a dataset problem code; 'either': a `code:` field. */
  kind: 'error' | 'problem' | 'either';
}

const TS_PATTERNS: Array<[RegExp, CodeUse['kind']]> = [
  [/new (?:HoneError|DatasetError)\(\s*['"`]([^'"`]*)['"`]/g, 'error'],
  [/\bcode:\s*['"`]([^'"`]*)['"`]/g, 'either'],
  [/(?<!typeof\s+[\w.]*)\bcode\s*[!=]==\s*['"`]([^'"`]*)['"`]/g, 'either'],
  [/\bissues\.(?:error|warn)\(\s*['"`]([^'"`]*)['"`]/g, 'problem'],
];

const CPP_PATTERNS: Array<[RegExp, CodeUse['kind']]> = [
  [/\breport_error\(\s*\w+\s*,\s*"([^"]*)"/g, 'error'],
  [/\bmake_error\([^,;]+,\s*"([^"]*)"/g, 'error'],
  [/\(\s*"code"\s*,\s*"([^"]*)"/g, 'error'],
  [/(?:case HONE_E_\w+|default)\s*:\s*return\s+"([^"]*)"/g, 'error'],
];

/** Node's own error codes (ENOENT, ERR_INVALID_ARG_TYPE) are compared against, never sent. */
const NODE_CODE = /^(E[A-Z0-9]+|ERR_[A-Z0-9_]+)$/;

export function codeUses(path: string, text: string): CodeUse[] {
  const patterns = /\.(c|cc|cpp|h|hpp)$/.test(path) ? CPP_PATTERNS : TS_PATTERNS;
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const lineAt = (pos: number) => {
    let lo = 0, hi = lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (lineStarts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  const out: CodeUse[] = [];
  for (const [re, kind] of patterns) {
    for (const m of text.matchAll(re)) {
      if (kind === 'either' && NODE_CODE.test(m[1])) continue;
      out.push({ code: m[1], line: lineAt(m.index!), kind });
    }
  }
  return out.sort((a, b) => a.line - b.line);
}

export const SNAKE_CASE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Every use of `path` that is not snake_case or not in its list, as `file:line: why`. */
export function checkCodes(path: string, text: string, errorCodes: readonly string[], problemCodes: readonly string[]): string[] {
  const out: string[] = [];
  for (const u of codeUses(path, text)) {
    const where = `${path}:${u.line}: '${u.code}'`;
    if (!SNAKE_CASE.test(u.code)) out.push(`${where} is not snake_case`);
    else if (u.kind === 'error' && !errorCodes.includes(u.code)) out.push(`${where} is not an error code of electron/common/errors.ts`);
    else if (u.kind === 'problem' && !problemCodes.includes(u.code)) out.push(`${where} is not a problem code of electron/common/dataset-report.ts`);
    else if (u.kind === 'either' && !errorCodes.includes(u.code) && !problemCodes.includes(u.code)) {
      out.push(`${where} is neither an error code (electron/common/errors.ts) nor a problem code (electron/common/dataset-report.ts)`);
    }
  }
  return out;
}
