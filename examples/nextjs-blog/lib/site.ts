import { revalidatePath } from 'next/cache';
import { createReceiver, type WebhookHandlers } from 'webhook-cms-receiver';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import type { ArticleDelivery } from 'webhook-cms-receiver/publish';
import { articleUrl } from './site-feeds.mjs';
import { openSite } from './site-store.mjs';

type Site = Awaited<ReturnType<typeof openSite>>;

// One database per process: the proxy, the route handlers and the pages are separate bundles,
// and two PGlite instances on one folder would corrupt it, so the handle lives on globalThis.
const KEY = Symbol.for('webhook-cms-receiver.nextjs-blog.site');
const shared = globalThis as { [KEY]?: Promise<Site> };

/**
 * The site's database, opened on first use (PGlite in DATA_DIR, or Postgres at DATABASE_URL):
 * `next build` prerenders nothing that reads it, so builds never open it.
 */
export function site(): Promise<Site> {
  shared[KEY] ??= openSite({
    databaseUrl: process.env.DATABASE_URL || undefined,
    dataDir: process.env.DATA_DIR ?? './data',
  });
  return shared[KEY];
}

/** The public address of the site: PUBLIC_URL, else http://HOST:PORT as `npm start` serves it. */
export function publicUrl(): string {
  const given = process.env.PUBLIC_URL || `http://${process.env.HOST ?? '127.0.0.1'}:${process.env.PORT ?? '3000'}`;
  return given.replace(/\/+$/, '');
}

export const siteTitle = process.env.SITE_TITLE || 'Articles';

/** The path of an article's page. */
export const articlePath = (slug: string) => `/articles/${encodeURIComponent(slug)}`;

let receiving: Promise<{ receiver: ReturnType<typeof createReceiver>; handlers: WebhookHandlers }> | undefined;

/**
 * The receiver and its handlers, made on the first delivery (builds need no token).
 * `ordering: true` answers a late retry of an older delivery as stale, so it never
 * republishes over a newer change; the dedup store shares the site's database.
 */
export function webhook() {
  receiving ??= site().then((db) => {
    const receiver = createReceiver({
      token: process.env.WEBHOOK_TOKEN ?? '',
      ordering: true,
      dedup: postgresDedupStore(db.client),
    });
    const publish = async (event: ArticleDelivery) => {
      const change = await db.apply(event);
      // Cheap on publish: mark the cached pages stale, Next re-renders them on the next visit.
      // No rebuild, nothing waits for it.
      revalidatePath(articlePath(change.slug));
      if (change.previousSlug !== null) revalidatePath(articlePath(change.previousSlug));
      revalidatePath('/');
      console.log(`${event.type}: ${change.kind} /articles/${change.slug}`);
      // published_url only for a public article: the dashboard links it, so it must open.
      return change.isPublic ? { publishedUrl: articleUrl(publicUrl(), change.slug) } : undefined;
    };
    const handlers: WebhookHandlers = {
      'article.sync': publish,
      'article.trash': publish,
      test: () => console.log('Test Connection received: the endpoint works.'),
    };
    return { receiver, handlers };
  });
  return receiving;
}
