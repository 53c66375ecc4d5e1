import { PAGE_STYLE } from './page-style.js';

/** The SHA-256 of a text's UTF-8 bytes, base64, as a CSP source expression wants it. */
async function sha256Base64(text: string): Promise<string> {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let binary = '';
  for (const byte of digest) binary += String.fromCharCode(byte);
  return btoa(binary);
}

let styleSource: Promise<string> | undefined;

/** The CSP source allowing the page's one `<style>` element, hashed once per process. */
export function styleHashSource(): Promise<string> {
  styleSource ??= sha256Base64(PAGE_STYLE).then((hash) => `'sha256-${hash}'`);
  return styleSource;
}

/**
 * The Content-Security-Policy of every answer: nothing may load or run (no script at all, no
 * image, font, frame or connection) except the one stylesheet, by its hash; forms post only to
 * this origin, no page may frame this one, and no `<base>` can move its relative links.
 */
export function contentSecurityPolicy(styleSource: string): string {
  return [
    "default-src 'none'",
    `style-src ${styleSource}`,
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** The headers every answer of the page carries, whatever its status. */
export async function securityHeaders(): Promise<Record<string, string>> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': contentSecurityPolicy(await styleHashSource()),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  };
}

/** What the handler answers: a status, the markup, and headers beyond the security ones. */
export interface PageAnswer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

/** The `Response` for an answer, with the security headers; no body for HEAD. */
export async function pageResponse(answer: PageAnswer, method: string): Promise<Response> {
  const headers = { ...(await securityHeaders()), ...answer.headers };
  return new Response(method === 'HEAD' ? null : answer.body, { status: answer.status, headers });
}
