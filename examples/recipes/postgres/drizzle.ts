/**
 * Recipe: Drizzle ORM with the transactional Postgres store.
 *
 * Type-checked against drizzle-orm 0.45 by `npm run check:recipes`, but not run by the test
 * suite. The same pattern runs end to end with Kysely (kysely.ts,
 * test/postgres/kysely-recipe.test.ts). Needs drizzle-orm 0.36+ (the `drizzle({ client })` form).
 *
 * The handler's `tx` is a `pg` client inside the delivery's transaction (a `postgres.js`
 * transaction `sql` if you pass a postgres.js client to the store instead: then import
 * `drizzle` from 'drizzle-orm/postgres-js'). Drizzle accepts either as its client, so a
 * Drizzle instance on `tx` writes inside that transaction, and the writes commit with the
 * delivery's done row or not at all.
 */
import { eq } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import { boolean, pgTable, text } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { isPublic } from 'webhook-cms-receiver/publish';

export const posts = pgTable('posts', {
  id: text('id').primaryKey(),
  slug: text('slug').notNull(),
  title: text('title').notNull(),
  html: text('html').notNull(),
  trashed: boolean('trashed').notNull().default(false),
});

export function blogWebhook(pool: pg.Pool, token: string) {
  const receiver = createReceiver({ token, ordering: true, dedup: postgresDedupStore(pool, { transactional: true }) });
  const handlers: WebhookHandlers<{ tx: pg.PoolClient }> = {
    'article.sync': async ({ article }, { tx }) => {
      // A Drizzle instance is a thin wrapper: making one per delivery is cheap.
      const db = drizzle({ client: tx });
      const post = { id: article.id, slug: article.slug, title: article.title, html: article.content_html };
      await db
        .insert(posts)
        .values({ ...post, trashed: false })
        .onConflictDoUpdate({ target: posts.id, set: { ...post, trashed: false } });
      // Drafts arrive too: a URL only for what is public now.
      return isPublic(article) ? { publishedUrl: `https://blog.example.com/${article.slug}` } : undefined;
    },
    'article.trash': async ({ article }, { tx }) => {
      await drizzle({ client: tx }).update(posts).set({ trashed: true }).where(eq(posts.id, article.id));
    },
  };
  return { receiver, handlers };
}
