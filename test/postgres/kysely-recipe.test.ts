import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookHandler } from 'webhook-cms-receiver/node';
import { articleSyncPayload, articleTrashPayload, signDelivery } from 'webhook-cms-receiver/testing';
import { BLOG_TABLES_SQL, blogWebhook } from '../../examples/recipes/postgres/kysely.js';
import { describeWithServer, server } from './postgres-clients.js';

const token = 'kysely-recipe-token';

afterAll(() => server.stop());

/** The recipe served over HTTP by node:http on 127.0.0.1, as its header comment shows, on the given pool. */
function recipeOver(name: string, makePool: () => Promise<{ pool: pg.Pool; close(): Promise<void> }>) {
  let pool: pg.Pool;
  let close: () => Promise<void>;
  let http: Server;
  let url: string;
  beforeAll(async () => {
    ({ pool, close } = await makePool());
    await pool.query(BLOG_TABLES_SQL);
    const { receiver, handlers } = blogWebhook(pool, { token, baseUrl: 'https://blog.example.com' });
    http = createServer(webhookHandler(receiver, handlers));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/webhook`;
  }, 60_000);
  afterAll(async () => {
    await new Promise((resolve) => http?.close(resolve));
    await close?.();
  });

  const send = async (delivery: { headers: Record<string, string>; body: string | Uint8Array<ArrayBuffer> }) => {
    const response = await fetch(url, { method: 'POST', ...delivery });
    return { status: response.status, body: await response.json() };
  };
  const post = async (id: string) =>
    (await pool.query('SELECT title, trashed FROM posts WHERE id = $1', [id])).rows as {
      title: string;
      trashed: boolean;
    }[];
  const events = async (id: string) =>
    (await pool.query('SELECT event FROM post_events WHERE post_id = $1 ORDER BY id', [id])).rows.map(
      (row) => row.event,
    );

  describe(`the Kysely recipe on ${name}`, () => {
    it('writes the post and its event with the done row, and answers a duplicate without writing again', async () => {
      const sync = articleSyncPayload({ article: { slug: 'kysely-post', title: 'Kysely' } });
      const delivery = signDelivery({ token, payload: sync });
      const published = 'https://blog.example.com/kysely-post';
      expect(await send(delivery)).toEqual({ status: 200, body: { ok: true, published_url: published } });
      expect(await send(delivery)).toEqual({
        status: 200,
        body: { ok: true, published_url: published, duplicate: true },
      });
      expect(await post(sync.article.id)).toEqual([{ title: 'Kysely', trashed: false }]);
      expect(await events(sync.article.id)).toEqual(['sync']);
    });

    it('rolls the event row back when the post write fails, answering 500 so the service retries', async () => {
      const sync = articleSyncPayload({ article: { title: '' } });
      expect(await send(signDelivery({ token, payload: sync }))).toEqual({
        status: 500,
        body: { error: 'Handler failed' },
      });
      expect(await events(sync.article.id)).toEqual([]);
      expect(await post(sync.article.id)).toEqual([]);
    });

    it('keeps a trashed post trashed when an older sync arrives late', async () => {
      const now = Math.floor(Date.now() / 1000);
      const sync = articleSyncPayload({ timestamp: now - 10 });
      const trash = articleTrashPayload({ article: { id: sync.article.id, slug: sync.article.slug }, timestamp: now });
      expect((await send(signDelivery({ token, payload: sync }))).status).toBe(200);
      expect((await send(signDelivery({ token, payload: trash }))).status).toBe(200);
      expect(await send(signDelivery({ token, payload: sync }))).toEqual({
        status: 200,
        body: { ok: true, stale: true },
      });
      expect(await post(sync.article.id)).toEqual([{ title: sync.article.title, trashed: true }]);
      expect(await events(sync.article.id)).toEqual(['sync', 'trash']);
    });
  });
}

recipeOver('PGlite through pg (createPgConfig)', async () => {
  const lite = await PGlite.create();
  const pool = new pg.Pool(createPgConfig(lite));
  return {
    pool,
    close: async () => {
      await pool.end();
      await lite.close();
    },
  };
});

describeWithServer('on the Postgres server', () => {
  recipeOver('a Postgres server', async () => {
    const pool = new pg.Pool({ connectionString: server.url });
    return { pool, close: () => pool.end() };
  });
});
