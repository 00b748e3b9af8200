#!/usr/bin/env node
// docs/architectures.md's table of trainable architectures, written from the engine's
// architecture descriptions (`hone-train architectures --json`), between its two markers.
//   node native/scripts/architectures-table.mjs           rewrites the table
//   node native/scripts/architectures-table.mjs --check   exits 1 when the page disagrees
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BEGIN = '<!-- architectures-table:begin (written by native/scripts/architectures-table.mjs) -->';
const END = '<!-- architectures-table:end -->';

/** The table's Markdown from the descriptions' JSON lines. */
export function architecturesTable(jsonLines) {
  const rows = jsonLines.trim().split('\n').map((l) => JSON.parse(l)).filter((d) => d.type === 'architecture');
  return ['| architecture | covers | graph details |', '| --- | --- | --- |',
    ...rows.map((d) => `| \`${d.name}\` | ${d.covers} | ${d.details} |`)].join('\n');
}

/** The page with its table replaced; throws when the markers are missing. */
export function withTable(page, table) {
  const a = page.indexOf(BEGIN), b = page.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/architectures.md: the markers ${BEGIN} ... ${END} are missing`);
  return `${page.slice(0, a + BEGIN.length)}\n${table}\n${page.slice(b)}`;
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const bin = path.join(root, 'native/bin', process.platform === 'win32' ? 'hone-train.exe' : 'hone-train');
  const doc = path.join(root, 'docs/architectures.md');
  const page = fs.readFileSync(doc, 'utf8');
  const next = withTable(page, architecturesTable(execFileSync(bin, ['architectures', '--json'], { encoding: 'utf8' })));
  if (process.argv.includes('--check')) {
    if (next !== page) {
      console.error('docs/architectures.md: the table differs from the engine\'s descriptions; run node native/scripts/architectures-table.mjs');
      process.exit(1);
    }
  } else {
    fs.writeFileSync(doc, next);
  }
}
