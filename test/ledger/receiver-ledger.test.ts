import { createServer } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createReceiver,
  type LedgerStore,
  memoryLedger,
  type Receiver,
  type WebhookHandlers,
  createLedger,
  memoryLedgerStore,
} from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { listen, type RunningServer } from '../helpers/listen.js';

const TOKEN = 'ledger-token-old-0123456789abcdef';
const NEW = 'ledger-token-new-fedcba9876543210';
const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(receiver: Receiver, handlers: WebhookHandlers) {
  const server = await listen(createServer(webhookHandler(receiver, handlers)));
  servers.push(server);
  return server;
}

async function post(server: RunningServer, delivery: { headers: Record<string, string>; body: string | Uint8Array }) {
  const response = await fetch(`${server.url}/webhook`, {
    method: 'POST',
    headers: delivery.headers,
    body: delivery.body as BodyInit,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const quiet = { logger: false as const };

describe('createReceiver({ ledger })', () => {
  it('records a delivery and its retry with every field, and a refusal unverified without any secret', async () => {
    const ledger = memoryLedger();
    const receiver = createReceiver({ token: TOKEN, ledger, ...quiet });
    const server = await serve(receiver, {
      'article.sync': ({ article }) => ({ publishedUrl: `https://blog.example.com/${article.slug}` }),
    });
    const payload = articleSyncPayload({ article: { slug: 'first-post', status: 'published' } });
    const delivery = signDelivery({ token: TOKEN, payload });
    expect((await post(server, delivery)).status).toBe(200);
    const retry = signDelivery({ token: TOKEN, payload, deliveryId: delivery.headers['X-Service-Delivery-Id'] });
    expect((await post(server, retry)).body).toMatchObject({ duplicate: true });
    const forged = signDelivery({
      token: 'someone-else-entirely-0123456789',
      payload: articleSyncPayload({ article: { slug: '<b>x</b>' } }),
    });
    expect((await post(server, forged)).status).toBe(401);
    await ledger.flush();
    const { rows } = await ledger.list();
    expect(rows).toHaveLength(3);
    const [refused, second, first] = rows;
    expect(first).toMatchObject({
      verified: true,
      deliveryId: delivery.headers['X-Service-Delivery-Id'],
      event: 'article.sync',
      articleId: payload.article.id,
      slug: 'first-post',
      articleStatus: 'published',
      profileId: payload.profile.id,
      tenant: null,
      status: 200,
      code: 'ok',
      tokenIndex: 0,
      publishedUrl: 'https://blog.example.com/first-post',
      copy: 1,
    });
    expect(first!.durationMs).toBeGreaterThanOrEqual(0);
    expect(second).toMatchObject({ code: 'duplicate', copy: 2, status: 200 });
    expect(refused).toMatchObject({
      verified: false,
      status: 401,
      code: 'invalid_token',
      deliveryId: forged.headers['X-Service-Delivery-Id'],
      event: 'article.sync',
      tokenIndex: null,
      copy: 1,
    });
    const text = JSON.stringify(rows);
    for (const secret of [TOKEN, 'someone-else-entirely', forged.headers['X-Service-Signature']!.slice(7)]) {
      expect(text).not.toContain(secret);
    }
  });

  it('records the claims of a refused body as unverified, and never answers differently when the ledger is down', async () => {
    const broken: LedgerStore = {
      ...memoryLedgerStore(),
      append: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:5432')),
    };
    const warnings: string[] = [];
    const logger = {
      warn: (message: string) => void warnings.push(message),
      error: () => {},
      info: () => {},
      debug: () => {},
    };
    const receiver = createReceiver({ token: TOKEN, ledger: createLedger(broken, { flushMs: 1 }), logger });
    const server = await serve(receiver, { 'article.sync': () => {} });
    const payload = articleSyncPayload();
    expect(await post(server, signDelivery({ token: TOKEN, payload }))).toEqual({ status: 200, body: { ok: true } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(warnings.join('\n')).toMatch(/ledger: 1 row write\(s\) failed \(.*ECONNREFUSED.*\); retrying/);

    const ledger = memoryLedger();
    const other = await serve(createReceiver({ token: TOKEN, ledger, ...quiet }), {});
    const signed = signDelivery({ token: TOKEN, payload: articleSyncPayload({ article: { slug: 'claimed-slug' } }) });
    const tampered = { ...signed, body: signed.body.replace('claimed-slug', 'claimed-slug2') };
    expect((await post(other, tampered)).status).toBe(403);
    await ledger.flush();
    const [row] = (await ledger.list()).rows;
    expect(row).toMatchObject({
      verified: false,
      status: 403,
      code: 'invalid_signature',
      slug: 'claimed-slug2',
      event: 'article.sync',
    });
  });

  it('records at most refusalsPerMinute refusals, and every real delivery among a flood of junk', async () => {
    const ledger = memoryLedger({ refusalsPerMinute: 10 });
    const server = await serve(createReceiver({ token: TOKEN, ledger, ...quiet }), { 'article.sync': () => {} });
    const junk = Array.from({ length: 60 }, (_, i) =>
      post(server, signDelivery({ token: `junk-token-${i}-0123456789abcdef`, payload: articleSyncPayload() })),
    );
    await Promise.all(junk);
    expect((await post(server, signDelivery({ token: TOKEN, payload: articleSyncPayload() }))).status).toBe(200);
    await ledger.flush();
    expect((await ledger.list({ verified: false, limit: 1000 })).rows).toHaveLength(10);
    expect((await ledger.list({ verified: true })).rows).toHaveLength(1);
  });
});

describe("while the recorder's code loads", () => {
  it('holds 1000 rows, and counts what a flood at start past them cost in a warn line', async () => {
    const ledger = memoryLedger({ refusalsPerMinute: 10_000 });
    const warnings: string[] = [];
    const receiver = createReceiver({
      token: TOKEN,
      ledger,
      logger: { warn: (message: string) => void warnings.push(message), error: () => {} },
    });
    // Head refusals are recorded in the caller's turn, before the recorder's import can resolve.
    for (let i = 0; i < 1050; i++) receiver.admit({ method: 'GET', headers: {} });
    await ledger.flush();
    const [hour] = await ledger.summary();
    expect(hour?.rejected).toBe(1000);
    expect(
      warnings.filter((line) => /50 request\(s\) answered while its code loaded were not recorded/.test(line)),
    ).toHaveLength(1);
  });
});

describe('keepRefused and recover(): an unplanned rotation loses nothing', () => {
  it('keeps 401s with their bodies, recovers each once with the new token, after the 300 s window', async () => {
    let now = Date.now();
    const clock = () => now;
    const ledger = memoryLedger({ keepRefused: true, now: clock });
    const handled: string[] = [];
    const handlers: WebhookHandlers = { 'article.sync': ({ article }) => void handled.push(article.id) };
    // The service's token was regenerated; this receiver still has the old one.
    const before = await serve(createReceiver({ token: TOKEN, ledger, now: clock, ...quiet }), handlers);
    const payloads = [articleSyncPayload(), articleSyncPayload(), articleSyncPayload()];
    for (const payload of payloads)
      expect((await post(before, signDelivery({ token: NEW, payload }))).status).toBe(401);
    await ledger.flush();
    const refused = (await ledger.list({ status: 401 })).rows;
    expect(refused.map((row) => row.kept)).toEqual([true, true, true]);
    expect((await ledger.resend()).map((item) => item.articleId).sort()).toEqual(
      payloads.map((p) => p.article.id).sort(),
    );

    // Ten minutes later the environment variable is fixed and the instance redeployed.
    now += 600_000;
    createReceiver({ token: NEW, ledger, now: clock, handlers, ...quiet });
    expect(await ledger.recover()).toEqual({ recovered: 3, failed: 0, unverified: 0 });
    expect(handled.sort()).toEqual(payloads.map((p) => p.article.id).sort());
    expect(await ledger.recover()).toEqual({ recovered: 0, failed: 0, unverified: 0 });
    expect(handled).toHaveLength(3);
    const recovered = (await ledger.list({ verified: true })).rows;
    expect(recovered.map((row) => row.recoveredFrom).sort()).toEqual(refused.map((row) => row.id).sort());
    expect(await ledger.resend()).toEqual([]);
  });

  it('takes one place of the refusal rate limit per kept refusal, and reads no body past it', async () => {
    const ledger = memoryLedger({ keepRefused: true, refusalsPerMinute: 2 });
    const server = await serve(createReceiver({ token: TOKEN, ledger, ...quiet }), {});
    for (let i = 0; i < 3; i++)
      expect((await post(server, signDelivery({ token: NEW, payload: articleSyncPayload() }))).status).toBe(401);
    await ledger.flush();
    const { rows } = await ledger.list();
    expect(rows.map((row) => row.kept)).toEqual([true, true]);
  });

  it('leaves what the new token does not verify, and keeps what failed for the next recover', async () => {
    const ledger = memoryLedger({ keepRefused: true });
    const before = await serve(createReceiver({ token: TOKEN, ledger, ...quiet }), {});
    await post(before, signDelivery({ token: NEW, payload: articleSyncPayload() }));
    await post(before, signDelivery({ token: 'a-third-token-nobody-has-0123456', payload: articleSyncPayload() }));
    await ledger.flush();
    let fail = true;
    createReceiver({
      token: NEW,
      ledger,
      handlers: {
        'article.sync': () => {
          if (fail) throw new Error('database down');
        },
      },
      logger: false,
      onError: () => {},
    });
    expect(await ledger.recover()).toEqual({ recovered: 0, failed: 1, unverified: 1 });
    fail = false;
    expect(await ledger.recover()).toEqual({ recovered: 1, failed: 0, unverified: 1 });
    expect((await ledger.resend()).map((item) => item.kept)).toEqual([true]);
  });

  it('keeps no refusal that could never verify: an empty signature or delivery id', async () => {
    const ledger = memoryLedger({ keepRefused: true });
    const server = await serve(createReceiver({ token: TOKEN, ledger, ...quiet }), {});
    const statuses = [];
    for (const name of ['X-Service-Signature', 'X-Service-Delivery-Id']) {
      const delivery = signDelivery({ token: TOKEN, payload: articleSyncPayload() });
      statuses.push((await post(server, { ...delivery, headers: { ...delivery.headers, [name]: '' } })).status);
    }
    await ledger.flush();
    const { rows } = await ledger.list();
    expect(rows).toHaveLength(2);
    // Refused as the contract says, recorded, but with nothing kept to recover.
    expect(statuses.every((status) => status >= 400 && status < 500)).toBe(true);
    expect(rows.map((row) => row.kept ?? false)).toEqual([false, false]);
  });

  it('explains what recover() needs', async () => {
    await expect(memoryLedger().recover()).rejects.toThrow(/createReceiver\(\{ ledger \}\)/);
    const ledger = memoryLedger({ keepRefused: true });
    createReceiver({ token: TOKEN, ledger, ...quiet });
    await expect(ledger.recover()).rejects.toThrow(/no handlers to process recovered deliveries/);
    expect(() => createReceiver({ token: TOKEN, ledger: {} as never })).toThrow(
      /ledger must be a ledger made by memoryLedger/,
    );
  });
});
