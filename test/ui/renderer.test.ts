// The renderer end to end: Debian's chromium against `hone serve` with the real service, engine
// host and engine on the stories260K fixture. A person's path through the app: add a model
// folder and pick the model, drop a dataset with broken lines, see the plan, train, watch the
// curve and the ops, stop, reload, find the run, train one to the end and find its adapter on
// disk, export it for transformers, continue it for a few steps. Every view is photographed in
// light and dark (out/test-ui/) and scanned with axe-core.
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations, buildRenderer, descendantsMatching, launchChromium, repoRoot, startServe, tempTree } from '../helpers/browser.ts';
import { requireFixture } from '../helpers/fixtures.ts';

const VIEWS = ['models', 'datasets', 'settings', 'train', 'ops', 'runs'] as const;
const SHOTS = join(repoRoot, 'out', 'test-ui');

async function go(page: Page, view: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: new RegExp(`^${view}`, 'i') }).click();
  await page.waitForFunction((v) => document.querySelector('main')?.getAttribute('data-view') === v, view);
}

/** Drops files on the drop zone the way a browser does: a real DataTransfer holding real Files. */
async function dropFiles(page: Page, selector: string, files: Array<{ name: string; text: string }>): Promise<void> {
  await page.evaluate(
    ({ selector, files }) => {
      const dt = new DataTransfer();
      for (const f of files) dt.items.add(new File([f.text], f.name, { type: 'application/octet-stream' }));
      const zone = document.querySelector(selector)!;
      for (const type of ['dragenter', 'dragover', 'drop']) zone.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
    },
    { selector, files },
  );
}

/** How far the page scrolls sideways (0: it fits the window's width). */
const horizontalOverflow = (page: Page) => page.evaluate(() => Math.max(0, document.documentElement.scrollWidth - window.innerWidth));

const statValue = (page: Page, label: string) => page.locator('.stat', { has: page.locator('.stat-label', { hasText: new RegExp(`^${label}$`) }) }).locator('.stat-value');

test('a person trains a LoRA in the browser: model, dataset, plan, run, ops, history, adapter', { timeout: 600_000 }, async (t) => {
  const model = requireFixture(t, 'stories260K.gguf');
  const chats = requireFixture(t, 'chat_elements_limericks.jsonl');
  if (!model || !chats) return;
  const tree = tempTree('hone-ui-');
  const home = tree.dir('home');
  const models = tree.dir('models');
  symlinkSync(model, join(models, 'stories260K.gguf'));
  const staticDir = tree.dir('renderer');
  await buildRenderer(staticDir).catch((e) => {
    tree.remove();
    throw e;
  });

  // the real limericks with two broken records after them: one not JSON, one without an assistant turn
  const good = readFileSync(chats, 'utf8').split('\n').filter((l) => l.trim());
  const text = [...good, '{"messages": [{"role": "user", "content": "Tell me about Neon"', JSON.stringify({ messages: [{ role: 'user', content: 'Tell me about Argon' }] })].join('\n') + '\n';
  const badJsonLine = good.length + 1;
  const noAssistantLine = good.length + 2;

  const serve = await startServe({ dataDir: tree.dir('data'), staticDir, home }).catch((e) => {
    tree.remove();
    throw e;
  });
  const browser = await launchChromium().catch(async (e) => {
    await serve.stop();
    tree.remove();
    throw e;
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: 'light' });
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });

  // a failure leaves a picture of the page and the server's output; then everything is closed
  let failed = true;
  t.after(async () => {
    if (failed) {
      mkdirSync(SHOTS, { recursive: true });
      await page.screenshot({ path: join(SHOTS, 'failure.png'), fullPage: true }).catch(() => {});
      console.log(`hone serve output:\n${serve.output()}`);
    }
    await browser.close();
    await serve.stop();
    tree.remove();
  });

  await page.goto(serve.url);
  // the token became a cookie and left the address bar
  assert.equal(new URL(page.url()).search, '');
  await page.getByText('Connected').waitFor();

  // ---- Models: an added folder holding the fixture; pick it -------------------------------------
  await page.getByTestId('model-folder').fill(models);
  await page.getByRole('button', { name: 'Add folder' }).click();
  const row = page.getByRole('row', { name: /stories260K\.gguf/ });
  await row.waitFor();
  await row.click();
  const details = page.getByTestId('model-details');
  await details.getByText('llama', { exact: true }).waitFor();
  assert.match(await details.innerText(), /trainable/);

  // ---- Datasets: a real drop ------------------------------------------------------------------
  await go(page, 'datasets');
  await dropFiles(page, '[data-testid=dataset-drop-zone]', [{ name: 'limericks-broken.jsonl', text }]);
  const summary = page.getByTestId('dataset-summary');
  await summary.waitFor({ timeout: 60_000 });
  assert.equal(await statValue(page, 'Format').innerText(), 'openai-chat');
  assert.equal(await statValue(page, 'Records').innerText(), String(good.length + 2));
  assert.equal(await statValue(page, 'Skipped').innerText(), '2');
  assert.equal(await statValue(page, 'Valid').innerText(), String(good.length));
  const problems = page.getByRole('table', { name: 'Problems' });
  await problems.getByRole('row', { name: new RegExp(`limericks-broken\\.jsonl ${badJsonLine}\\b.*bad_json`) }).waitFor();
  await problems.getByRole('row', { name: new RegExp(`limericks-broken\\.jsonl ${noAssistantLine}\\b.*no_assistant`) }).waitFor();
  // uploaded into the data folder; the file list names it
  assert.match(await page.getByTestId('dataset-files').innerText(), /limericks-broken\.jsonl\s+openai-chat/);
  // the engine refuses data with errors, and Settings says so before a start is tried
  await go(page, 'settings');
  await page.getByText(/2 invalid record/).waitFor();
  assert.equal(await page.getByTestId('start-run').isDisabled(), true);
  // the broken file goes, the clean one comes
  await go(page, 'datasets');
  await page.getByRole('button', { name: 'Remove limericks-broken.jsonl' }).click();
  await summary.waitFor({ state: 'detached' });
  await dropFiles(page, '[data-testid=dataset-drop-zone]', [{ name: 'limericks.jsonl', text: good.join('\n') + '\n' }]);
  await summary.waitFor({ timeout: 60_000 });
  assert.equal(await statValue(page, 'Skipped').innerText(), '0');
  // the model's view of the data: rendered through its template
  const tokens = page.getByTestId('token-stats');
  await tokens.waitFor({ timeout: 120_000 });
  assert.equal(await tokens.locator('.stat', { hasText: 'Examples' }).locator('.stat-value').innerText(), String(good.length));
  await page.getByTestId('preview').locator('mark').first().waitFor();

  // ---- Settings: a short run on a small context; the plan follows ------------------------------
  await go(page, 'settings');
  await page.getByRole('radio', { name: 'Steps', exact: true }).click();
  await page.getByTestId('field-steps').fill('4000');
  await page.getByTestId('field-ctx').fill('256');
  await page.getByTestId('field-rank').fill('4');
  await page.getByLabel('Checkpoint every').fill('5');
  const plan = page.getByTestId('plan');
  await plan.getByTestId('pool-CPU').waitFor({ timeout: 120_000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid=plan]')?.getAttribute('aria-busy')?.includes('true'));
  assert.match(await plan.innerText(), /Op placement[\s\S]*CPU[\s\S]*ops/);
  // the plan's op report, before anything trains
  await go(page, 'ops');
  await page.getByRole('table', { name: 'Ops of the training graph' }).getByRole('row', { name: /MUL_MAT\s+CPU/ }).first().waitFor();
  assert.match(await page.getByText(/^Placement \(planned\)$/).innerText(), /planned/);
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, 'ops-plan-light.png') });
  await go(page, 'settings');

  await page.getByTestId('start-run').click();
  await page.waitForFunction(() => document.querySelector('main')?.getAttribute('data-view') === 'train', undefined, { timeout: 60_000 });
  // the chart draws points as steps arrive
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=loss-chart]')?.getAttribute('data-points') ?? 0) >= 10, undefined, { timeout: 60_000 });
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, 'train-running-light.png') });
  // speed in real tokens, and how full the rows were: chat examples leave padding in their rows
  const fill = (await page.getByTestId('stat-row-fill').innerText()).match(/^rows (\d+)% full$/);
  assert.ok(fill && Number(fill[1]) > 0 && Number(fill[1]) <= 100, `row fill: ${fill}`);
  assert.ok(Number((await page.getByTestId('stat-tps').innerText()).replace(/\D/g, '')) > 0);
  const curve = await page.locator('[data-testid=loss-chart] .recharts-line-curve').first().getAttribute('d');
  assert.ok(curve && (curve.match(/L/g) ?? []).length >= 4, `the loss line has too few segments: ${curve}`);
  assert.equal(await page.getByTestId('run-status').innerText(), 'running');

  // ---- Ops: the running graph's report fills with the CPU backend ------------------------------
  await go(page, 'ops');
  await page.getByRole('radio', { name: 'Run' }).click();
  const opsTable = page.getByRole('table', { name: 'Ops of the training graph' });
  await opsTable.getByRole('row', { name: /MUL_MAT\s+CPU/ }).first().waitFor({ timeout: 60_000 });
  assert.ok((await opsTable.getByRole('row').count()) > 5);

  // ---- a reload mid-run brings the run back with its whole curve --------------------------------
  await go(page, 'train');
  const before = Number(await page.getByTestId('loss-chart').getAttribute('data-points'));
  await page.reload();
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid=loss-chart]')?.getAttribute('data-points') ?? 0) >= n, before, { timeout: 60_000 });
  assert.equal(await page.getByTestId('run-status').innerText(), 'running');

  // ---- the engine host dies mid-run: its reason and "resume from step N", never a spinner ------
  const hosts = descendantsMatching(serve.child.pid!, /host-main/);
  assert.equal(hosts.length, 1, `expected one engine host under hone serve, found ${hosts.length}`);
  process.kill(hosts[0], 'SIGKILL');
  const crash = page.getByTestId('crash-panel');
  await crash.waitFor({ timeout: 60_000 });
  assert.match(await crash.innerText(), /SIGKILL/);
  await page.screenshot({ path: join(SHOTS, 'train-host-died-light.png') });
  assert.equal(await page.locator('.spinner').count(), 0);
  const resume = crash.getByRole('button', { name: /^Resume from step \d+$/ });
  await resume.waitFor({ timeout: 30_000 });
  const resumeStep = Number((await resume.innerText()).replace(/\D/g, ''));
  assert.ok(resumeStep >= 5 && resumeStep % 5 === 0, `resumable from step ${resumeStep}: checkpoints are every 5 steps`);
  await resume.click();
  await crash.waitFor({ state: 'detached', timeout: 60_000 });
  await page.waitForFunction(() => document.querySelector('[data-testid=run-status]')?.textContent === 'running', undefined, { timeout: 60_000 });
  await page.waitForFunction((n) => Number(document.querySelector('[data-testid=stat-step]')?.textContent?.split('/')[0].replace(/\D/g, '')) > n, resumeStep, { timeout: 60_000 });

  // ---- stop; reload; the run is in history ------------------------------------------------------
  await page.getByTestId('stop-run').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=run-status]')?.textContent === 'stopped', undefined, { timeout: 120_000 });
  const stoppedAt = Number((await page.getByTestId('stat-step').innerText()).split('/')[0].replace(/\D/g, ''));
  assert.ok(stoppedAt > 0 && stoppedAt < 4000, `stopped at step ${stoppedAt}`);

  await page.reload();
  await go(page, 'runs');
  const runs = page.getByRole('table', { name: 'Runs' });
  const stoppedRow = runs.getByRole('row', { name: /stories260K.*stopped/ });
  await stoppedRow.waitFor();

  // ---- a second run trained to the end writes the adapter -----------------------------------------
  // the model, the data and the settings came back with the page
  await go(page, 'settings');
  assert.match(await page.locator('.page-subtitle').innerText(), /Training\s+stories260K\.gguf\s+on limericks\.jsonl/);
  assert.equal(await page.getByTestId('field-steps').inputValue(), '4000');
  await page.getByRole('radio', { name: /Quick test/ }).click();
  await page.getByTestId('field-ctx').fill('256');
  await page.getByTestId('field-steps').fill('12');
  await page.getByTestId('start-run').click();
  await page.waitForFunction(() => document.querySelector('[data-testid=run-status]')?.textContent === 'finished', undefined, { timeout: 300_000 });
  const adapter = (await page.getByTestId('adapter-path').locator('.path-text').innerText()).trim();
  assert.ok(existsSync(adapter), `the adapter shown (${adapter}) is not on disk`);
  const magic = Buffer.alloc(4);
  const fd = openSync(adapter, 'r');
  readSync(fd, magic, 0, 4, 0);
  closeSync(fd);
  assert.equal(magic.toString('latin1'), 'GGUF');

  // ---- Runs: both, their curves overlaid, what differs, the adapter's path ------------------------
  await go(page, 'runs');
  await runs.getByRole('row', { name: /finished/ }).waitFor();
  for (const cb of await page.getByRole('checkbox', { name: /^Compare / }).all()) await cb.check();
  const diff = page.getByTestId('config-diff');
  await diff.waitFor();
  assert.match(await diff.innerText(), /steps\s+(4000\s+12|12\s+4000)/);
  await runs.getByRole('row', { name: /finished/ }).getByRole('button').click();
  assert.equal((await page.getByTestId('run-adapter').locator('.path-text').innerText()).trim(), adapter);
  assert.match(await page.getByTestId('run-speed').innerText(), /^[\d,]+ real tokens\/s · rows \d+% full$/);

  // ---- export it for transformers (PEFT) from the run, and find the files on disk ---------------
  await page.getByRole('radio', { name: /^PEFT/ }).click();
  await page.getByTestId('export-start').click();
  const exported = page.getByTestId('export-result');
  await exported.waitFor({ timeout: 120_000 });
  const written = (await exported.locator('.file-list .path-text').allInnerTexts()).map((f) => f.trim());
  const safetensors = written.find((f) => f.endsWith('adapter_model.safetensors'));
  const peftConfig = written.find((f) => f.endsWith('adapter_config.json'));
  assert.ok(safetensors && existsSync(safetensors), `the PEFT weights are on disk (${written.join(', ')})`);
  assert.ok(peftConfig && existsSync(peftConfig));
  assert.equal(JSON.parse(readFileSync(peftConfig, 'utf8')).peft_type, 'LORA');
  await page.screenshot({ path: join(SHOTS, 'runs-export-light.png'), fullPage: true });

  // ---- try it: one prompt through the base and through the base with this adapter, side by side --
  await page.getByTestId('try-prompt').fill('Tell me a limerick about neon');
  await page.getByTestId('try-send').click();
  // the base answers first, then the adapter streams; Stop ends it mid-reply
  await page.waitForFunction(() => (document.querySelector('[data-testid=try-adapter]')?.textContent?.trim().length ?? 0) > 20, undefined, { timeout: 180_000 });
  await page.getByTestId('try-stop').click();
  await page.waitForFunction(() => (document.querySelector('[data-testid=try-stop]') as HTMLButtonElement | null)?.disabled === true, undefined, { timeout: 60_000 });
  const baseReply = (await page.getByTestId('try-base').innerText()).trim();
  const tunedReply = (await page.getByTestId('try-adapter').innerText()).trim();
  assert.ok(baseReply.length > 0 && tunedReply.length > 0, `both replied (base ${JSON.stringify(baseReply)}, adapter ${JSON.stringify(tunedReply)})`);
  await page.getByTestId('try-prompt').scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(SHOTS, 'runs-try-light.png') });

  // ---- continue the finished run for 4 more steps: a new segment on its adapter and optimizer ---
  await page.getByLabel('Train further (steps)').fill('4');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForFunction(() => document.querySelector('main')?.getAttribute('data-view') === 'train');
  await page.waitForFunction(() => document.querySelector('[data-testid=run-status]')?.textContent === 'finished', undefined, { timeout: 300_000 });
  await go(page, 'runs');
  await runs.getByRole('row', { name: /finished 16 \/ 16/ }).waitFor({ timeout: 30_000 });

  // ---- every view, light and dark: screenshots and the accessibility scan ------------------------
  mkdirSync(SHOTS, { recursive: true });
  const problemsFound: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const view of VIEWS) {
      await go(page, view);
      if (view === 'ops') await page.getByRole('radio', { name: 'Run' }).click();
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(SHOTS, `${view}-${scheme}.png`) });
      assert.equal(await horizontalOverflow(page), 0, `${view} (${scheme}) scrolls sideways at 1280×800`);
      for (const v of await axeViolations(page)) problemsFound.push(`${view} (${scheme}): ${v.impact} ${v.id}: ${v.help}: ${v.nodes.map((n) => `${n.target.join(' ')} ${n.html.slice(0, 100)} (${n.failureSummary?.split('\n').slice(-1)[0] ?? ''})`).join('; ')}`);
    }
  }
  assert.deepEqual(problemsFound, [], `accessibility violations:\n${problemsFound.join('\n')}`);

  // ---- a 4K display: unscaled (3840×2160) and at 200 % (the usual setting); nothing overflows --
  for (const [w, h, scale] of [[3840, 2160, 1], [1920, 1080, 2]] as const) {
    // a context of its own (the scale is per context) with the session's cookie
    const context = await browser.newContext({ viewport: { width: w, height: h }, deviceScaleFactor: scale, colorScheme: 'light' });
    await context.addCookies(await page.context().cookies());
    const big = await context.newPage();
    await big.goto(page.url());
    for (const view of VIEWS) {
      await go(big, view);
      await big.waitForTimeout(300);
      assert.equal(await horizontalOverflow(big), 0, `${view} scrolls sideways at ${w}×${h}@${scale}x`);
      if (view === 'train' || view === 'runs') await big.screenshot({ path: join(SHOTS, `${view}-4k-${scale}x.png`) });
    }
    await context.close();
  }
  assert.deepEqual(pageErrors, [], `errors in the page:\n${pageErrors.join('\n')}`);
  failed = false;
});
