import { once } from 'node:events';
import { join, resolve } from 'node:path';
import express from 'express';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/express';
import { isSafeSlug, removeArticle, writeArticle } from './content-files.mjs';

/**
 * The Express app: `POST /webhook` publishes deliveries into `contentDir`, and
 * `GET /articles/<slug>` serves the HTML it wrote.
 *
 * @example
 * const app = createPublisherApp({ token: process.env.WEBHOOK_TOKEN, contentDir: './content', publicBaseUrl: () => 'https://blog.example.com/articles' });
 */
export function createPublisherApp({
  token,
  contentDir,
  publicBaseUrl,
  onError = logHandlerError,
  log = console.log,
  inspect,
}) {
  const dir = resolve(contentDir);
  // `inspect` records every delivery for `npx webhook-cms-receiver inspect`: development only.
  const receiver = createReceiver({ token, onError, inspect });
  const app = express();

  // The webhook route comes before any JSON parser: the signature covers the raw bytes.
  app.post(
    '/webhook',
    webhookHandler(receiver, {
      'article.sync': async ({ article }) => {
        const slug = await writeArticle(dir, article);
        return { publishedUrl: `${publicBaseUrl()}/${slug}` };
      },
      'article.trash': ({ article }) => removeArticle(dir, article.slug),
      test: () => log('Test Connection received: the endpoint works.'),
    }),
  );

  app.get('/articles/:slug', (req, res) => {
    if (!isSafeSlug(req.params.slug)) return res.status(404).end();
    res.sendFile(join(dir, `${req.params.slug}.html`), (error) => error && res.status(404).end());
  });
  return app;
}

/**
 * Creates the app and listens. `port: 0` picks a free port; `publicBaseUrl` defaults to
 * `http://<host>:<port>/articles`.
 *
 * @example
 * const { url, close } = await startPublisher({ token, contentDir: './content', port: 3000 });
 */
export async function startPublisher({ port = 3000, host = '127.0.0.1', publicBaseUrl, ...options }) {
  let base = publicBaseUrl;
  const app = createPublisherApp({ ...options, publicBaseUrl: () => base });
  const server = app.listen(port, host);
  await once(server, 'listening');
  const url = `http://${host}:${server.address().port}`;
  base = (base ?? `${url}/articles`).replace(/\/+$/, '');
  const close = () => new Promise((done) => server.close(() => done()).closeAllConnections());
  return { url, server, close };
}

function logHandlerError(error, event) {
  console.error(`Could not publish delivery ${event.deliveryId} (${event.type}): ${error.message}`);
}
