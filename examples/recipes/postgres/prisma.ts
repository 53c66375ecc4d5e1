/**
 * Recipe: Prisma.
 *
 * UNTESTED: Prisma is not installed in this repository, so this file is neither type-checked
 * nor run by the test suite. Check it against your Prisma version and schema.
 *
 * Prisma cannot join a transaction it did not open, so the transactional mode (whose `tx` is
 * a `pg` or postgres.js transaction) does not fit it. Use the plain mode instead and make the
 * handler's writes idempotent, keyed by the article: a rerun (after a crash between the write
 * and the done row) then writes the same row again, which is harmless. `ordering: true`
 * keeps a late, older sync from overwriting a newer one or resurrecting a trashed post.
 * Plain mode is at-least-once: for exactly-once effects, write through the store's `tx` with
 * `pg` or postgres.js (see kysely.ts) instead of Prisma for those writes.
 *
 * Prisma schema assumed:
 *
 * ```prisma
 * model Post {
 *   id      String  @id
 *   slug    String
 *   title   String
 *   html    String
 *   trashed Boolean @default(false)
 * }
 * ```
 */
import { PrismaClient } from '@prisma/client';
import pg from 'pg';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { isPublic } from 'webhook-cms-receiver/publish';

const prisma = new PrismaClient();
// The dedup store keeps its own small pool on the same database.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 5 });

export const receiver = createReceiver({
  token: process.env.WEBHOOK_TOKEN!,
  ordering: true,
  dedup: postgresDedupStore(pool),
});

export const handlers: WebhookHandlers = {
  'article.sync': async ({ article }) => {
    const post = { slug: article.slug, title: article.title, html: article.content_html, trashed: false };
    await prisma.post.upsert({ where: { id: article.id }, create: { id: article.id, ...post }, update: post });
    // Drafts arrive too: a URL only for what is public now.
    return isPublic(article) ? { publishedUrl: `https://blog.example.com/${article.slug}` } : undefined;
  },
  'article.trash': async ({ article }) => {
    await prisma.post.updateMany({ where: { id: article.id }, data: { trashed: true } });
  },
};
