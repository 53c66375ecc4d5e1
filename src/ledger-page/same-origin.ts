/**
 * Whether a POST comes from this page itself, not from another site's form (CSRF): the
 * browser's `Sec-Fetch-Site` must say `same-origin`; a browser too old to send it must send an
 * `Origin` equal to the request's own. A request with neither is refused: every browser that
 * can submit the page's form sends one of them, and a session cookie alone proves nothing.
 */
export function isSameOriginPost(request: Request): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) return site === 'same-origin';
  const origin = request.headers.get('origin');
  if (origin === null || origin === 'null') return false;
  try {
    return origin === new URL(request.url).origin;
  } catch {
    return false;
  }
}
