/**
 * The page's Content-Security-Policy, one policy for web mode (an HTTP header) and the app (its
 * protocol's responses): the page's own scripts and styles only, no remote content, no frames,
 * no plugins. `connect` adds sources the page may open connections to (web mode's WebSocket).
 * No platform imports.
 */
export function contentSecurityPolicy(connect: string[] = []): string {
  return [
    "default-src 'self'",
    `connect-src ${["'self'", ...connect].join(' ')}`,
    "img-src 'self' data:",
    // the charts set style attributes; no style comes from elsewhere
    "style-src 'self' 'unsafe-inline'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
