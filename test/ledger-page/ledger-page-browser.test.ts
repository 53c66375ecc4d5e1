import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createReceiver, type Ledger, memoryLedger } from 'webhook-cms-receiver';
import { ledgerPage, webhookHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { describeWithChromium, launchChromium } from '../helpers/chromium.js';
import { listen, type RunningServer } from '../helpers/listen.js';
import { expectedRefusal } from '../testing/quiet.js';
import { violations, watchedPage } from './browser-page.js';
import { hostileLedger, VECTORS } from './hostile-ledger.js';

const OLD_TOKEN = 'whk_ledger_page_old_token_3f9a1c';
const NEW_TOKEN = 'whk_ledger_page_new_token_8b2e7d';
const MOUNT = '/deep/mount/deliveries';

describeWithChromium('the ledger page in a real browser', () => {
  let browser: Browser;
  let server: RunningServer;
  let token = OLD_TOKEN;
  let recoverCalls = 0;
  const handled: string[] = [];
  const ledger = memoryLedger({ keepRefused: true });
  // Counts recover() calls, so a refused POST is seen to have called nothing.
  const counted = new Proxy(ledger, {
    get(target, name) {
      if (name === 'recover')
        return (...args: Parameters<Ledger['recover']>) => {
          recoverCalls++;
          return target.recover(...args);
        };
      const value = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const receiver = createReceiver({ token: () => token, ledger, onRejected: expectedRefusal });
  const webhook = webhookHandler(receiver, {
    'article.sync': ({ article }) => {
      handled.push(article.slug);
      return { published_url: `https://blog.example/${article.slug}` };
    },
  });
  const pages: [string, (req: IncomingMessage, res: ServerResponse) => unknown][] = [
    [MOUNT, ledgerPage(counted, { authorize: () => true, pageSize: 3 })],
    ['/hostile', ledgerPage(hostileLedger(), { authorize: () => true })],
    ['/closed', ledgerPage(counted, { authorize: () => false })],
  ];

  const send = async (delivery: { headers: Record<string, string>; body: string | Uint8Array<ArrayBuffer> }) =>
    (await fetch(`${server.url}/webhook`, { method: 'POST', headers: delivery.headers, body: delivery.body })).status;
  const sync = (slug: string, id: string, signWith = token) =>
    send(signDelivery({ token: signWith, payload: articleSyncPayload({ article: { id, slug } }) }));

  beforeAll(async () => {
    server = await listen(
      createServer((req, res) => {
        const path = req.url ?? '/';
        if (path.startsWith('/webhook')) return void webhook(req, res);
        if (path.startsWith('/evil'))
          // Another site's page (localhost is not 127.0.0.1's site) that posts the Recover form itself.
          return void res
            .writeHead(200, { 'content-type': 'text/html' })
            .end(
              `<form method="post" action="${server.url}${MOUNT}?action=recover"></form><script>document.forms[0].submit()</script>`,
            );
        const page = pages.find(([prefix]) => path.startsWith(prefix));
        if (page) return void page[1](req, res);
        res.writeHead(404).end();
      }),
    );
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows every field of hostile refused rows as text: no dialog, no script, no CSP violation', async () => {
    const { page, trouble } = await watchedPage(browser);
    // The filters are reflected into the form and heading too.
    const reflected = new URLSearchParams({ article: VECTORS[1], event: VECTORS[0], tenant: VECTORS[3], since: '' });
    const response = await page.goto(`${server.url}/hostile/?${reflected}`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/^default-src 'none'; style-src 'sha256-/);

    const cells = await page
      .locator('#rows tbody tr')
      .evaluateAll((rows) =>
        rows.map((row) => Array.from(row.querySelectorAll('td'), (cell) => cell.textContent ?? '')),
      );
    expect(cells).toHaveLength(VECTORS.length);
    const long = (text: string) => `${text.slice(0, 300)}… (${text.length - 300} more characters)`;
    VECTORS.forEach((vector, index) => {
      const expected = vector.length > 300 ? long(vector) : vector;
      const [, verified, delivery, , event, article, slug, status, , code, tenant, , , url] = cells[index]!;
      expect(verified).toContain('unverified (claimed)');
      expect(verified).toContain(`recovered from ${expected}`);
      for (const field of [delivery, event, article, slug, status, code, tenant, url]) expect(field).toBe(expected);
    });
    expect(await page.locator('#resend tbody tr').count()).toBe(VECTORS.length);
    expect(await page.locator('#resend tbody tr').first().locator('td').first().textContent()).toBe(VECTORS[0]);
    expect(await page.locator('h2#list').textContent()).toContain(`History of article ${VECTORS[1]}`);
    expect(await page.locator('input[name="tenant"]').inputValue()).toBe(VECTORS[3]);

    const dom = await page.evaluate(() => ({
      scripts: document.scripts.length,
      injected: document.querySelectorAll('img, iframe, object, embed, td svg, td img, style + svg').length,
      handlers: Array.from(document.querySelectorAll('*')).filter((element) =>
        Array.from(element.attributes).some((attribute) => attribute.name.startsWith('on')),
      ).length,
      svgs: document.querySelectorAll('svg').length,
      links: Array.from(document.links, (link) => link.href),
    }));
    expect(dom).toMatchObject({ scripts: 0, injected: 0, handlers: 0, svgs: 1 });
    for (const link of dom.links) expect(link.startsWith(`${server.url}/hostile/?`), link).toBe(true);

    // Following a hostile article link keeps to the page and runs nothing either.
    await page.locator('#rows tbody tr').nth(2).locator('td').nth(5).locator('a').click();
    await page.waitForURL(/article=javascript/);
    expect(await page.locator('h2#list').textContent()).toContain('History of article javascript:alert(1)');
    expect(trouble).toEqual({ dialogs: [], errors: [], console: [] });
    expect(await violations(page)).toEqual([]);
    await page.close();
  });

  it("lists real deliveries and refusals, filters them, shows one article's history and pages by cursor", async () => {
    expect(await sync('first-post', 'art-1')).toBe(200);
    expect(await sync('second-post', 'art-2')).toBe(200);
    expect(await sync('third-post', 'art-3')).toBe(200);
    // Someone clicked Regenerate in the dashboard: the service signs with a token the site does not have yet.
    expect(await sync('fourth-post', 'art-4', NEW_TOKEN)).toBe(401);
    expect(await sync('first-post-edited', 'art-1', NEW_TOKEN)).toBe(401);
    // And junk with a token nobody has, claiming hostile values.
    const junk = signDelivery({
      token: 'whk_nobody_has_this_token_000000',
      deliveryId: VECTORS[0],
      payload: articleSyncPayload({ article: { id: VECTORS[1], slug: VECTORS[3] } }),
    });
    expect(await send(junk)).toBe(401);
    await ledger.flush();

    const { page, trouble } = await watchedPage(browser);
    await page.goto(`${server.url}${MOUNT}`);
    const rows = page.locator('#rows tbody tr');
    expect(await rows.count()).toBe(3);
    expect(await rows.first().locator('td').nth(6).textContent()).toBe(VECTORS[3]);
    expect(await rows.first().locator('td').nth(1).textContent()).toContain('unverified (claimed)');
    expect(await page.locator('svg text.legend[data-outcome="delivered"]').textContent()).toBe('delivered 3');
    expect(await page.locator('svg text.legend[data-outcome="refused"]').textContent()).toBe('refused 3');

    // Older rows: the cursor link keeps the mount path.
    await page.getByRole('link', { name: 'Older requests' }).click();
    await page.waitForURL(/cursor=/);
    expect(new URL(page.url()).pathname).toBe(MOUNT);
    expect(await page.locator('#rows tbody tr td:nth-child(7)').allTextContents()).toEqual([
      'third-post',
      'second-post',
      'first-post',
    ]);

    // The filters form: refused only.
    await page.goto(`${server.url}${MOUNT}`);
    await page.locator('select[name="status"]').selectOption('4xx');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=4xx/);
    expect(new URL(page.url()).pathname).toBe(MOUNT);
    expect(await page.locator('#rows tbody tr td:nth-child(9)').allTextContents()).toEqual(['401', '401', '401']);

    // One article's history, from its link: delivered, then refused after the token changed.
    await page.goto(`${server.url}${MOUNT}?event=article.sync&since=1h`);
    await page.locator('#rows a', { hasText: 'art-1' }).first().click();
    await page.waitForURL(/article=art-1/);
    expect(await page.locator('h2#list').textContent()).toContain('History of article art-1');
    expect(await page.locator('#rows tbody tr td:nth-child(7)').allTextContents()).toEqual([
      'first-post-edited',
      'first-post',
    ]);
    expect(await page.locator('#rows tbody tr td:nth-child(9)').allTextContents()).toEqual(['401', '200']);
    expect(await page.locator('#rows tbody tr td:nth-child(14)').allTextContents()).toEqual([
      '—',
      'https://blog.example/first-post',
    ]);
    expect(trouble).toEqual({ dialogs: [], errors: [], console: [] });
    expect(await violations(page)).toEqual([]);
    await page.close();
  });

  it('refuses the Recover POST from another site, and from a client without Origin', async () => {
    const before = recoverCalls;
    const { page } = await watchedPage(browser);
    const answered = page.waitForResponse((response) => response.url().includes('action=recover'));
    await page.goto(`${server.url.replace('127.0.0.1', 'localhost')}/evil`);
    expect((await answered).status()).toBe(403);
    await page.close();
    const forged: Record<string, string>[] = [
      {},
      { origin: 'http://evil.example' },
      { 'sec-fetch-site': 'cross-site' },
    ];
    for (const headers of forged) {
      const answer = await fetch(`${server.url}${MOUNT}?action=recover`, {
        method: 'POST',
        headers,
        redirect: 'manual',
      });
      expect(answer.status).toBe(403);
    }
    expect(recoverCalls).toBe(before);
  });

  it('recovers the refused deliveries from the button once the token is fixed, and shows the counts', async () => {
    const { page, trouble } = await watchedPage(browser);
    await page.goto(`${server.url}${MOUNT}`);
    const resend = await page.locator('#resend tbody tr td:nth-child(1)').allTextContents();
    expect(resend.sort()).toEqual([VECTORS[1], 'art-1', 'art-4'].sort());

    // The fix lands: the site's environment now has the new token, which the receiver reads
    // again when the next delivery presents it (at most once a second).
    token = NEW_TOKEN;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await sync('fifth-post', 'art-5')).toBe(200);
    handled.length = 0;
    await page.getByRole('button', { name: 'Recover kept refusals' }).click();
    await page.waitForURL(/recovered=/);
    expect(new URL(page.url()).pathname).toBe(MOUNT);
    expect(await page.locator('#recovered').textContent()).toBe(
      'Recover: 2 recovered and processed, 0 failed (kept for the next try), 1 still unverified (re-send them from the dashboard).',
    );
    expect(handled.sort()).toEqual(['first-post-edited', 'fourth-post']);
    expect(await page.locator('#resend tbody tr td:nth-child(1)').allTextContents()).toEqual([VECTORS[1]]);
    expect(recoverCalls).toBe(1);
    expect(trouble).toEqual({ dialogs: [], errors: [], console: [] });
    expect(await violations(page)).toEqual([]);
    await page.close();
  });

  it('answers 403 with nothing from the ledger when authorize says no', async () => {
    const answer = await fetch(`${server.url}/closed`);
    expect(answer.status).toBe(403);
    const body = await answer.text();
    expect(body).toContain('You are not allowed to see this page.');
    expect(body).not.toMatch(/first-post|art-1|delivered/);
    expect(answer.headers.get('x-frame-options')).toBe('DENY');
    expect(() => ledgerPage(ledger, {} as never)).toThrow(TypeError);
    expect(() => ledgerPage(ledger, {} as never)).toThrow(/options\.authorize is required/);
  });
});
