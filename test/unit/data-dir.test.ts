/** The data folder: --data-dir, then $HONE_DATA_DIR, then each platform's place for application data. */
import assert from 'node:assert/strict';
import { join, resolve, win32 } from 'node:path';
import { test } from 'node:test';
import { defaultDataDir, resolveDataDir } from '../../electron/services/data-dir.ts';

test('each platform has its own default data folder', () => {
  assert.equal(defaultDataDir('linux', {}, '/home/ada'), '/home/ada/.local/share/hone');
  assert.equal(defaultDataDir('linux', { XDG_DATA_HOME: '/data/xdg' }, '/home/ada'), '/data/xdg/hone');
  // XDG says a relative XDG_DATA_HOME is invalid: ignored
  assert.equal(defaultDataDir('linux', { XDG_DATA_HOME: 'rel/xdg' }, '/home/ada'), '/home/ada/.local/share/hone');
  assert.equal(defaultDataDir('freebsd', {}, '/home/ada'), '/home/ada/.local/share/hone');
  assert.equal(defaultDataDir('darwin', { XDG_DATA_HOME: '/x' }, '/Users/ada'), '/Users/ada/Library/Application Support/Hone');
  assert.equal(defaultDataDir('win32', { APPDATA: 'C:\\Users\\ada\\AppData\\Roaming' }, 'C:\\Users\\ada'), 'C:\\Users\\ada\\AppData\\Roaming\\Hone');
  assert.equal(defaultDataDir('win32', {}, 'C:\\Users\\ada'), win32.join('C:\\Users\\ada', 'AppData', 'Roaming', 'Hone'));
});

test('an explicit folder wins over HONE_DATA_DIR, which wins over the default; all made absolute', () => {
  assert.equal(resolveDataDir('here/data', { HONE_DATA_DIR: '/env/data' }), resolve('here/data'));
  assert.equal(resolveDataDir(null, { HONE_DATA_DIR: 'env-data' }), resolve('env-data'));
  assert.equal(resolveDataDir(undefined, { XDG_DATA_HOME: '/xdg' }), process.platform === 'linux' ? join('/xdg', 'hone') : defaultDataDir(process.platform, { XDG_DATA_HOME: '/xdg' }));
});
