import { describe, expect, it } from 'vitest';
import type { Ledger } from '../ledger/ledger.js';
import type { LedgerQuery, LedgerRow } from '../ledger/ledger-row.js';
import { ledgerPage } from './ledger-page.js';

const NOW = Date.UTC(2026, 10, 28, 12);
const row = (fields: Partial<LedgerRow>): LedgerRow => ({
  id: `r.${NOW}.a`,
  receivedAt: NOW - 60_000,
  durationMs: 4,
  verified: true,
  deliveryId: 'dlv_1',
  event: 'article.sync',
  articleId: '42',
  slug: 'hello-world',
  articleStatus: 'publish',
  profileId: null,
  tenant: null,
  status: 200,
  code: 'ok',
  tokenIndex: 0,
  publishedUrl: 'https://blog.example/hello-world',
  copy: 1,
  ...fields,
});

/** A ledger over fixed rows that records what the page asked of it. */
function fixedLedger(rows: LedgerRow[], fail?: Error) {
  const calls: { list: LedgerQuery[]; recover: number } = { list: [], recover: 0 };
  const check = () => {
    if (fail) throw fail;
  };
  const ledger: Ledger = {
    keepRefused: true,
    async list(query = {}) {
      check();
      calls.list.push(query);
      return { rows: rows.filter((r) => !query.article || r.articleId === query.article), next: 'r.next' };
    },
    async summary() {
      check();
      return [{ hour: NOW - 3_600_000, delivered: 1, refused: 1, rejected: 0, failed: 0 }];
    },
    async resend() {
      check();
      return [];
    },
    async recover() {
      check();
      calls.recover++;
      return { recovered: 2, failed: 0, unverified: 1 };
    },
    async flush() {},
  };
  return { ledger, calls };
}

const BASE = 'https://site.example/admin/deliveries';

describe('ledgerPage', () => {
  it('throws a TypeError naming the fix without authorize', () => {
    const { ledger } = fixedLedger([]);
    expect(() => ledgerPage(ledger, undefined as never)).toThrow(
      /options\.authorize is required.*authorize: \(request\)/,
    );
    expect(() => ledgerPage(ledger, { authorize: true } as never)).toThrow(/got true \(a boolean\)/);
    expect(() => ledgerPage(ledger, { authorize: () => true, pageSize: 0 })).toThrow(/pageSize/);
  });

  it('answers 403 with nothing from the ledger when authorize says no, 500 when it throws', async () => {
    const { ledger, calls } = fixedLedger([row({ slug: 'secret-slug' })]);
    const no = await ledgerPage(ledger, { authorize: async () => false })(new Request(BASE));
    expect(no.status).toBe(403);
    expect(await no.text()).not.toContain('secret-slug');
    const truthy = await ledgerPage(ledger, { authorize: () => 'yes' as never })(new Request(BASE));
    expect(truthy.status).toBe(403);
    const errors: unknown[] = [];
    const logger = { warn() {}, error: (line: unknown) => errors.push(line) };
    const thrown = await ledgerPage(ledger, {
      authorize: () => Promise.reject(new Error('session store down')),
      logger,
    })(new Request(BASE));
    expect(thrown.status).toBe(500);
    expect(await thrown.text()).not.toMatch(/secret-slug|session store down/);
    expect(String(errors[0])).toContain('session store down');
    expect(calls.list).toEqual([]);
    expect(no.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
  });

  it('hands authorize the context the host passed beside the request', async () => {
    const { ledger } = fixedLedger([row({})]);
    const seen: unknown[] = [];
    const page = ledgerPage(ledger, {
      authorize: (request, context: { user?: string } | undefined) => {
        seen.push([request.url, context]);
        return context?.user === 'alice';
      },
    });
    expect((await page(new Request(BASE), { user: 'alice' })).status).toBe(200);
    expect((await page(new Request(BASE), { user: 'mallory' })).status).toBe(403);
    expect((await page(new Request(BASE))).status).toBe(403);
    expect(seen).toEqual([
      [BASE, { user: 'alice' }],
      [BASE, { user: 'mallory' }],
      [BASE, undefined],
    ]);
  });

  it('maps the filters onto ledger.list and links the next page by its cursor', async () => {
    const { ledger, calls } = fixedLedger([row({})]);
    const page = ledgerPage(ledger, { authorize: () => true, now: () => NOW });
    const answer = await page(
      new Request(`${BASE}?status=4xx&event=article.sync&article=42&tenant=t1&since=2h&cursor=r.c`),
    );
    expect(answer.status).toBe(200);
    expect(calls.list[0]).toEqual({
      limit: 50,
      status: '4xx',
      since: NOW - 7_200_000,
      event: 'article.sync',
      article: '42',
      tenant: 't1',
      cursor: 'r.c',
    });
    const body = await answer.text();
    expect(body).toContain('History of article 42');
    expect(body).toContain(
      'href="?status=4xx&amp;event=article.sync&amp;article=42&amp;tenant=t1&amp;since=2h&amp;cursor=r.next"',
    );
    const bad = await page(new Request(`${BASE}?since=yesterday`));
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('30m, 24h, 7d');
  });

  it('answers 503 with a plain message, never the error, when the ledger throws', async () => {
    const { ledger } = fixedLedger([], new Error('connect ECONNREFUSED 10.0.0.5:5432 at Pool.connect'));
    const answer = await ledgerPage(ledger, { authorize: () => true, logger: false })(new Request(BASE));
    expect(answer.status).toBe(503);
    const body = await answer.text();
    expect(body).toContain('could not be read');
    expect(body).not.toMatch(/ECONNREFUSED|Pool\.connect/);
  });

  it('recovers on a same-origin POST and redirects back with the counts; refuses other sites and methods', async () => {
    const { ledger, calls } = fixedLedger([]);
    const page = ledgerPage(ledger, { authorize: () => true });
    const post = (headers: Record<string, string>) =>
      page(new Request(`${BASE}?action=recover`, { method: 'POST', headers }));
    const same = await post({ 'sec-fetch-site': 'same-origin' });
    expect(same.status).toBe(303);
    expect(same.headers.get('location')).toBe('?recovered=2&failed=0&unverified=1');
    expect((await post({ origin: 'https://site.example' })).status).toBe(303);
    expect(calls.recover).toBe(2);
    for (const headers of <Record<string, string>[]>[
      {},
      { 'sec-fetch-site': 'cross-site' },
      { 'sec-fetch-site': 'same-site', origin: 'https://site.example' },
      { origin: 'https://evil.example' },
      { origin: 'null' },
      { origin: 'http://site.example' },
    ])
      expect((await post(headers)).status, JSON.stringify(headers)).toBe(403);
    expect(calls.recover).toBe(2);
    const put = await page(new Request(BASE, { method: 'PUT' }));
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    const shown = await page(new Request(`${BASE}?recovered=2&failed=0&unverified=1`));
    expect(await shown.text()).toContain('2 recovered and processed, 0 failed');
  });
});
