// `hone start` opens the desktop app only where it can show it: Electron's binary installed
// (found without triggering its download) and, on Linux, a display; else it says why.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { electronExecutable, noDisplay } from '../../electron/cli/desktop.ts';
import { tempFiles } from '../helpers/temp-files.ts';

test('a display is needed on Linux, not on macOS or Windows', () => {
  assert.match(noDisplay({}, 'linux')!, /DISPLAY/);
  assert.equal(noDisplay({ DISPLAY: ':0' }, 'linux'), null);
  assert.equal(noDisplay({ WAYLAND_DISPLAY: 'wayland-0' }, 'linux'), null);
  assert.equal(noDisplay({}, 'darwin'), null);
  assert.equal(noDisplay({}, 'win32'), null);
});

test("Electron's executable comes from the package's path.txt; a skipped download is named", (t) => {
  const withBinary = tempFiles(t, {
    'node_modules/electron/package.json': '{"name":"electron","version":"45.5.0"}',
    'node_modules/electron/path.txt': 'electron',
    'node_modules/electron/dist/electron': '#!/bin/sh\n',
  });
  const from = pathToFileURL(join(withBinary, 'x.mjs')).href;
  assert.deepEqual(electronExecutable(from), { path: join(withBinary, 'node_modules', 'electron', 'dist', 'electron') });

  const skipped = tempFiles(t, { 'node_modules/electron/package.json': '{"name":"electron","version":"45.5.0"}' });
  assert.match((electronExecutable(pathToFileURL(join(skipped, 'x.mjs')).href) as { missing: string }).missing, /ELECTRON_SKIP_BINARY_DOWNLOAD/);
  const none = tempFiles(t);
  assert.match((electronExecutable(pathToFileURL(join(none, 'x.mjs')).href) as { missing: string }).missing, /not installed/);
});
