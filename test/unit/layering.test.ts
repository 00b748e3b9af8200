// Which folder may import which (ARCHITECTURE.md "Layers"): every source file of electron/ and
// renderer/ is checked, and the checker itself is shown to reject each kind of forbidden import.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkFile, importsOf, SOURCE_EXTENSIONS } from '../helpers/layering.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function sourceFiles(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(join(root, dir), { recursive: true }) as string[];
  } catch {
    return [];
  }
  return names
    .filter((n) => SOURCE_EXTENSIONS.includes(extname(n)) && !n.split(sep).includes('node_modules'))
    .map((n) => relative(root, join(root, dir, n)).split(sep).join('/'));
}

test('every import in electron/ and renderer/ points down the layers', () => {
  const files = [...sourceFiles('electron'), ...sourceFiles('renderer')];
  assert.ok(files.length > 50, `found only ${files.length} source files: is the tree there?`);
  const problems = files.flatMap((f) => checkFile(f, readFileSync(join(root, f), 'utf8')));
  assert.deepEqual(problems, [], `forbidden imports:\n${problems.join('\n')}`);
});

test('the checker rejects an upward import, naming file, line and import', () => {
  const text = "import type { X } from './engine-api.ts';\n\nimport { EngineHost } from '../services/engine/client.ts';\n";
  assert.deepEqual(checkFile('electron/common/contract.ts', text), [
    "electron/common/contract.ts:3: import '../services/engine/client.ts': common imports services (electron/services/engine/client.ts); common may import nothing outside itself",
  ]);
});

test('the checker rejects services importing the engine host, and any layer importing sideways', () => {
  assert.match(checkFile('electron/services/engine/x.ts', "export { y } from '../../engine-host/jobs.ts';")[0], /services imports engine-host/);
  assert.match(checkFile('electron/server/x.ts', "const m = await import('../cli/main.ts');")[0], /:1: import\(\) '\.\.\/cli\/main\.ts': server imports cli/);
  assert.match(checkFile('electron/preload/x.ts', "import { y } from '../services/dataset/index.ts';")[0], /preload imports services/);
  assert.match(checkFile('renderer/src/x.tsx', "import type { Y } from '../../electron/services/dataset/index.ts';\nconst a = <div/>;")[0], /renderer imports services/);
  assert.match(checkFile('electron/services/x.ts', "const u = import.meta.resolve('../engine-host/host-main.ts');")[0], /import\.meta\.resolve .*services imports engine-host/);
  assert.match(checkFile('electron/common/x.ts', "type R = import('../services/dataset/index.ts').DatasetReport;")[0], /import type .*common imports services/);
  assert.match(checkFile('electron/cli/x.ts', "import { t } from '../../test/helpers/fixtures.ts';")[0], /outside every layer/);
});

test('the checker rejects Node builtins in common/ and renderer/, electron outside main and preload', () => {
  assert.match(checkFile('electron/common/x.ts', "import { readFileSync } from 'node:fs';")[0], /common imports the Node builtin 'node:fs'/);
  assert.match(checkFile('renderer/x.ts', "import { join } from 'path';")[0], /renderer imports the Node builtin 'path'/);
  assert.match(checkFile('electron/common/x.ts', "import { readFile } from 'fs/promises';")[0], /Node builtin 'fs\/promises'/);
  assert.match(checkFile('electron/services/x.ts', "import { app } from 'electron';")[0], /services imports electron/);
  assert.match(checkFile('electron/common/x.ts', "import { ipcRenderer } from 'electron/renderer';")[0], /common imports electron/);
  assert.match(checkFile('electron/nowhere.ts', '')[0], /not inside any layer folder/);
});

test('the checker allows what the table allows', () => {
  assert.deepEqual(checkFile('electron/cli/main.ts', "import { EngineHost } from '../services/engine/client.ts';\nimport { HoneError } from '../common/errors.ts';\nimport { parse } from 'yaml';"), []);
  assert.deepEqual(checkFile('electron/engine-host/jobs.ts', "import { importDataset } from '../services/dataset/index.ts';\nimport { join } from 'node:path';"), []);
  assert.deepEqual(checkFile('electron/main/index.ts', "import { app } from 'electron';\nimport { x } from '../services/x.ts';"), []);
  assert.deepEqual(checkFile('renderer/src/app.tsx', "import type { DatasetReport } from '../../electron/common/dataset-report.ts';\nimport React from 'react';"), []);
});

test('imports are read from syntax: comments and strings are not imports, multi-line imports are', () => {
  const text = [
    "// import x from '../services/x.ts'",
    "const s = \"import('../services/y.ts')\";",
    'import {',
    '  a,',
    '  b,',
    "} from '../cli/args.ts';",
  ].join('\n');
  assert.deepEqual(importsOf('electron/common/x.ts', text), [{ specifier: '../cli/args.ts', line: 6, how: 'import' }]);
});
