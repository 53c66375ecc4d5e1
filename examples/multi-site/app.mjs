import { once } from 'node:events';
import express from 'express';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/express';
import { ledgerPage } from 'webhook-cms-receiver/node';
import { postgresDedupStore, postgresLedger } from 'webhook-cms-receiver/postgres';
import { isPublic } from 'webhook-cms-receiver/publish';
import { articlesOf, saveDelivery } from './articles.mjs';
import { adminLogin } from './admin-login.mjs';
import { openDatabase } from './database.mjs';
import { articleUrl, siteResolver } from './sites.mjs';

/**
 * The Express app: `POST /webhook` receives for every site in the sites table,
 * `GET /sites/<id>/articles` lists what a site received, and `/admin/deliveries` shows the
 * delivery ledger behind the admin login. `db` comes from `openDatabase`.
 *
 * @example
 * const app = createMultiSiteApp({ db: await openDatabase() });
 */
export function createMultiSiteApp({ db, tokenCacheMs, rotatingUntil, adminPassword, log = console.log }) {
  const save = async (event) => {
    await saveDelivery(db, event);
    const { slug } = event.article;
    log(`${event.type === 'article.sync' ? 'sync ' : 'trash'} ${event.tenant.id}/${slug} [${event.deliveryId}]`);
    // published_url only for what is public now: a draft, or an article scheduled ahead, has no page yet.
    if (event.type === 'article.sync' && isPublic(event.article))
      return { publishedUrl: await articleUrl(db, event.tenant.id, slug) };
  };
  const handlers = {
    'article.sync': save,
    'article.trash': save,
    test: (event) => log(`test  ${event.tenant.id}: Test Connection received`),
  };
  // Every request and its answer, in the same database; refused deliveries are kept, so those
  // refused while a site's token was wrong can be recovered from the page once it is fixed.
  const ledger = postgresLedger(db.client, { keepRefused: true });
  const receiver = createReceiver({
    ledger,
    // Each token is looked up by its SHA-256 and bound to its site's profile: a site's token
    // signing another site's profile is answered 403.
    tenants: siteResolver(db),
    tokenCacheMs,
    rotatingUntil,
    // Dedup rows and ordering marks in the same database, kept per site by the receiver.
    dedup: postgresDedupStore(db.client),
    ordering: true,
    // What deliveries kept in a rotation window, or recovered from the ledger, are processed with.
    handlers,
    onError: (error, event) =>
      console.error(`Could not save delivery ${event?.deliveryId ?? '(none)'} (${event?.type}): ${error.message}`),
  });
  const app = express();
  // Before any JSON parser: the signature covers the raw bytes.
  app.post('/webhook', webhookHandler(receiver, handlers));
  // The ledger page, behind your login: here HTTP Basic with ADMIN_PASSWORD (admin-login.mjs).
  app.use(
    '/admin/deliveries',
    adminLogin(adminPassword),
    ledgerPage(ledger, { authorize: (req) => req.admin === true }),
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
