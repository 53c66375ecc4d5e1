import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { PAGE_STYLE } from './page-style.js';
import { contentSecurityPolicy, pageResponse, securityHeaders, styleHashSource } from './security-headers.js';

describe('security headers', () => {
  it('allows the one stylesheet by the SHA-256 of its exact text', async () => {
    const expected = createHash('sha256').update(PAGE_STYLE, 'utf8').digest('base64');
    expect(await styleHashSource()).toBe(`'sha256-${expected}'`);
  });

  it('sets a policy with no script, no inline style and nothing loaded from anywhere', async () => {
    const csp = contentSecurityPolicy(await styleHashSource());
    expect(csp).toMatch(
      /^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/]{43}='; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
    );
    expect(csp).not.toMatch(/script-src|unsafe-inline|unsafe-eval|img-src|\*/);
  });

  it('sends every header on every answer, HEAD without a body', async () => {
    const headers = await securityHeaders();
    expect(headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
    });
    const head = await pageResponse({ status: 403, body: '<p>no</p>' }, 'HEAD');
    expect(head.status).toBe(403);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-security-policy')).toBe(headers['content-security-policy']);
    const redirect = await pageResponse({ status: 303, body: '', headers: { location: '?recovered=1' } }, 'POST');
    expect(redirect.headers.get('location')).toBe('?recovered=1');
    expect(redirect.headers.get('x-frame-options')).toBe('DENY');
  });
});
