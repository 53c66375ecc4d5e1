import { once } from 'node:events';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createReceiver } from 'webhook-cms-receiver';
import { webhookHandler } from 'webhook-cms-receiver/hono';
import { isPublic } from 'webhook-cms-receiver/publish';

/**
 * A Hono app with the webhook at `POST /webhook`. It logs each event and answers a public
 * article with the URL it has on your site; replace the handlers with your publishing code.
 *
 * @example
 * const app = createApp({ token: process.env.WEBHOOK_TOKEN, publicBaseUrl: 'https://blog.example.com' });
 */
export function createApp({ token, publicBaseUrl, log = console.log }) {
  const receiver = createReceiver({ token });
  const base = publicBaseUrl.replace(/\/+$/, '');
  const app = new Hono();
  app.post(
    '/webhook',
    webhookHandler(receiver, {
      'article.sync': ({ article, deliveryId }) => {
        log(`sync  ${article.slug} (${article.status}) "${article.title}" [${deliveryId}]`);
        // Every status change arrives, drafts included: link only what is public now (a
        // scheduled article is not yet). Replace with your code removing a non-public article.
        if (!isPublic(article)) return;
        return { publishedUrl: `${base}/${encodeURIComponent(article.slug)}` };
      },
      'article.trash': ({ article, deliveryId }) => log(`trash ${article.slug} [${deliveryId}]`),
      test: () => log('test  Test Connection received'),
      unknown: ({ name }) => log(`skip  unknown event ${name}`),
    }),
  );
  return app;
}

/**
 * Serves the app with `@hono/node-server`; `port: 0` picks a free port.
 *
 * @example
 * const { url, close } = await startServer({ token, port: 3000, publicBaseUrl: 'https://blog.example.com' });
 */
export async function startServer({ port = 3000, host = '127.0.0.1', ...options }) {
  const server = serve({ fetch: createApp(options).fetch, port, hostname: host });
  if (!server.listening) await once(server, 'listening');
  const close = () => new Promise((done) => server.close(() => done()).closeAllConnections());
  return { url: `http://${host}:${server.address().port}`, close };
}
