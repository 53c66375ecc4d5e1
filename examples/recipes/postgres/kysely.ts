/**
 * Recipe: Kysely with the transactional Postgres store. The handlers write through Kysely
 * bound to the delivery's own transaction, so a post, its event log row and the delivery's
 * done row commit together or not at all: a crash or a throw mid-handler leaves nothing, and
 * the service's retry runs cleanly.
 *
 * Tested end to end (HTTP, node:http, a real Postgres and PGlite) by
 * test/postgres/kysely-recipe.test.ts. Needs `kysely` and `pg`.
 *
 * ```ts
 * import { createServer } from 'node:http';
 * import pg from 'pg';
 * import { webhookHandler } from 'webhook-cms-receiver/node';
 * import { BLOG_TABLES_SQL, blogWebhook } from './kysely.js';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * await pool.query(BLOG_TABLES_SQL); // or your migrations
 * const { receiver, handlers } = blogWebhook(pool, { token: process.env.WEBHOOK_TOKEN!, baseUrl: 'https://blog.example.com' });
 * createServer(webhookHandler(receiver, handlers)).listen(3000);
 * ```
 */
import { type Generated, Kysely, PostgresDialect } from 'kysely';
import type pg from 'pg';
import { createReceiver, type Receiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { isPublic } from 'webhook-cms-receiver/publish';

/** The blog's tables, as Kysely sees them. */
export interface BlogDatabase {
  posts: { id: string; slug: string; title: string; html: string; trashed: boolean };
  post_events: { id: Generated<number>; post_id: string; event: string; delivery_id: string };
}

/** The blog's tables (your migrations would hold these). */
export const BLOG_TABLES_SQL = `
CREATE TABLE IF NOT EXISTS posts (
  id text PRIMARY KEY,
  slug text NOT NULL,
  title text NOT NULL CHECK (title <> ''),
  html text NOT NULL,
  trashed boolean NOT NULL DEFAULT false
);
CREATE TABLE IF NOT EXISTS post_events (
  id serial PRIMARY KEY,
  post_id text NOT NULL,
  event text NOT NULL,
  delivery_id text NOT NULL
);`;

/**
 * Kysely on the delivery's transaction: a one-connection "pool" that always hands out `tx`
 * and never releases it (the store commits and releases it after the handler). Cheap to make
 * per delivery: Kysely connects lazily and this pool holds nothing.
 */
export function kyselyOn<DB>(tx: pg.PoolClient): Kysely<DB> {
  const connection = { query: tx.query.bind(tx), release() {} };
  return new Kysely<DB>({
    dialect: new PostgresDialect({ pool: { connect: async () => connection, end: async () => {} } }),
  });
}

/** The receiver and its handlers for a blog kept in Postgres with Kysely. */
export function blogWebhook(
  pool: pg.Pool,
  options: { token: string; baseUrl: string },
): { receiver: Receiver; handlers: WebhookHandlers<{ tx: pg.PoolClient }> } {
  const receiver = createReceiver({
    token: options.token,
    // Ordering: a sync retried after a trash is answered stale instead of bringing the post back.
    ordering: true,
    dedup: postgresDedupStore(pool, { transactional: true }),
  });
  const handlers: WebhookHandlers<{ tx: pg.PoolClient }> = {
    'article.sync': async ({ article, deliveryId }, { tx }) => {
      const db = kyselyOn<BlogDatabase>(tx);
      await db
        .insertInto('post_events')
        .values({ post_id: article.id, event: 'sync', delivery_id: deliveryId! })
        .execute();
      const post = { id: article.id, slug: article.slug, title: article.title, html: article.content_html };
      await db
        .insertInto('posts')
        .values({ ...post, trashed: false })
        .onConflict((conflict) => conflict.column('id').doUpdateSet({ ...post, trashed: false }))
        .execute();
      // Drafts arrive too: a URL only for what is public now.
      return isPublic(article) ? { publishedUrl: new URL(article.slug, `${options.baseUrl}/`).href } : undefined;
    },
    'article.trash': async ({ article, deliveryId }, { tx }) => {
      const db = kyselyOn<BlogDatabase>(tx);
      await db
        .insertInto('post_events')
        .values({ post_id: article.id, event: 'trash', delivery_id: deliveryId! })
        .execute();
      await db.updateTable('posts').set({ trashed: true }).where('id', '=', article.id).execute();
    },
  };
  return { receiver, handlers };
}
