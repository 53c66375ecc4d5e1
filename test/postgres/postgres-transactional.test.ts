import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createReceiver, type Receiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import {
  type ClientName,
  describeWithServer,
  freshTable,
  openDatabase,
  server,
  type TestDatabase,
} from './postgres-clients.js';
import { txQuery } from './transaction-handle.js';

const token = 'postgres-transactional-token';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
type Handlers = WebhookHandlers<{ tx?: unknown }>;

afterAll(() => server.stop());

const clients: ClientName[] = ['pg Pool', 'pg Client', 'postgres', 'PGlite'];

for (const name of clients) {
  (name === 'PGlite' ? describe : describeWithServer)(
    `postgresDedupStore({ transactional: true }) with ${name}`,
    () => {
      let db: TestDatabase;
      let table: string;
      let effects: string;
      let receiver: Receiver;
      const onError = vi.fn();
      const onStale = vi.fn();
      beforeAll(async () => {
        db = await openDatabase(name);
        table = freshTable();
        effects = freshTable('effects');
        // A deferred unique constraint fails at COMMIT, after the handler returned.
        await db.sql(
          `CREATE TABLE ${effects} (id serial PRIMARY KEY, delivery text NOT NULL, note text,
         CONSTRAINT ${effects}_note UNIQUE (note) DEFERRABLE INITIALLY DEFERRED)`,
        );
        const dedup = postgresDedupStore(db.client, { table, transactional: true });
        receiver = createReceiver({ token, dedup, ordering: true, onError, onStale });
      }, 60_000);
      afterAll(() => db?.close());

      /** A handler that writes one effect row through `tx`, as a user's would. */
      const writing = (note: (id: string) => string | null = () => null, then?: () => unknown): Handlers => {
        const write = async (event: { deliveryId: string | null }, { tx }: { tx?: unknown }) => {
          await txQuery(name, tx)(`INSERT INTO ${effects} (delivery, note) VALUES ($1, $2)`, [
            event.deliveryId,
            note(event.deliveryId!),
          ]);
          await then?.();
          return { publishedUrl: `https://blog.example.com/${event.deliveryId}` };
        };
        return { 'article.sync': write, 'article.trash': write };
      };
      const effectsOf = async (id: string) =>
        (await db.sql(`SELECT delivery FROM ${effects} WHERE delivery = $1`, [id])).length;
      const recordOf = async (id: string) =>
        (await db.sql(`SELECT answer::text AS answer FROM ${table} WHERE id = $1`, [id]))[0]?.answer;

      it("commits the handler's write through tx with the done row; a duplicate replays the answer without running", async () => {
        const id = randomUUID();
        const delivery = signDelivery({ token, payload: articleSyncPayload(), deliveryId: id });
        const url = `https://blog.example.com/${id}`;
        expect(await receiver.handle(delivery, writing())).toEqual({
          status: 200,
          body: { ok: true, published_url: url },
        });
        expect(await effectsOf(id)).toBe(1);
        expect(await recordOf(id)).toBe(`{"ok": true, "published_url": "${url}"}`);
        const handler = vi.fn();
        expect(await receiver.handle(delivery, { 'article.sync': handler })).toEqual({
          status: 200,
          body: { ok: true, published_url: url, duplicate: true },
        });
        expect(handler).not.toHaveBeenCalled();
        expect(await effectsOf(id)).toBe(1);
      });

      it('leaves neither the write nor a done row when the handler throws, and the retry runs cleanly', async () => {
        const id = randomUUID();
        const delivery = signDelivery({ token, payload: articleSyncPayload(), deliveryId: id });
        const failure = new Error('the CMS mirror is down');
        const throwing = writing(undefined, () => Promise.reject(failure));
        onError.mockClear();
        expect(await receiver.handle(delivery, throwing)).toEqual({ status: 500, body: { error: 'Handler failed' } });
        expect(onError.mock.calls[0]![0]).toBe(failure);
        expect(await effectsOf(id)).toBe(0);
        expect(await recordOf(id)).toBeUndefined();
        expect((await receiver.handle(delivery, writing())).status).toBe(200);
        expect(await effectsOf(id)).toBe(1);
      });

      it('answers 5xx and records nothing when COMMIT fails, and the retry runs cleanly', async () => {
        const taken = `taken-${randomUUID()}`;
        await db.sql(`INSERT INTO ${effects} (delivery, note) VALUES ('seed', $1)`, [taken]);
        const id = randomUUID();
        const delivery = signDelivery({ token, payload: articleSyncPayload(), deliveryId: id });
        onError.mockClear();
        const answer = await receiver.handle(
          delivery,
          writing(() => taken),
        );
        expect(answer.status).toBeGreaterThanOrEqual(500);
        expect(onError).toHaveBeenCalledTimes(1);
        expect(await effectsOf(id)).toBe(0);
        expect(await recordOf(id)).toBeUndefined();
        expect((await receiver.handle(delivery, writing())).status).toBe(200);
        expect(await effectsOf(id)).toBe(1);
      });

      it("gives the handler the user's own lock_timeout, not the claim's short wait", async () => {
        let seen: unknown;
        const handlers: Handlers = {
          'article.sync': async (_event, { tx }) => {
            [{ lock_timeout: seen }] = (await txQuery(name, tx)('SHOW lock_timeout')) as [{ lock_timeout: unknown }];
          },
        };
        expect((await receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), handlers)).status).toBe(
          200,
        );
        expect(seen).toBe('0');
      });

      it('orders deliveries: sync (t=100), trash (t=200), late sync (t=100) → stale, recorded, not run', async () => {
        const sync = articleSyncPayload({ timestamp: 100 });
        const article = { id: sync.article.id, slug: sync.article.slug };
        const now = () => 150_000;
        const ordered = createReceiver({
          token,
          now,
          ordering: true,
          dedup: postgresDedupStore(db.client, { table, transactional: true }),
          onStale,
        });
        const at = (payload: object, timestamp: number, deliveryId = randomUUID()) =>
          signDelivery({ token, payload, timestamp, deliveryId });
        expect((await ordered.handle(at(sync, 100), writing())).status).toBe(200);
        const trash = articleTrashPayload({ article, timestamp: 200 });
        expect((await ordered.handle(at(trash, 200), writing())).status).toBe(200);
        const lateId = randomUUID();
        const late = at({ ...sync, timestamp: 100 }, 100, lateId);
        onStale.mockClear();
        expect(await ordered.handle(late, writing())).toEqual({ status: 200, body: { ok: true, stale: true } });
        expect(onStale).toHaveBeenCalledWith(expect.objectContaining({ deliveryId: lateId, newerTimestamp: 200 }));
        expect(await effectsOf(lateId)).toBe(0);
        expect(await recordOf(lateId)).toBe('{"ok": true, "stale": true}');
        expect((await ordered.handle(late, writing())).body).toEqual({ ok: true, stale: true, duplicate: true });
        const equal = at({ ...sync, event: 'article.sync', timestamp: 200 }, 200);
        expect((await ordered.handle(equal, writing())).status).toBe(200);
      });

      if (name === 'PGlite' || name === 'pg Client') return;

      it('answers a second copy in flight 409 while the first holds its row, and never runs it', async () => {
        let release = () => {};
        const gate = new Promise<void>((resolve) => (release = resolve));
        const id = randomUUID();
        const payload = articleSyncPayload();
        const copy = () => signDelivery({ token, payload, deliveryId: id });
        let entered = () => {};
        const holding = new Promise<void>((resolve) => (entered = resolve));
        const first = receiver.handle(
          copy(),
          writing(undefined, () => {
            entered();
            return gate;
          }),
        );
        // The first copy's handler has written inside its transaction: its row is held.
        await holding;
        // Answered while the first still holds the row (the gate opens only below): the lock
        // wait gave up (lock_timeout) instead of waiting for the first copy to commit.
        expect(await receiver.handle(copy(), writing())).toEqual({
          status: 409,
          body: { error: 'Delivery in progress' },
        });
        // Another delivery for the same article waits on the article's row, and answers 409 too.
        const sibling = signDelivery({ token, payload: { ...payload, timestamp: payload.timestamp + 1 } });
        expect((await receiver.handle(sibling, writing())).status).toBe(409);
        release();
        expect((await first).status).toBe(200);
        expect(await effectsOf(id)).toBe(1);
      });

      it("lets the handler's own statements wait for locks longer than the claim's wait", async () => {
        const [{ id: rowId }] = (await db.sql(`INSERT INTO ${effects} (delivery) VALUES ('locked') RETURNING id`)) as [
          { id: number },
        ];
        const holder = await openDatabase('pg Client');
        try {
          await holder.sql('BEGIN');
          await holder.sql(`SELECT 1 FROM ${effects} WHERE id = $1 FOR UPDATE`, [rowId]);
          const handlers: Handlers = {
            'article.sync': async (_event, { tx }) => {
              await txQuery(name, tx)(`UPDATE ${effects} SET note = 'waited' WHERE id = $1`, [rowId]);
            },
          };
          const answer = receiver.handle(signDelivery({ token, payload: articleSyncPayload() }), handlers);
          await sleep(1800);
          await holder.sql('COMMIT');
          expect((await answer).status).toBe(200);
          expect(await db.sql(`SELECT note FROM ${effects} WHERE id = $1`, [rowId])).toEqual([{ note: 'waited' }]);
        } finally {
          await holder.close();
        }
      });
    },
  );
}
