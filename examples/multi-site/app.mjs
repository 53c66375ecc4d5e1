import { once } from 'node:events';
import express from 'express';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/express';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { isPublic } from 'webhook-cms-receiver/publish';
import { articlesOf, saveDelivery } from './articles.mjs';
import { openDatabase } from './database.mjs';
import { articleUrl, siteResolver } from './sites.mjs';

/**
 * The Express app: `POST /webhook` receives for every site in the sites table, and
 * `GET /sites/<id>/articles` lists what a site received. `db` comes from `openDatabase`.
 *
 * @example
 * const app = createMultiSiteApp({ db: await openDatabase() });
 */
export function createMultiSiteApp({ db, tokenCacheMs, rotatingUntil, log = console.log }) {
  const receiver = createReceiver({
    // Each token is looked up by its SHA-256 and bound to its site's profile: a site's token
    // signing another site's profile is answered 403.
    tenants: siteResolver(db),
    tokenCacheMs,
    rotatingUntil,
    // Dedup rows and ordering marks in the same database, kept per site by the receiver.
    dedup: postgresDedupStore(db.client),
    ordering: true,
    onError: (error, event) =>
      console.error(`Could not save delivery ${event?.deliveryId ?? '(none)'} (${event?.type}): ${error.message}`),
  });
  const save = async (event) => {
    await saveDelivery(db, event);
    const { slug } = event.article;
    log(`${event.type === 'article.sync' ? 'sync ' : 'trash'} ${event.tenant.id}/${slug} [${event.deliveryId}]`);
    // published_url only for what is public now: a draft, or an article scheduled ahead, has no page yet.
    if (event.type === 'article.sync' && isPublic(event.article))
      return { publishedUrl: await articleUrl(db, event.tenant.id, slug) };
  };
  const app = express();
  // Before any JSON parser: the signature covers the raw bytes.
  app.post(
    '/webhook',
    webhookHandler(receiver, {
      'article.sync': save,
      'article.trash': save,
      test: (event) => log(`test  ${event.tenant.id}: Test Connection received`),
    }),
  );
  app.get('/sites/:id/articles', async (req, res) => {
    res.json(await articlesOf(db, req.params.id));
  });
  return app;
}

/**
 * Opens the database, creates the app and listens; `port: 0` picks a free port.
 *
 * @example
 * const { url, close } = await startMultiSite({ dataDir: './data', port: 3000 });
 */
export async function startMultiSite({ port = 3000, host = '127.0.0.1', databaseUrl, dataDir, ...options }) {
  const db = await openDatabase({ databaseUrl, dataDir });
  const app = createMultiSiteApp({ ...options, db });
  const server = app.listen(port, host);
  await once(server, 'listening');
  const url = `http://${host}:${server.address().port}`;
  const close = async () => {
    await new Promise((done) => server.close(() => done()).closeAllConnections());
    await db.close();
  };
  return { url, storage: db.storage, close };
}
