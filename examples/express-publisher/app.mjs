import { once } from 'node:events';
import express from 'express';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/express';
import { postgresDedupStore } from 'webhook-cms-receiver/postgres';
import { articlePage, indexPage, statusPage } from './pages.mjs';
import { articleUrl, CACHE_CONTROL, rssXml, sitemapXml } from './site-feeds.mjs';
import { openSite } from './site-store.mjs';

/**
 * The Express app: `POST /webhook` stores deliveries, `GET /articles/<slug>` shows public
 * articles (301 for an old slug, 404 for a draft, 410 for a trashed or archived article), and
 * `/`, `/sitemap.xml` and `/feed.xml` list them. `site` comes from `openSite`.
 *
 * @example
 * const app = createPublisherApp({ token, site: await openSite(), publicUrl: () => 'https://blog.example.com' });
 */
export function createPublisherApp({
  token,
  site,
  publicUrl,
  siteTitle = 'Articles',
  onError = logHandlerError,
  log = console.log,
  inspect,
}) {
  // ordering: a late retry of an older sync is answered as stale and never republishes over a
  // newer unpublish. The dedup store shares the site's database, so it survives restarts.
  const receiver = createReceiver({ token, onError, inspect, ordering: true, dedup: postgresDedupStore(site.client) });
  const publish = async (event) => {
    const change = await site.apply(event);
    log(`${event.type}: ${change.kind} /articles/${change.slug}`);
    // published_url only for a public article: the dashboard links it, so it must open.
    return change.isPublic ? { publishedUrl: articleUrl(publicUrl(), change.slug) } : undefined;
  };
  const app = express();

  // The webhook route comes before any JSON parser: the signature covers the raw bytes.
  app.post(
    '/webhook',
    webhookHandler(receiver, {
      'article.sync': publish,
      'article.trash': publish,
      test: () => log('Test Connection received: the endpoint works.'),
    }),
  );

  // Every page, whatever its status, may be cached only as long as a takedown may take.
  const cached = (_req, res, next) => {
    res.set('Cache-Control', CACHE_CONTROL);
    next();
  };
  app.get(['/articles/:slug', '/', '/sitemap.xml', '/feed.xml'], cached);
  app.get('/articles/:slug', async (req, res) => {
    const answer = await site.answer(req.params.slug);
    if (answer.status === 301) return res.redirect(301, answer.location);
    if (answer.status !== 200) return res.status(answer.status).type('html').send(statusPage(answer.status));
    res.type('html').send(articlePage(answer.article, { publicUrl: publicUrl(), siteTitle }));
  });
  app.get('/', async (_req, res) => {
    res.type('html').send(indexPage(await site.publicArticles(), { siteTitle }));
  });
  app.get('/sitemap.xml', async (_req, res) => {
    res.type('application/xml').send(sitemapXml(await site.publicArticles(), publicUrl()));
  });
  app.get('/feed.xml', async (_req, res) => {
    res
      .type('application/rss+xml')
      .send(rssXml(await site.publicArticles(), { publicUrl: publicUrl(), title: siteTitle }));
  });
  return app;
}

/**
 * Opens the database (PGlite in `dataDir`, or Postgres at `databaseUrl`), creates the app and
 * listens. `port: 0` picks a free port; `publicUrl` defaults to `http://<host>:<port>`.
 *
 * @example
 * const { url, close } = await startPublisher({ token, dataDir: './data', port: 3000 });
 */
export async function startPublisher({ port = 3000, host = '127.0.0.1', publicUrl, databaseUrl, dataDir, ...options }) {
  const site = await openSite({ databaseUrl, dataDir });
  let base = publicUrl;
  const app = createPublisherApp({ ...options, site, publicUrl: () => base });
  const server = app.listen(port, host);
  await once(server, 'listening');
  const url = `http://${host}:${server.address().port}`;
  base = (base ?? url).replace(/\/+$/, '');
  const close = async () => {
    await new Promise((done) => server.close(() => done()).closeAllConnections());
    await site.close();
  };
  return { url, publicUrl: base, server, close };
}

function logHandlerError(error, event) {
  console.error(`Could not publish delivery ${event.deliveryId} (${event.type}): ${error.message}`);
}
