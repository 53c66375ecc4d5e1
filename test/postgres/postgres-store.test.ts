import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type ClaimOutcome, createReceiver } from 'webhook-cms-receiver';
import { type PostgresClientLike, postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { storeContract } from '../stores/store-contract.js';
import { countingStatements } from './counting-statements.js';
import { describeEachClient, freshTable, server } from './postgres-clients.js';

const token = 'postgres-store-token';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const leaseOf = (outcome: ClaimOutcome): string => {
  if (outcome.state !== 'claimed') throw new Error(`expected a claim, got ${JSON.stringify(outcome)}`);
  return outcome.lease;
};

afterAll(() => server.stop());

describe('postgresDedupStore, plain mode', () => {
  describeEachClient(
    (name) => `with ${name}`,
    (db, name) => {
      const table = freshTable();
      storeContract(`postgresDedupStore (${name})`, ({ leaseMs, retentionMs }) =>
        postgresDedupStore(db().client, { table, leaseMs, retentionMs }),
      );

      it('creates its tables on first use, once, and keeps one row per delivery id', async () => {
        const own = freshTable();
        const store = postgresDedupStore(db().client, { table: own });
        const claim = { deliveryId: randomUUID() };
        await Promise.all([store.claim(claim), store.claim({ deliveryId: randomUUID() })]);
        await store.complete(claim, 'some-other-lease', { ok: true });
        const tables = await db().sql('SELECT tablename FROM pg_tables WHERE tablename LIKE $1 ORDER BY 1', [
          `${own}%`,
        ]);
        expect(tables.map((row) => row.tablename)).toEqual([own, `${own}_articles`]);
        const rows = await db().sql(`SELECT id, answer FROM ${own} WHERE id = $1`, [claim.deliveryId]);
        expect(rows).toEqual([{ id: claim.deliveryId, answer: null }]);
      });

      it('records the answer as jsonb, and a stale delivery as {"ok":true,"stale":true}', async () => {
        const own = freshTable();
        const store = postgresDedupStore(db().client, { table: own });
        const article = randomUUID();
        const applied = { deliveryId: randomUUID(), order: { articleId: article, timestamp: 200 } };
        await store.complete(applied, leaseOf(await store.claim(applied)), {
          ok: true,
          published_url: 'https://x.test/',
        });
        const stale = { deliveryId: randomUUID(), order: { articleId: article, timestamp: 100 } };
        expect(await store.claim(stale)).toEqual({ state: 'stale', newerTimestamp: 200 });
        const rows = await db().sql(`SELECT id, answer::text AS answer FROM ${own} ORDER BY answer::text`);
        expect(rows).toEqual([
          { id: applied.deliveryId, answer: '{"ok": true, "published_url": "https://x.test/"}' },
          { id: stale.deliveryId, answer: '{"ok": true, "stale": true}' },
        ]);
        const marks = await db().sql(`SELECT article_id, newest, holder FROM ${own}_articles`);
        expect(marks).toEqual([{ article_id: article, newest: 200, holder: null }]);
      });

      it('sweeps expired rows from its first claim on, so the table needs no cron job', async () => {
        const own = freshTable();
        const short = postgresDedupStore(db().client, { table: own, leaseMs: 50, retentionMs: 50 });
        for (let i = 0; i < 20; i++) {
          const claim = { deliveryId: `old-${i}`, order: { articleId: `article-${i}`, timestamp: 1 } };
          if (i % 2) await short.claim(claim);
          else await short.complete(claim, leaseOf(await short.claim(claim)), { ok: true });
        }
        await sleep(200);
        const store = postgresDedupStore(db().client, { table: own });
        for (let i = 0; i < 3; i++) {
          await store.claim({ deliveryId: `new-${i}`, order: { articleId: `new-${i}`, timestamp: 1 } });
        }
        const left = await db().sql(`SELECT id FROM ${own} ORDER BY id`);
        expect(left.map((row) => row.id)).toEqual(['new-0', 'new-1', 'new-2']);
        const articles = await db().sql(`SELECT article_id FROM ${own}_articles ORDER BY 1`);
        expect(articles.map((row) => row.article_id)).toEqual(['new-0', 'new-1', 'new-2']);
      });

      it("keeps leases on the database's clock: a host clock hours off changes nothing", async () => {
        const store = postgresDedupStore(db().client, { table, leaseMs: 300 });
        const claim = { deliveryId: randomUUID() };
        const realNow = Date.now;
        const skew = vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 6 * 3600_000);
        try {
          const lease = leaseOf(await store.claim(claim));
          skew.mockImplementation(() => realNow() - 6 * 3600_000);
          expect(await store.claim(claim)).toEqual({ state: 'in-progress' });
          expect(await store.renew!(claim, lease)).toBe(true);
          await sleep(600);
          expect((await store.claim(claim)).state).toBe('claimed');
        } finally {
          skew.mockRestore();
        }
      });

      it('sends at most 3 statements for a delivery through a receiver, ordering on or off', async () => {
        const counted = countingStatements(db().client as object);
        const store = postgresDedupStore(counted.client as PostgresClientLike, { table });
        await store.claim({ deliveryId: randomUUID() }); // the first use checks the tables
        for (const ordering of [false, true]) {
          const receiver = createReceiver({ token, dedup: store, ordering });
          counted.statements.length = 0;
          const delivery = signDelivery({ token, payload: articleSyncPayload() });
          const answer = await receiver.handle(delivery, {
            'article.sync': async () => ({ publishedUrl: 'https://x.test/' }),
          });
          expect(answer).toEqual({ status: 200, body: { ok: true, published_url: 'https://x.test/' } });
          expect(counted.statements.length).toBeLessThanOrEqual(3);
          counted.statements.length = 0;
          expect((await receiver.handle(delivery, {})).body).toEqual({
            ok: true,
            published_url: 'https://x.test/',
            duplicate: true,
          });
          expect(counted.statements).toHaveLength(1);
        }
      });

      it('answers through the receiver: 200, duplicate, 409 while running, 500 then a clean retry', async () => {
        const store = postgresDedupStore(db().client, { table });
        const receiver = createReceiver({ token, dedup: store, onError: () => {} });
        let runs = 0;
        let release = () => {};
        const gate = new Promise<void>((resolve) => (release = resolve));
        const payload = articleSyncPayload();
        const copy = () => signDelivery({ token, payload, deliveryId: `through-${table}` });
        const slow = receiver.handle(copy(), {
          'article.sync': async () => {
            runs++;
            await gate;
          },
        });
        await sleep(100);
        expect(await receiver.handle(copy(), {})).toEqual({ status: 409, body: { error: 'Delivery in progress' } });
        release();
        expect((await slow).status).toBe(200);
        expect((await receiver.handle(copy(), {})).body).toEqual({ ok: true, duplicate: true });
        const failing = signDelivery({ token, payload: articleSyncPayload() });
        const boom = { 'article.sync': () => Promise.reject(new Error('boom')) };
        expect((await receiver.handle(failing, boom)).status).toBe(500);
        expect(await receiver.handle(failing, { 'article.sync': async () => void runs++ })).toEqual({
          status: 200,
          body: { ok: true },
        });
        expect(runs).toBe(2);
      });
    },
  );
});
