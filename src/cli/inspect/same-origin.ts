import type { IncomingHttpHeaders } from 'node:http';

/**
 * True when a POST comes from the inspector's own page. Browsers send `Origin` on every POST
 * and, today, `Sec-Fetch-Site`; a page on another site (or another port of 127.0.0.1) cannot
 * forge either. A request with neither is refused too: the page always sends them, and the
 * actions sign deliveries with the developer's token.
 */
export function sameOriginPost(headers: IncomingHttpHeaders, origin: string): boolean {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  if (headers.origin !== undefined) return headers.origin === origin;
  return site === 'same-origin';
}
