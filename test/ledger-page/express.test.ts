import { createServer } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createReceiver, memoryLedger } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/express';
import { ledgerPage } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';
import { expectedRefusal } from '../testing/quiet.js';

const TOKEN = 'whk_ledger_page_express_token_51c';
type LoggedIn = Request & { user?: { name: string; role: 'admin' | 'viewer' } };

describe('the ledger page under Express, behind a login', () => {
  let server: RunningServer;
  const errors: unknown[] = [];
  const ledger = memoryLedger({ keepRefused: true });
  const receiver = createReceiver({ token: TOKEN, ledger, onRejected: expectedRefusal });

  beforeAll(async () => {
    const app = express();
    app.set('trust proxy', 'loopback');
    app.post('/webhook', webhookHandler(receiver, { 'article.sync': () => undefined }));
    // The app's own login: a session cookie names the user.
    app.use((req: LoggedIn, _res: Response, next: NextFunction) => {
      const session = /(?:^|; )session=(\w+)/.exec(req.headers.cookie ?? '')?.[1];
      if (session === 'alice') req.user = { name: 'alice', role: 'admin' };
      if (session === 'bob') req.user = { name: 'bob', role: 'viewer' };
      if (session === 'broken') throw new Error('session store unreachable');
      next();
    });
    app.use(
      '/admin/deliveries',
      ledgerPage(ledger, {
        authorize: (req: LoggedIn) => req.user?.role === 'admin',
      }),
    );
    app.use(
      '/admin/strict',
      ledgerPage(ledger, {
        authorize: () => Promise.reject(new Error('policy engine down')),
        logger: { warn() {}, error: (line: unknown) => errors.push(line) },
      }),
    );
    server = await listen(createServer(app));

    const delivery = signDelivery({
      token: TOKEN,
      payload: articleSyncPayload({ article: { id: 'art-9', slug: 'from-express' } }),
    });
    expect(
      (await fetch(`${server.url}/webhook`, { method: 'POST', headers: delivery.headers, body: delivery.body })).status,
    ).toBe(200);
    const refused = signDelivery({
      token: 'whk_not_the_token_of_this_site_00',
      payload: articleSyncPayload({ article: { slug: 'refused-one' } }),
    });
    expect(
      (await fetch(`${server.url}/webhook`, { method: 'POST', headers: refused.headers, body: refused.body })).status,
    ).toBe(401);
    await ledger.flush();
  });

  afterAll(() => server?.close());

  const get = (path: string, session?: string) =>
    fetch(`${server.url}${path}`, { headers: session ? { cookie: `session=${session}` } : {} });

  it('shows the page to the admin only: 403 without data to anyone else', async () => {
    for (const session of [undefined, 'bob']) {
      const answer = await get('/admin/deliveries', session);
      expect(answer.status).toBe(403);
      expect(await answer.text()).not.toMatch(/from-express|refused-one|art-9/);
      expect(answer.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    }
    const page = await get('/admin/deliveries', 'alice');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const body = await page.text();
    expect(body).toContain('from-express');
    expect(body).toContain('refused-one');
    expect(body).toContain('unverified (claimed)');
  });

  it('reads the filters from the URL Express keeps whole, under its mount path', async () => {
    // The rows table only: the articles to re-send are listed above it whatever the filters.
    const rows = async (path: string) => {
      const body = await (await get(path, 'alice')).text();
      return { body, table: /<table id="rows">[\s\S]*?<\/table>/.exec(body)?.[0] ?? '' };
    };
    const history = await rows('/admin/deliveries/?article=art-9');
    expect(history.body).toContain('History of article art-9');
    expect(history.table).toContain('from-express');
    expect(history.table).not.toContain('refused-one');
    const refusals = await rows('/admin/deliveries?status=401');
    expect(refusals.table).toContain('refused-one');
    expect(refusals.table).not.toContain('from-express');
  });

  it('recovers on a same-origin POST and redirects back to the mount path; refuses a forged one', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${server.url}/admin/deliveries?action=recover`, {
        method: 'POST',
        headers: { cookie: 'session=alice', ...headers },
        redirect: 'manual',
      });
    const recovered = await post({ origin: server.url });
    expect(recovered.status).toBe(303);
    const location = new URL(recovered.headers.get('location')!, `${server.url}/admin/deliveries?action=recover`);
    expect(location.pathname).toBe('/admin/deliveries');
    expect(Object.fromEntries(location.searchParams)).toEqual({ recovered: '0', failed: '0', unverified: '1' });
    // Behind a proxy Express trusts, the origin is the https one the browser saw.
    const proxied = await post({ origin: server.url.replace('http:', 'https:'), 'x-forwarded-proto': 'https' });
    expect(proxied.status).toBe(303);
    for (const headers of [{}, { origin: 'https://evil.example' }, { 'sec-fetch-site': 'same-site' }] as Record<
      string,
      string
    >[])
      expect((await post(headers)).status).toBe(403);
    expect(
      (await fetch(`${server.url}/admin/deliveries`, { method: 'DELETE', headers: { cookie: 'session=alice' } }))
        .status,
    ).toBe(405);
  });

  it('answers 500 without detail when authorize throws, and logs it', async () => {
    const answer = await get('/admin/strict', 'alice');
    expect(answer.status).toBe(500);
    expect(await answer.text()).not.toMatch(/policy engine|from-express/);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain('authorize threw');
    expect(String(errors[0])).toContain('policy engine down');
  });
});
