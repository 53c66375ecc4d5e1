import { type Context, Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerPage, memoryLedger } from 'webhook-cms-receiver';
import type { RunningServer } from '../helpers/listen.js';
import { serveHono } from '../adapters/servers.js';

type AppEnv = { Variables: { user?: { role: 'admin' | 'viewer' } } };

describe('the Fetch ledger page in Hono, behind its login middleware', () => {
  let server: RunningServer;
  const ledger = memoryLedger();

  beforeAll(async () => {
    const app = new Hono<AppEnv>();
    app.use(async (c, next) => {
      const session = /(?:^|; )session=(\w+)/.exec(c.req.header('cookie') ?? '')?.[1];
      if (session === 'alice') c.set('user', { role: 'admin' });
      if (session === 'bob') c.set('user', { role: 'viewer' });
      await next();
    });
    const page = ledgerPage(ledger, { authorize: (_request, c?: Context<AppEnv>) => c?.var.user?.role === 'admin' });
    app.all('/admin/deliveries', (c) => page(c.req.raw, c));
    server = await serveHono(app.fetch);
  });

  afterAll(() => server?.close());

  it('authorizes from the context the route hands over, with every security header', async () => {
    const open = (session?: string) =>
      fetch(`${server.url}/admin/deliveries`, { headers: session ? { cookie: `session=${session}` } : {} });
    expect((await open()).status).toBe(403);
    expect((await open('bob')).status).toBe(403);
    const page = await open('alice');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('No request matches these filters.');
    expect(Object.fromEntries(page.headers)).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
    });
    expect(page.headers.get('content-security-policy')).toMatch(
      /^default-src 'none'; style-src 'sha256-[\w+/]{43}='; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
    );
  });
});
