// CPU fallbacks in the app, end to end on a machine without a GPU: `hone serve` whose engine host
// has HONE_TEST_REFUSE_OPS=OUT_PROD gives the training graph a primary backend (CPU-REFUSING)
// that refuses OUT_PROD, exactly as a GPU backend refuses an op it lacks. The plan, before
// anything trains, shows those nodes on the CPU, highlighted, with the backend's own reason, and
// "Fallbacks only" keeps just them. Photographed in light and dark (out/test-ui/), axe-scanned.
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations, buildRenderer, launchChromium, repoRoot, startServe, tempTree } from '../helpers/browser.ts';
import { requireFixture } from '../helpers/fixtures.ts';

const SHOTS = join(repoRoot, 'out', 'test-ui');

async function go(page: Page, view: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: new RegExp(`^${view}`, 'i') }).click();
  await page.waitForFunction((v) => document.querySelector('main')?.getAttribute('data-view') === v, view);
}

test('the plan shows the ops a backend refuses on the CPU, with its reason; "Fallbacks only" keeps them', { timeout: 300_000 }, async (t) => {
  const model = requireFixture(t, 'stories260K.gguf');
  const chats = requireFixture(t, 'chat_elements_limericks.jsonl');
  if (!model || !chats) return;
  const tree = tempTree('hone-ui-fallbacks-');
  t.after(() => tree.remove());
  const models = tree.dir('models');
  symlinkSync(model, join(models, 'stories260K.gguf'));
  const staticDir = tree.dir('renderer');
  await buildRenderer(staticDir);
  process.env.HONE_TEST_REFUSE_OPS = 'OUT_PROD';
  const serve = await startServe({ dataDir: tree.dir('data'), staticDir, home: tree.dir('home') });
  t.after(() => serve.stop());
  const browser = await launchChromium();
  t.after(() => browser.close());
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));

  await page.goto(serve.url);
  await page.getByTestId('model-folder').fill(models);
  await page.getByRole('button', { name: 'Add folder' }).click();
  await page.getByRole('row', { name: /stories260K\.gguf/ }).click();
  await page.getByTestId('model-details').getByText('llama', { exact: true }).waitFor();
  await go(page, 'datasets');
  await page.evaluate((text) => {
    const dt = new DataTransfer();
    dt.items.add(new File([text], 'limericks.jsonl'));
    const zone = document.querySelector('[data-testid=dataset-drop-zone]')!;
    for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, readFileSync(chats, 'utf8'));
  await page.getByTestId('dataset-summary').waitFor({ timeout: 60_000 });
  await go(page, 'settings');
  await page.getByTestId('field-ctx').fill('128');
  const plan = page.getByTestId('plan');
  await plan.getByTestId('pool-CPU').waitFor({ timeout: 120_000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid=plan]')?.getAttribute('aria-busy')?.includes('true'));
  // the plan's placement names both backends
  assert.match(await plan.innerText(), /CPU-REFUSING/);

  await go(page, 'ops');
  const fallbacks = page.getByTestId('fallbacks');
  await fallbacks.waitFor({ timeout: 60_000 });
  const reasons = await fallbacks.locator('.fallback-reason').allInnerTexts();
  assert.ok(reasons.some((r) => /^CPU-REFUSING: OUT_PROD with src0 f32 \[\d+,\d+,\d+,1\], src1 f32 \[\d+,\d+,\d+,1\] not supported$/.test(r)), reasons.join('\n'));
  const table = page.getByRole('table', { name: 'Ops of the training graph' });
  await table.locator('.row-fallback').first().waitFor();
  assert.match(await table.locator('.row-fallback').first().innerText(), /OUT_PROD[\s\S]*CPU/);
  // everything else stayed on the primary backend
  await table.getByRole('row', { name: /MUL_MAT\s+CPU-REFUSING/ }).first().waitFor();

  await page.getByLabel('Fallbacks only').check();
  const rows = await table.getByRole('row').allInnerTexts();
  const body = rows.slice(1); // the header row first
  assert.ok(body.length > 0, 'fallback rows remain');
  for (const r of body) assert.match(r, /CPU/, `only fallbacks: ${r}`);
  assert.ok(!body.some((r) => /CPU-REFUSING/.test(r.split('\n').slice(0, 3).join(' ')) && !/OUT_PROD/.test(r)), body.join('\n'));

  mkdirSync(SHOTS, { recursive: true });
  const problems: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForTimeout(300);
    await page.evaluate(() => document.querySelector('main')?.scrollTo(0, 0));
    await page.screenshot({ path: join(SHOTS, `ops-fallbacks-${scheme}.png`) });
    for (const v of await axeViolations(page)) problems.push(`${scheme}: ${v.impact} ${v.id}: ${v.help}`);
  }
  assert.deepEqual(problems, []);
  assert.deepEqual(pageErrors, []);
});
