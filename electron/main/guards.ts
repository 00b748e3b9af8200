/**
 * What the page may do beyond its own files: nothing. No new windows (an allow-listed https
 * link opens in the system browser instead), no navigation away, no webviews, no permission
 * (camera, notifications, …), no request to the network or to file:// — the app's protocol only.
 */
import type { Session, WebContents } from 'electron';
import { isAllowedExternal } from '../common/shell.ts';
import { isAppUrl } from './app-protocol.ts';

/** Schemes a page request may use besides the app's own: inline data, devtools' own pages. */
const LOCAL_SCHEMES = ['data:', 'blob:', 'devtools:', 'chrome-extension:'];

/** True when a request the page makes stays on the machine and inside the app. */
export function isAllowedRequest(url: string): boolean {
  if (isAppUrl(url)) return true;
  return LOCAL_SCHEMES.some((s) => url.startsWith(s));
}

export type OpenExternal = (url: string) => void;

/** Window-open and navigation handlers of one page (every web contents the app creates gets them). */
export function guardContents(contents: WebContents, openExternal: OpenExternal): void {
  contents.setWindowOpenHandler(({ url }) => {
    if (isAllowedExternal(url)) openExternal(url);
    return { action: 'deny' };
  });
  const block = (event: { preventDefault(): void }, url: string) => {
    // in-page moves (the hash routes) are not navigations; anything else would leave the app
    event.preventDefault();
    if (isAllowedExternal(url)) openExternal(url);
  };
  contents.on('will-navigate', block);
  contents.on('will-redirect', block);
  contents.on('will-attach-webview', (event) => event.preventDefault());
}

/** Permission and request handlers of the app's session. */
export function guardSession(session: Session): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler?.(() => false);
  session.webRequest.onBeforeRequest({ urls: ['<all_urls>'] }, (details, callback) => callback({ cancel: !isAllowedRequest(details.url) }));
}
