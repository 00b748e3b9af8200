// The desktop window's security defaults, each asserted: the webPreferences flags, the CSP on
// every page answer, no window.open, no navigation away, no webviews, no permissions, no request
// to the network or to file://, and the app protocol serves nothing outside the renderer's folder.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Session, WebContents } from 'electron';
import { APP_SCHEME_PRIVILEGES, APP_URL, appResponse, isAppUrl } from '../../electron/main/app-protocol.ts';
import { guardContents, guardSession, isAllowedRequest } from '../../electron/main/guards.ts';
import { secureWebPreferences, windowOptions } from '../../electron/main/window-options.ts';
import { FakeSession, FakeWebContents } from '../helpers/fake-electron.ts';
import { tempFiles } from '../helpers/temp-files.ts';

test('every window is isolated, sandboxed, without Node, with web security on', () => {
  const prefs = windowOptions({ width: 1280, height: 800 }, '/app/preload.cjs').webPreferences!;
  assert.deepEqual(prefs, secureWebPreferences('/app/preload.cjs'));
  assert.equal(prefs.preload, '/app/preload.cjs');
  assert.equal(prefs.contextIsolation, true);
  assert.equal(prefs.sandbox, true);
  assert.equal(prefs.nodeIntegration, false);
  assert.equal(prefs.nodeIntegrationInWorker, false);
  assert.equal(prefs.nodeIntegrationInSubFrames, false);
  assert.equal(prefs.webSecurity, true);
  assert.equal(prefs.allowRunningInsecureContent, false);
  assert.equal(prefs.webviewTag, false);
  assert.equal(prefs.navigateOnDragDrop, false);
});

test('window.open is denied; only allow-listed https links go to the system browser', () => {
  const contents = new FakeWebContents();
  const opened: string[] = [];
  guardContents(contents as unknown as WebContents, (u) => opened.push(u));
  for (const url of ['https://huggingface.co/Qwen/Qwen3-4B', 'https://evil.example/phish', 'http://github.com/x', 'file:///etc/passwd', 'https://user:pw@github.com/']) {
    assert.deepEqual(contents.openHandler!({ url }), { action: 'deny' }, url);
  }
  assert.deepEqual(opened, ['https://huggingface.co/Qwen/Qwen3-4B']);
});

test('navigation away from the app, redirects and webviews are blocked', () => {
  const contents = new FakeWebContents();
  const opened: string[] = [];
  guardContents(contents as unknown as WebContents, (u) => opened.push(u));
  for (const [event, url] of [['will-navigate', 'https://evil.example/'], ['will-navigate', 'file:///home/u/.ssh/id_rsa'], ['will-redirect', 'https://evil.example/'], ['will-navigate', 'https://github.com/']]) {
    let prevented = false;
    contents.emit(event, { preventDefault: () => (prevented = true) }, url);
    assert.ok(prevented, `${event} ${url}`);
  }
  // a link to an allowed host still reaches the browser, outside the app
  assert.deepEqual(opened, ['https://github.com/']);
  let webview = false;
  contents.emit('will-attach-webview', { preventDefault: () => (webview = true) }, {}, {});
  assert.ok(webview);
});

test('permission requests and checks are denied; requests leave neither the app nor the machine', () => {
  const s = new FakeSession();
  guardSession(s as unknown as Session);
  for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal']) {
    let granted: boolean | null = null;
    s.permissionRequest!({}, p, (ok) => (granted = ok));
    assert.equal(granted, false, p);
  }
  assert.equal(s.permissionCheck!(), false);
  assert.deepEqual(s.beforeRequestFilter, { urls: ['<all_urls>'] });
  for (const url of ['https://cdn.example/lib.js', 'http://127.0.0.1:8080/', 'ws://localhost:1/', 'file:///etc/passwd', 'hone-app://other/index.html']) {
    assert.equal(s.cancels(url), true, url);
  }
  for (const url of [APP_URL, 'hone-app://app/assets/index.js', 'data:image/png;base64,AAAA']) assert.equal(s.cancels(url), false, url);
  assert.equal(isAllowedRequest('https://huggingface.co/'), false);
});

test("the app protocol is standard and secure, and serves the renderer's files with the CSP", async (t) => {
  assert.deepEqual(APP_SCHEME_PRIVILEGES.privileges, { standard: true, secure: true, supportFetchAPI: true });
  const root = tempFiles(t, { 'renderer/index.html': '<!doctype html><title>Hone</title>', 'renderer/assets/app.js': 'console.log(1)', 'secret.txt': 'not for the page' });
  const dir = join(root, 'renderer');

  const page = await appResponse(dir, { url: APP_URL, method: 'GET' });
  assert.equal(page.status, 200);
  assert.equal(await page.text(), '<!doctype html><title>Hone</title>');
  assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = page.headers.get('content-security-policy')!;
  for (const part of ["default-src 'self'", "connect-src 'self'", "object-src 'none'", "frame-ancestors 'none'", "base-uri 'none'"]) assert.ok(csp.includes(part), `${part} in ${csp}`);
  assert.ok(!/https?:|\*/.test(csp), `no remote source in ${csp}`);
  assert.equal(page.headers.get('x-content-type-options'), 'nosniff');

  const js = await appResponse(dir, { url: 'hone-app://app/assets/app.js' });
  assert.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  assert.equal((await appResponse(dir, { url: 'hone-app://app/' })).status, 200);

  for (const url of ['hone-app://app/../secret.txt', 'hone-app://app/%2e%2e/secret.txt', 'hone-app://app/..%2fsecret.txt', 'hone-app://app/assets%5c..%5c..%5csecret.txt', 'hone-app://elsewhere/index.html', 'hone-app://app/missing.js']) {
    const r = await appResponse(dir, { url });
    assert.equal(r.status, 404, url);
    assert.ok(!(await r.text()).includes('not for the page'), url);
  }
  assert.equal((await appResponse(dir, { url: APP_URL, method: 'POST' })).status, 405);
  assert.equal(isAppUrl('hone-app://app/x'), true);
  assert.equal(isAppUrl('https://app/x'), false);
  assert.equal(isAppUrl(undefined), false);
});
