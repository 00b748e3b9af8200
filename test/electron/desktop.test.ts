// The desktop app end to end: the real Electron binary through Playwright's Electron support,
// the compiled main, preload and engine host, the renderer from the app protocol, and the real
// engine on the stories260K fixture. Runs where Electron's binary is installed (the Linux CI
// workflow, under xvfb-run); where it cannot be downloaded the test says so and skips, unless
// HONE_REQUIRE_ELECTRON=1 makes that a failure.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { _electron, type ElectronApplication } from 'playwright-core';
import { electronExecutable } from '../../electron/cli/desktop.ts';
import { build } from '../../scripts/build.ts';
import { buildRenderer, repoRoot, tempTree } from '../helpers/browser.ts';
import { requireFixture } from '../helpers/fixtures.ts';

const SHOTS = join(repoRoot, 'out', 'test-electron');

test('the desktop app: isolated page, app protocol, guards, and a model and dataset through the real engine', { timeout: 300_000 }, async (t) => {
  const bin = electronExecutable();
  if ('missing' in bin) {
    const why = `no desktop end to end here: ${bin.missing}`;
    if (process.env.HONE_REQUIRE_ELECTRON === '1') assert.fail(why);
    t.skip(why);
    return;
  }
  const model = requireFixture(t, 'stories260K.gguf');
  if (!model) return;
  await build();
  await buildRenderer();
  const tree = tempTree('hone-electron-');
  t.after(() => tree.remove());
  const home = tree.dir('home');
  const dataDir = tree.dir('data');
  const data = join(tree.root, 'chat.jsonl');
  writeFileSync(data, ['{"messages":[{"role":"user","content":"Say hi"},{"role":"assistant","content":"Hi there!"}]}', '{"messages":[{"role":"user","content":"Name a colour"},{"role":"assistant","content":"Blue."}]}', '{not json'].join('\n') + '\n');

  const app: ElectronApplication = await _electron.launch({
    executablePath: bin.path,
    args: [join(repoRoot, 'out', 'build', 'main', 'main.js')],
    env: { ...process.env, HOME: home, HONE_DATA_DIR: dataDir, XDG_DATA_HOME: join(home, '.local', 'share') },
  });
  let closed = false;
  t.after(async () => {
    if (!closed) await app.close().catch(() => {});
  });
  const win = await app.firstWindow();
  await win.waitForLoadState('domcontentloaded');
  assert.equal(win.url(), 'hone-app://app/index.html');

  // the page: no Node, the contract's objects only
  const page = await win.evaluate(() => ({
    require: typeof (window as unknown as { require?: unknown }).require,
    process: typeof (globalThis as { process?: unknown }).process,
    hone: Object.keys((window as unknown as { hone: object }).hone).sort(),
    shell: typeof (window as unknown as { honeShell?: unknown }).honeShell,
  }));
  assert.equal(page.require, 'undefined');
  assert.equal(page.process, 'undefined');
  assert.ok(page.hone.includes('runs') && page.hone.includes('subscribe'), page.hone.join(','));
  assert.equal(page.shell, 'object');
  // sandboxed (Electron reports it on macOS and Windows; elsewhere the flag is absent, never false)
  const sandboxed = await app.evaluate(({ app: a }) => a.getAppMetrics().filter((m) => m.type === 'Tab').map((m) => m.sandboxed));
  assert.ok(sandboxed.length > 0 && sandboxed.every((s) => s !== false), `the page runs sandboxed (${JSON.stringify(sandboxed)})`);
  // the CSP on the app's own answers; no remote request, no new window
  const csp = await win.evaluate(async () => (await fetch('/index.html')).headers.get('content-security-policy'));
  assert.match(String(csp), /default-src 'self'/);
  assert.equal(await win.evaluate(() => fetch('https://example.com/').then(() => 'loaded', () => 'blocked')), 'blocked');
  assert.equal(await win.evaluate(() => window.open('https://example.com/') === null), true);
  assert.equal(app.windows().length, 1);

  // a model by path, then a dataset through the file input (real files, so real paths)
  await win.getByTestId('model-path').fill(model);
  await win.getByRole('button', { name: 'Open', exact: true }).click();
  await win.getByTestId('model-details').getByText('llama', { exact: true }).waitFor({ timeout: 60_000 });
  await win.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: /^Datasets/ }).click();
  await win.getByLabel('Data files').setInputFiles(data);
  await win.getByTestId('dataset-summary').waitFor({ timeout: 60_000 });
  const files = await win.getByTestId('dataset-files').innerText();
  assert.match(files, /chat\.jsonl/);
  // the file was read where it is (no upload copy in the data folder)
  assert.ok(!existsSync(join(dataDir, 'uploads')), 'the desktop app reads dropped files in place');
  mkdirSync(SHOTS, { recursive: true });
  await win.screenshot({ path: join(SHOTS, 'datasets.png') });

  await app.close();
  closed = true;
});
