/**
 * The layer rule of electron/ and renderer/: one folder per place code runs, imports pointing
 * down only (after VS Code's code-layering lint rule). Pure functions over a file's path and
 * text, so the test can prove the checker rejects what it should without touching the tree.
 */
import { builtinModules } from 'node:module';
import { posix } from 'node:path';
import ts from 'typescript';

/** Each layer's folder (relative to the repository root) and the layers it may import. */
export const LAYERS = {
  common: { dir: 'electron/common', may: [] },
  services: { dir: 'electron/services', may: ['common'] },
  'engine-host': { dir: 'electron/engine-host', may: ['common', 'services'] },
  // `hone serve` hosts web mode: the command line starts the server, never the other way round
  cli: { dir: 'electron/cli', may: ['common', 'services', 'server'] },
  server: { dir: 'electron/server', may: ['common', 'services'] },
  main: { dir: 'electron/main', may: ['common', 'services'] },
  preload: { dir: 'electron/preload', may: ['common'] },
  renderer: { dir: 'renderer', may: ['common'] },
} as const satisfies Record<string, { dir: string; may: readonly string[] }>;

export type Layer = keyof typeof LAYERS;

/** Layers that run without Node (the sandboxed page) or must stay platform-free (the contract). */
const NO_NODE: readonly Layer[] = ['common', 'renderer'];
/** The only layers that run inside Electron and may import it. */
const ELECTRON_OK: readonly Layer[] = ['main', 'preload'];

export const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.mjs', '.cjs', '.js', '.jsx'];

/** The layer a repository-relative path (posix separators) belongs to, or null. */
export function layerOf(path: string): Layer | null {
  for (const [name, { dir }] of Object.entries(LAYERS)) {
    if (path === dir || path.startsWith(dir + '/')) return name as Layer;
  }
  return null;
}

export interface ImportRef {
  specifier: string;
  line: number;
  /** How it is imported: import, export, import(), import type, import.meta.resolve, require. */
  how: string;
}

function scriptKind(path: string): ts.ScriptKind {
  if (path.endsWith('.tsx')) return ts.ScriptKind.TSX;
  if (path.endsWith('.jsx')) return ts.ScriptKind.JSX;
  if (/\.[mc]?js$/.test(path)) return ts.ScriptKind.JS;
  return ts.ScriptKind.TS;
}

/** Every module a file names with a string literal (comments and other strings are not imports). */
export function importsOf(path: string, text: string): ImportRef[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, scriptKind(path));
  const out: ImportRef[] = [];
  const add = (node: ts.Node | undefined, how: string) => {
    if (node && ts.isStringLiteralLike(node)) {
      out.push({ specifier: node.text, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, how });
    }
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, 'import');
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, 'export');
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression, 'import');
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal, 'import type');
    else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      if (callee.kind === ts.SyntaxKind.ImportKeyword) add(node.arguments[0], 'import()');
      else if (ts.isIdentifier(callee) && callee.text === 'require') add(node.arguments[0], 'require');
      else if (
        ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve' &&
        ts.isMetaProperty(callee.expression) && callee.expression.keywordToken === ts.SyntaxKind.ImportKeyword
      ) add(node.arguments[0], 'import.meta.resolve');
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

const BUILTINS = new Set(builtinModules);
const isBuiltin = (spec: string) => spec.startsWith('node:') || BUILTINS.has(spec) || BUILTINS.has(spec.split('/')[0]);
const isElectron = (spec: string) => spec === 'electron' || spec.startsWith('electron/');

/** Why one import of `path` (in layer `from`) breaks the rule, or null when it is allowed. */
function verdict(path: string, from: Layer, spec: string): string | null {
  if (spec.startsWith('.')) {
    const target = posix.normalize(posix.join(posix.dirname(path), spec));
    const to = layerOf(target);
    if (to === null) return `imports ${target}, which is outside every layer`;
    if (to === from || (LAYERS[from].may as readonly string[]).includes(to)) return null;
    const may = LAYERS[from].may.length ? LAYERS[from].may.join(', ') : 'nothing outside itself';
    return `${from} imports ${to} (${target}); ${from} may import ${may}`;
  }
  if (spec.startsWith('/') || (/^[a-z]+:/i.test(spec) && !spec.startsWith('node:'))) return 'imports an absolute path or URL';
  if (isElectron(spec) && !ELECTRON_OK.includes(from)) return `${from} imports electron; only ${ELECTRON_OK.join(' and ')} run inside Electron`;
  if (isBuiltin(spec) && NO_NODE.includes(from)) return `${from} imports the Node builtin '${spec}'; ${from} must run without Node`;
  return null;
}

/** Every forbidden import of one file, as `file:line: <how> '<specifier>': <why>`. */
export function checkFile(path: string, text: string): string[] {
  const from = layerOf(path);
  if (from === null) return [`${path}: is not inside any layer folder (${Object.values(LAYERS).map((l) => l.dir + '/').join(', ')})`];
  const out: string[] = [];
  for (const ref of importsOf(path, text)) {
    const why = verdict(path, from, ref.specifier);
    if (why) out.push(`${path}:${ref.line}: ${ref.how} '${ref.specifier}': ${why}`);
  }
  return out;
}
